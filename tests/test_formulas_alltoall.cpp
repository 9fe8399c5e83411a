// The all-gather and all-to-all algorithms MPI libraries run, held to their closed forms
// on a fully connected machine (every message its own link, t_h = 0), for p that are and are not
// powers of two, several m, t_s, t_w and gamma (they copy and never combine: gamma adds nothing),
// on the CPU backend and on the device rounds run on the host, with verified results and identical
// times. The expected figures are written here from the definitions (Thakur, Rabenseifner, Gropp
// 2005; Bruck et al. 1997), not read from the units:
//   allgather_bruck, k ports:   round r (s = (k+1)^r < p) costs t_s + t_w m min(s, p - s);
//                               single-port, p = 2^d: t_s lg p + t_w m (p - 1)
//   alltoall_bruck, radix r:    each digit position x (R = r^x < p) and digit value z with a block
//                               to move, k values a round; a round costs t_s + t_w m times its
//                               largest count #{j in [0, p) : digit x of j is z};
//                               r = 2, p = 2^d: lg p (t_s + t_w m p/2)
//   alltoall_pairwise:          (p - 1)(t_s + t_w m)
//   alltoall_linear, W a round: ceil((p - 1) / W)(t_s + t_w m)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

struct Costs {
  double ts, tw, gamma;
};
const Costs kCosts[] = {{1, 1, 0}, {100, 1, 0.5}, {10, 0.5, 2}, {0, 3, 1}};
const int64_t kMs[] = {1, 3, 8};
const int64_t kPs[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 27, 31};

// Ports for a run: k-port with k sends a round (1: single-port), or all-port.
struct Ports {
  int k;
  bool all;
};

RunConfig config(const char* algo, int64_t p, int64_t m, Costs k, Ports ports, int radix = 2, TopologyKind kind = TopologyKind::full) {
  RunConfig c = make_config(algo, kind, p, "", m, OperatorKind::interval);
  c.cost = CostParams{k.ts, k.tw, 0, Routing::cut_through, k.gamma};
  c.params.radix = radix;
  if (ports.all) {
    c.ports = PortSpec{PortModel::all, kMaxOps};
    c.params.all_port = true;
  } else if (ports.k > 1) {
    c.ports = PortSpec{PortModel::kport, ports.k};
    c.params.kports = ports.k;
  }
  return c;
}

// Runs c on the CPU and as device rounds on the host: both verified, the same steps and times, and
// step j costs round_costs[j]. Returns the CPU run.
RunResult run_both(const RunConfig& c, const std::vector<double>& round_costs) {
  RunResult cpu = run_cpu(c), dev = run_device_rounds_on_host(c);
  EXPECT_TRUE(cpu.verified);
  EXPECT_TRUE(dev.verified);
  EXPECT_EQ(cpu.mismatches, 0);
  EXPECT_EQ(dev.mismatches, 0);
  EXPECT_EQ(dev.backend, "cuda-host");
  EXPECT_EQ(cpu.steps, dev.steps);
  EXPECT_EQ(cpu.time, dev.time);
  EXPECT_EQ(cpu.words, dev.words);
  EXPECT_EQ(cpu.steps, int64_t(round_costs.size()));
  EXPECT_EQ(cpu.steps, c.algorithm->rounds(c.params));
  double total = 0;
  for (size_t j = 0; j < round_costs.size() && j < cpu.per_step.size(); ++j) {
    EXPECT_DOUBLE_EQ(cpu.per_step[j].time, round_costs[j]) << "step " << j + 1;
    total += round_costs[j];
  }
  EXPECT_DOUBLE_EQ(cpu.time, total);
  EXPECT_DOUBLE_EQ(c.algorithm->formula(c.params, c.cost), total) << "the unit's formula";
  EXPECT_EQ(cpu.max_link_load, cpu.messages > 0 ? 1 : 0) << "contention-free on a fully connected machine";
  return cpu;
}

std::string what(const char* algo, int64_t p, int64_t m, Ports ports, int radix = 0) {
  return std::string(algo) + " p=" + std::to_string(p) + " m=" + std::to_string(m) +
         (ports.all ? " all-port" : " ports=" + std::to_string(ports.k)) + (radix ? " r=" + std::to_string(radix) : "");
}

// Digit x (weight R) of j in base r.
int64_t digit(int64_t j, int64_t R, int64_t r) { return (j / R) % r; }

}  // namespace

TEST(FormulaAlltoall, AllgatherBruck) {
  for (int k : {1, 2, 3})
    for (int64_t p : kPs)
      for (int64_t m : kMs)
        for (Costs cost : kCosts) {
          SCOPED_TRACE(what("allgather_bruck", p, m, {k, false}));
          std::vector<double> rounds;
          for (int64_t s = 1; s < p; s *= k + 1) rounds.push_back(cost.ts + cost.tw * m * std::min(s, p - s));
          EXPECT_EQ(int64_t(rounds.size()), int64_t(std::ceil(std::log(double(p)) / std::log(k + 1.0) - 1e-9)));
          RunResult r = run_both(config("allgather_bruck", p, m, cost, {k, false}), rounds);
          EXPECT_EQ(r.words, p * (p - 1) * m) << "every processor receives every other block once";
          if (k == 1 && (p & (p - 1)) == 0) {  // Thakur: lg p α + n (p-1)/p β, n = p m
            const double lg = std::log2(double(p)), n = double(p * m);
            EXPECT_DOUBLE_EQ(r.time, lg * cost.ts + n * (p - 1) / p * cost.tw);
          }
        }
}

