// NCCL's own choice (ppsim/nccl_tuner.h, --algo nccl): the graphs its search finds on the presets,
// the latencies and bandwidths of its tuning model, the pick as the least of the model's times,
// the channels a size gets, and a run that runs the pick.
#include <gtest/gtest.h>

#include <cmath>

#include "ppsim/nccl_tuner.h"
#include "ppsim/preset.h"
#include "ppsim/run.h"
#include "study/nccl_choice.h"
#include "study/run_options.h"

using namespace ppsim;

namespace {

NcclSystem system_of(const char* preset, int64_t nodes, NcclVersion v = NcclVersion::v2_20_3) {
  const MachinePreset* m = find_machine_preset(preset);
  EXPECT_NE(m, nullptr);
  return nccl_system(*m, nodes, v);
}

const NcclCandidate& candidate(const NcclChoice& c, NcclAlgo a, Protocol p) {
  for (const NcclCandidate& x : c.candidates)
    if (x.algo == a && x.protocol == p) return x;
  ADD_FAILURE() << "no candidate " << nccl_algo_name(a) << " " << protocol_name(p);
  return c.candidates.front();
}

}  // namespace

// The search's rules on the presets. One A100 node: NCCL rates the NVLink 12 x 20 = 240 GB/s; the
// highest speed of 2.20.3's list inside a node at most that is 40, so 6 channels; a graph of 40 GB/s
// (>= 25) doubles its channels at half the speed: 12 at 20. One H100 node: 18 x 20.6 = 370.8,
// sm 90's list starts at 60: 6 channels, doubled (60 >= 50) to 12 at 30. Eight H100 nodes: a channel
// a NIC (8), at most a NIC's 50 GB/s and 370.8 / 8 = 46.35 of the NVLink: 45 of sm 90's list between
// nodes, not doubled (sm 90 below 50 GB/s with more than 4 channels). Two p4d under 2.8.3: 4 EFA
// NICs of 12.5 GB/s, 12 of its one list, not doubled (below 25). The communicator's channels are
// the ring's twice.
TEST(NcclTuner, TheSearchOnThePresets) {
  const NcclSystem a100 = system_of("hgx-a100", 1);
  EXPECT_EQ(a100.graph[int(NcclAlgo::ring)].channels, 12);
  EXPECT_DOUBLE_EQ(a100.graph[int(NcclAlgo::ring)].bw_intra, 20.0);
  EXPECT_EQ(a100.coll_channels, 24);
  EXPECT_EQ(a100.graph[int(NcclAlgo::nvls)].channels, 0);  // A100's NVSwitch does not reduce
  const NcclSystem h100 = system_of("hgx-h100", 1);
  EXPECT_EQ(h100.graph[int(NcclAlgo::ring)].channels, 12);
  EXPECT_DOUBLE_EQ(h100.graph[int(NcclAlgo::ring)].bw_intra, 30.0);
  EXPECT_EQ(h100.nvls_channels, 16);
  const NcclSystem h8 = system_of("hgx-h100", 8);
  EXPECT_EQ(h8.graph[int(NcclAlgo::ring)].channels, 8);
  EXPECT_DOUBLE_EQ(h8.graph[int(NcclAlgo::ring)].bw_inter, 45.0);
  EXPECT_EQ(h8.coll_channels, 16);
  EXPECT_EQ(h8.ranks, 64);
  const NcclSystem p4d = system_of("aws-p4d", 2, NcclVersion::v2_8_3);
  EXPECT_EQ(p4d.graph[int(NcclAlgo::ring)].channels, 4);
  EXPECT_DOUBLE_EQ(p4d.graph[int(NcclAlgo::ring)].bw_inter, 12.0);
}

// The model's figures are tuning.cc's formulas. One A100 node, all-reduce (8 ranks, 14 steps):
// the ring's LL costs 6.6 + 14 x 0.6 us and carries a quarter of 12 x 20 GB/s, times 8/14 (nccl's
// ratio of ranks to steps); Simple 8.4 + 14 x 3.4 us and all of it; the tree's LL 6.8 + 2 (7 x 0.6)
// us, 0.92 x 240 capped at 12 x 24 per channel, over 3.8, capped by LL's 87.7, times 1/2.
TEST(NcclTuner, TheModelsLatencyAndBandwidth) {
  const NcclSystem s = system_of("hgx-a100", 1);
  const NcclChoice c = nccl_choose(s, NcclFunc::allreduce, 1 << 20);
  const NcclCandidate& ring_ll = candidate(c, NcclAlgo::ring, Protocol::ll);
  EXPECT_NEAR(ring_ll.latency_us, 6.6 + 14 * 0.6, 1e-9);
  EXPECT_NEAR(ring_ll.bw_GBps, std::min(87.7, 240.0 / 4) * 8.0 / 14.0, 1e-9);
  const NcclCandidate& ring_simple = candidate(c, NcclAlgo::ring, Protocol::simple);
  EXPECT_NEAR(ring_simple.latency_us, 8.4 + 14 * 3.4, 1e-9);
  EXPECT_NEAR(ring_simple.bw_GBps, 240.0 * 8.0 / 14.0, 1e-9);
  const NcclCandidate& tree_ll = candidate(c, NcclAlgo::tree, Protocol::ll);
  EXPECT_NEAR(tree_ll.latency_us, 6.8 + 2 * (7 * 0.6), 1e-9);
  EXPECT_NEAR(tree_ll.bw_GBps, std::min(std::min(240.0 * .92, 12 * 24.0) / 3.8, 87.7) * 0.5, 1e-9);
  // NVLS needs an NVSwitch that reduces, and NVLS-tree several nodes: neither is weighed here.
  EXPECT_LT(candidate(c, NcclAlgo::nvls, Protocol::simple).time_us, 0);
  EXPECT_LT(candidate(c, NcclAlgo::nvls_tree, Protocol::simple).time_us, 0);
  // A time is latency + bytes / bandwidth (the tree's bandwidth corrected at this size: 2^20 / 64
  // = 2^14, its Simple factor .5).
  EXPECT_NEAR(ring_simple.time_us, ring_simple.latency_us + double(1 << 20) / (1000 * ring_simple.bw_GBps), 1e-9);
  const NcclCandidate& tree_simple = candidate(c, NcclAlgo::tree, Protocol::simple);
  EXPECT_NEAR(tree_simple.time_us, tree_simple.latency_us + double(1 << 20) / (1000 * tree_simple.bw_GBps * .5), 1e-9);
}

