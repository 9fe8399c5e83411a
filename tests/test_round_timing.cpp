// The time of a run from its rounds alone (ppsim/round_timing.h): its lockstep form equals what the
// CPU backend sums step by step, for every registered algorithm; its dataflow form never exceeds
// that, equals it where every step is alike, pays a pipelined ring's latencies as NCCL's own model
// charges them, and times a size too large to carry.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "ppsim/round_timing.h"
#include "ppsim/run.h"
#include "test_helpers.h"

namespace ppsim {
namespace {

using testing_support::make_config;

struct Machine {
  TopologyKind kind;
  int64_t p;
  const char* dims;
};

// The port models to try, in order: the first one the configuration accepts runs.
std::vector<PortSpec> port_models() { return {PortSpec{PortModel::single, 1}, PortSpec{PortModel::kport, 8}, PortSpec{PortModel::all, 1}}; }

// c with the given ports, and costs where every term counts: startups, hops, words per class, γ.
bool configure(RunConfig& c, const PortSpec& ports) {
  c.ports = ports;
  c.params.kports = ports.model == PortModel::kport ? ports.k : 1;
  c.params.all_port = ports.model == PortModel::all;
  c.cost.ts = 1.0;
  c.cost.tw = 0.5;
  c.cost.th = 0.25;
  c.cost.gamma = 0.125;
  const int classes = topology_link_class_count(physical_topology(c));
  for (int k = 0; k < classes; ++k) c.cost.set_class_tw(k, 0.2 + 0.3 * k);
  try {
    validate_config(c);
  } catch (const ConfigError&) {
    return false;
  }
  return dataflow_refusal(c).empty();
}

TEST(RoundTiming, LockstepEqualsTheBackendsStepsForEveryAlgorithm) {
  const Machine machines[] = {{TopologyKind::hypercube, 8, ""}, {TopologyKind::ring, 6, ""}, {TopologyKind::full, 5, ""},
                              {TopologyKind::mesh, 9, "3x3"},   {TopologyKind::cluster, 8, "2x4"}};
  int timed = 0;
  for (const AlgorithmInfo& algo : algorithms())
    for (const Machine& mc : machines)
      for (const PortSpec& ports : port_models()) {
        RunConfig c;
        try {
          c = make_config(algo.name, mc.kind, mc.p, mc.dims, 24);
        } catch (const std::exception&) {
          continue;
        }
        if (!configure(c, ports)) continue;
        RunResult r;
        try {
          r = run_cpu(c);
        } catch (const ScheduleError&) {
          continue;  // another port model
        }
        const RoundTimes t = time_rounds(c);
        const std::string what = std::string(algo.name) + " on " + topology_shape(c.topology) + ", ports " + port_spec_name(ports);
        EXPECT_NEAR(t.lockstep, r.time, 1e-9 * std::max(1.0, r.time)) << what;
        EXPECT_LE(t.dataflow, t.lockstep * (1 + 1e-12) + 1e-12) << what;
        EXPECT_GT(t.dataflow, 0.0) << what;
        ++timed;
        break;
      }
  EXPECT_GT(timed, 150);  // every algorithm on the machines it runs on
}

// A ring all-gather on a ring: every step alike, nothing to overlap.
TEST(RoundTiming, DataflowEqualsLockstepWhereEveryStepIsAlike) {
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 16, "", 64);
  ASSERT_TRUE(configure(c, PortSpec{PortModel::single, 1}));
  const RoundTimes t = time_rounds(c);
  EXPECT_NEAR(t.dataflow, t.lockstep, 1e-9 * t.lockstep);
  EXPECT_NEAR(t.lockstep, 15 * (1.0 + 0.25 + 0.2 * 64), 1e-9);  // (p - 1)(t_s + t_h + t_w m), ring links of class 0
}

// NCCL's ring on N nodes of G accelerators with latency alone: a chunk's chain of 2(p - 1) hops
// crosses the network 2N times at most, and the rest of its hops are inside nodes, which is how
// NCCL's tuning model charges a ring: (2(p - 1) - 2N) intra-node latencies and 2N network ones.
TEST(RoundTiming, APipelinedRingPaysTheNetworkWhereItsDataCrossesIt) {
  for (const int nodes : {2, 4})
    for (const int channels : {1, 4}) {
      const int g = 4, p = nodes * g;
      RunConfig c = make_config("allreduce_nccl_ring", TopologyKind::cluster, p, std::to_string(nodes) + "x" + std::to_string(g), 4096);
      c.params.channels = channels;
      ASSERT_TRUE(configure(c, PortSpec{PortModel::kport, channels}));
      c.cost.tw = 0;
      c.cost.th = 0;
      c.cost.gamma = 0;
      c.cost.tw_class_set = 0;
      const double intra = 3.0, network = 20.0;
      const Topology& m = physical_topology(c);
      for (int k = 0; k < topology_link_class_count(m); ++k) {
        const std::string name = topology_link_class_name(m, k);
        c.cost.ts_class[k] = name == "nvlink" ? intra : name == "pcie" ? 1.0 : network;
        c.cost.ts_class_set |= 1u << k;
      }
      const RoundTimes t = time_rounds(c);
      const int steps = 2 * (p - 1), crossings = 2 * nodes;
      EXPECT_NEAR(t.dataflow, (steps - crossings) * intra + crossings * network, 1e-9) << nodes << " nodes, " << channels << " channels";
      EXPECT_NEAR(t.lockstep, steps * network, 1e-9);  // every lockstep step waits for a message crossing the network
    }
}

// A size timed but not carried: the run moves and verifies m' words and reports the time of the
// rounds at m, which is the time of the run at m where that one can be carried too.
TEST(RoundTiming, ASizeTooLargeToCarryIsTimedFromItsRounds) {
  RunConfig full = make_config("allreduce_nccl_ring", TopologyKind::cluster, 8, "2x4", 8 * 4 * 64);
  full.params.channels = 4;
  ASSERT_TRUE(configure(full, PortSpec{PortModel::kport, 4}));
  full.timing = StepTiming::dataflow;
  const RunResult whole = run_simulation(full, Backend::cpu);
  RunConfig carried = full;
  carried.timed_m = full.params.m;
  carried.params.m = 8 * 4;
  const RunResult part = run_simulation(carried, Backend::cpu);
  EXPECT_TRUE(part.verified);
  EXPECT_EQ(part.timed_words, full.params.m);
  EXPECT_DOUBLE_EQ(part.time, whole.time);
  EXPECT_DOUBLE_EQ(part.lockstep_time, whole.lockstep_time);
  EXPECT_EQ(part.timing, "dataflow");
  EXPECT_LT(part.words, whole.words);  // the figures of the data moved are the carried run's
}

TEST(RoundTiming, RefusesWhatItCannotTime) {
  RunConfig c = make_config("broadcast_postal", TopologyKind::full, 8, "", 1);
  c.params.lambda = 2;
  c.timing = StepTiming::dataflow;
  EXPECT_NE(dataflow_refusal(c), "");
  RunConfig l = make_config("allreduce_ring", TopologyKind::ring, 8, "", 8);
  l.cost.model = CostModel::loggp;
  l.timing = StepTiming::dataflow;
  EXPECT_NE(dataflow_refusal(l), "");
}

}  // namespace
}  // namespace ppsim