TEST(FormulaAlltoall, AlltoallBruck) {
  for (int radix : {2, 3, 4})
    for (int k : {1, 2, 3})
      for (int64_t p : kPs)
        for (int64_t m : kMs)
          for (Costs cost : kCosts) {
            SCOPED_TRACE(what("alltoall_bruck", p, m, {k, false}, radix));
            std::vector<double> rounds;
            int64_t moved = 0;  // block moves, summed over blocks: the words a run sends, over m p
            for (int64_t R = 1; R < p; R *= radix) {
              std::vector<int64_t> count;  // per digit value z >= 1 that some j < p has
              for (int64_t z = 1; z < radix; ++z) {
                int64_t c = 0;
                for (int64_t j = 0; j < p; ++j) c += digit(j, R, radix) == z;
                if (c > 0) count.push_back(c);
              }
              for (size_t first = 0; first < count.size(); first += size_t(k)) {  // k digit values a round
                const int64_t largest = *std::max_element(count.begin() + first, count.begin() + std::min(count.size(), first + k));
                rounds.push_back(cost.ts + cost.tw * m * largest);
              }
            }
            for (int64_t j = 0; j < p; ++j)
              for (int64_t R = 1; R < p; R *= radix) moved += digit(j, R, radix) != 0;
            if (k >= radix - 1) {  // one round per digit position: ceil(log_r p)
              int64_t positions = 0;
              for (int64_t R = 1; R < p; R *= radix) ++positions;
              EXPECT_EQ(int64_t(rounds.size()), positions);
            }
            RunResult r = run_both(config("alltoall_bruck", p, m, cost, {k, false}, radix), rounds);
            EXPECT_EQ(r.words, p * moved * m);
            if (radix == 2 && k == 1 && (p & (p - 1)) == 0) {  // Thakur: lg p α + (n/2) lg p β, n = p m
              const double lg = std::log2(double(p)), n = double(p * m);
              EXPECT_DOUBLE_EQ(r.time, lg * cost.ts + n / 2 * lg * cost.tw);
            }
          }
}

// A message whose last run is cut short: at p = 13, r = 2 the blocks with bit 2 set are
// {4, 5, 6, 7, 12}, runs of 4 every 8 and a last run of 1.
TEST(FormulaAlltoall, BruckShortLastRun) {
  RunConfig c = config("alltoall_bruck", 13, 2, {1, 1, 0}, {1, false});
  StepOps ops;
  algorithm_ops(AlgorithmId::AlltoallBruck, c.params, 0, 3, ops);  // round 3: digit position 2
  ASSERT_EQ(ops.nsend, 1);
  EXPECT_EQ(ops.send[0].to, 4);
  EXPECT_EQ(ops.send[0].src_off, 4 * 2);
  EXPECT_EQ(ops.send[0].run, 4 * 2);
  EXPECT_EQ(ops.send[0].stride, 8 * 2);
  EXPECT_EQ(ops.send[0].len, 5 * 2);
  RunResult r = run_cpu(c);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.per_step[2].words, 13 * 5 * 2);
}

TEST(FormulaAlltoall, AlltoallPairwise) {
  for (int64_t p : kPs)
    for (int64_t m : kMs)
      for (Costs cost : kCosts) {
        SCOPED_TRACE(what("alltoall_pairwise", p, m, {1, false}));
        run_both(config("alltoall_pairwise", p, m, cost, {1, false}), std::vector<double>(size_t(p - 1), cost.ts + cost.tw * m));
      }
  // p = 2^d: the XOR pattern, congestion-free on a hypercube with E-cube routing too.
  for (int64_t p : {2, 8, 32}) {
    RunConfig c = config("alltoall_pairwise", p, 3, {2, 1, 0}, {1, false}, 2, TopologyKind::hypercube);
    RunResult r = run_cpu(c);
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.max_link_load, 1);
    EXPECT_DOUBLE_EQ(r.time, (p - 1) * (2 + 1 * 3.0));
  }
}

TEST(FormulaAlltoall, AlltoallLinear) {
  std::vector<Ports> ports = {{1, false}, {2, false}, {3, false}, {kMaxOps, true}};
  for (Ports port : ports)
    for (int64_t p : {2, 3, 5, 6, 7, 12, 13, 31, 33, 40, 70})
      for (int64_t m : kMs)
        for (Costs cost : kCosts) {
          SCOPED_TRACE(what("alltoall_linear", p, m, port));
          const int64_t w = port.all ? kMaxOps : port.k;
          RunResult r = run_both(config("alltoall_linear", p, m, cost, port),
                                 std::vector<double>(size_t((p - 1 + w - 1) / w), cost.ts + cost.tw * m));
          EXPECT_EQ(r.messages, p * (p - 1));
        }
}

// Under all-port the linear algorithm needs a link per message: a ring has two, and the run
// stops with the broken rule instead of sharing them.
TEST(FormulaAlltoall, LinearAllPortNeedsALinkPerMessage) {
  RunConfig c = config("alltoall_linear", 8, 1, {1, 1, 0}, {kMaxOps, true}, 2, TopologyKind::ring);
  EXPECT_THROW(run_cpu(c), ScheduleError);
  EXPECT_THROW(run_device_rounds_on_host(c), ScheduleError);
}