// The pick is the least time of the candidates weighed, at every size; on one A100 node the ring's
// LL at 64 B (the least latency, 15.0 us), the ring's Simple at 8 GiB (the most bandwidth); the
// channels fall for small sizes (LL's 8 bytes a thread, times the 8 ranks for the ring, 512
// threads: fewer channels until bytes >= channels x 512 x 64, so 1 at 64 B) and stay 24 at 8 GiB.
TEST(NcclTuner, ThePickIsTheLeastTime) {
  for (const char* preset : {"hgx-a100", "hgx-h100", "aws-p4d"})
    for (int64_t nodes : {1, 2, 8})
      for (int64_t bytes = 8; bytes <= (int64_t(8) << 30); bytes *= 8) {
        const NcclSystem s = system_of(preset, nodes);
        const NcclChoice c = nccl_choose(s, NcclFunc::allreduce, bytes);
        bool found = false;
        for (const NcclCandidate& x : c.candidates) {
          if (x.time_us < 0) continue;
          EXPECT_LE(c.time_us, x.time_us) << preset << " " << nodes << " " << bytes;
          found |= x.algo == c.algo && x.protocol == c.protocol && x.time_us == c.time_us;
        }
        EXPECT_TRUE(found) << preset << " " << nodes << " " << bytes;
        EXPECT_GE(c.channels, 1);
      }
  const NcclSystem a100 = system_of("hgx-a100", 1);
  const NcclChoice small = nccl_choose(a100, NcclFunc::allreduce, 64);
  EXPECT_EQ(small.algo, NcclAlgo::ring);
  EXPECT_EQ(small.protocol, Protocol::ll);
  EXPECT_EQ(small.channels, 1);
  const NcclChoice large = nccl_choose(a100, NcclFunc::allreduce, int64_t(8) << 30);
  EXPECT_EQ(large.algo, NcclAlgo::ring);
  EXPECT_EQ(large.protocol, Protocol::simple);
  EXPECT_EQ(large.channels, 24);
  // Broadcast and reduce weigh the ring alone; all-gather between nodes the ring alone too.
  for (NcclFunc f : {NcclFunc::broadcast, NcclFunc::reduce, NcclFunc::allgather})
    EXPECT_EQ(nccl_choose(system_of("hgx-h100", 2), f, 1 << 20).algo, NcclAlgo::ring);
}

// `--algo nccl` on a run: the unit, protocol and channels of the pick, NCCL's loops, and the
// report's line; refused without a preset, or with a protocol of its own.
TEST(NcclTuner, ARunRunsThePick) {
  study::RunOptions o;
  o.preset = "hgx-a100";
  o.op = "allreduce";
  o.algo = "nccl";
  o.size = "8G";
  o.timing = "dataflow";
  Backend backend = Backend::cpu;
  const RunConfig c = study::build_config(o, backend);
  EXPECT_STREQ(c.algorithm->name, "allreduce_nccl_ring");
  EXPECT_EQ(Protocol(c.protocol), Protocol::simple);
  EXPECT_EQ(c.params.channels, 24);
  // NCCL's loops at 8 GiB: 24 channels x 8 ranks x 2 MiB chunks a loop.
  EXPECT_EQ(c.params.segments, (int64_t(8) << 30) / (24 * 8 * (int64_t(2) << 20)) + 1);
  EXPECT_NE(c.nccl_choice.find("Ring, Simple, 24 channels"), std::string::npos) << c.nccl_choice;
  o.size = "64";
  const RunConfig small = study::build_config(o, backend);
  EXPECT_EQ(Protocol(small.protocol), Protocol::ll);
  const RunResult r = run_simulation(small, Backend::cpu);
  EXPECT_TRUE(r.verified);
  // The ring's LL on one node: its base and 14 NVLink steps, as its model says (64 bytes add 1.3 ns).
  EXPECT_NEAR(r.time, 6.6 + 14 * 0.6, 0.01);
  study::RunOptions bad = o;
  bad.preset.clear();
  bad.topology = "hypercube";
  bad.p = "8";
  bad.size.clear();
  EXPECT_THROW(study::build_config(bad, backend), UsageError);
  bad = o;
  bad.protocol = "ll";
  EXPECT_THROW(study::build_config(bad, backend), UsageError);
}
