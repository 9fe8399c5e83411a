// In-network reduction (docs/DESIGN.md §3e): switch agents on the two-level clusters, and
// NVLS, NVLS-tree, CollNet and NVLS all-gather run with data. The routes between accelerators and
// switches, the closed forms where the schedule has one (one node), the one send and one receive
// of every accelerator, the SHARP trees' step counts, the rank-order fold of a non-commutative
// operator (and a fold in the wrong order caught), both executors, and the refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/all.h"
#include "algorithms/switch_tree.h"
#include "machine/topologies/routing.h"
#include "ppsim/bounds.h"
#include "ppsim/buffers.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/run.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

const char* const kSwitchUnits[] = {"allreduce_nvls", "allreduce_nvls_tree", "allreduce_collnet", "allgather_nvls", "allgather_collnet"};

RunConfig switch_config(const std::string& algo, TopologyKind kind, const std::string& dims, int64_t m, int64_t segments,
                        OperatorKind k = OperatorKind::sum) {
  RunConfig c = make_config(algo, kind, 0, dims, m, k);
  c.params.segments = segments;
  c.ports = PortSpec{PortModel::kport, c.algorithm->sends_per_step};
  c.params.kports = c.algorithm->sends_per_step;
  return c;
}

// Messages and words each accelerator sends and receives in the whole run, from the ops.
struct Traffic {
  std::vector<int64_t> sends, recvs, sent, received;
};
Traffic traffic(const RunConfig& c) {
  const size_t p = size_t(c.params.p);
  Traffic t{std::vector<int64_t>(p), std::vector<int64_t>(p), std::vector<int64_t>(p), std::vector<int64_t>(p)};
  for (int64_t x = 0; x < c.params.p; ++x)
    for (int r = 1; r <= c.algorithm->rounds(c.params); ++r) {
      StepOps ops;
      algorithm_ops(c.algorithm->id, c.params, x, r, ops);
      t.sends[size_t(x)] += ops.nsend;
      t.recvs[size_t(x)] += ops.nrecv;
      for (int i = 0; i < ops.nsend; ++i) t.sent[size_t(x)] += ops.send[i].len;
      for (int i = 0; i < ops.nrecv; ++i) t.received[size_t(x)] += ops.recv[i].len;
    }
  return t;
}

// A schedule whose switches fold the other way round (received data first): wrong for affine.
void reversed_fold(const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  algorithm_ops(find_algorithm("allreduce_nvls")->id, a, proc, round, out);
  if (proc >= a.p)
    for (int i = 0; i < out.nrecv; ++i)
      if (out.recv[i].act[0].mode == RecvMode::slot_op_recv) out.recv[i].act[0].mode = RecvMode::recv_op_slot;
}

}  // namespace

// The routes of switch agents: an accelerator and its NVSwitch over one NVLink link, an
// accelerator and its rail's leaf over PCIe and the rail, a leaf and the spine over one link, the
// fat tree's adjacent switches over one link; no route otherwise.
TEST(SwitchAgents, RoutesToTheSwitchesNextToAProcessor) {
  const Topology t = make_topology(TopologyKind::cluster, 0, "3x4x2");  // p = 12, N = 3, K = 2
  const int64_t p = 12, nvswitch = p, network = p + 3 * (1 + 2);    // leaves 0, 1, then the spine
  EXPECT_EQ(topology_nodes(t), network + 3);
  std::vector<int64_t> r = topology_route(t, 5, nvswitch + 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(topology_link_class_name(t, topology_link_class(t, r[0])), "nvlink");
  EXPECT_EQ(route_hops(t, 5, nvswitch + 0), 0) << "another node's NVSwitch";
  r = topology_route(t, 5, network + 0);  // accelerator 1 of node 1: NIC 0 of its node, rail 0
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(topology_link_class_name(t, topology_link_class(t, r[0])), "pcie");
  EXPECT_EQ(topology_link_class_name(t, topology_link_class(t, r[1])), "rail");
  EXPECT_EQ(route_hops(t, 5, network + 1), 0) << "the other rail's leaf";
  EXPECT_EQ(route_hops(t, network + 0, 5), 2);
  EXPECT_EQ(route_hops(t, network + 1, network + 2), 1) << "leaf to spine";
  EXPECT_EQ(route_hops(t, network + 2, network + 1), 1) << "spine to leaf";
  EXPECT_EQ(route_hops(t, network + 0, network + 1), 0) << "two leaves";
  // A 2-ary 3-tree over 8 NICs (4 nodes x 2): 4 switches a level.
  const Topology f = make_topology(TopologyKind::cluster_fattree, 0, "4x2x2x2");
  const int64_t fnet = 8 + 4 * 3;
  EXPECT_EQ(route_hops(f, 3, fnet + 1), 2) << "accelerator 3 leaves by NIC 3, under leaf switch 3 / 2 = 1";
  EXPECT_EQ(route_hops(f, 3, fnet + 0), 0);
  int64_t from, to;
  for (int64_t lower = 0; lower < 8; ++lower)
    for (int64_t upper = 4; upper < 12; ++upper) {
      const std::vector<int64_t> up = topology_route(f, fnet + lower, fnet + upper);
      if (up.empty()) continue;
      ASSERT_EQ(up.size(), 1u);
      ASSERT_TRUE(topology_link_endpoints(f, up[0], from, to));
      EXPECT_EQ(from, fnet + lower);
      EXPECT_EQ(to, fnet + upper);
    }
}

// One node: every accelerator sends its m words to the NVSwitch once and receives the m-word sum
// once (in S segments), and the time is (S + 1)(t_s + t_w m/S) + gamma m when S divides m; the
// NVLS all-gather sends m and receives G m, in (S + 1) t_s + t_w m/S + t_w G m.
TEST(SwitchAgents, NvlsOnOneNodeSendsOnceAndReceivesOnce) {
  for (int64_t m : {64, 37}) {
    for (int64_t s : {1, 4}) {
      RunConfig c = switch_config("allreduce_nvls", TopologyKind::cluster, "1x8", m, s);
      c.cost.ts = 10;
      c.cost.tw = 2;
      c.cost.gamma = 0.25;
      c.cost.set_class_tw(0, 0.5);  // nvlink
      const Traffic t = traffic(c);
      for (int64_t x = 0; x < 8; ++x) {
        EXPECT_EQ(t.sends[size_t(x)], s);
        EXPECT_EQ(t.recvs[size_t(x)], s);
        EXPECT_EQ(t.sent[size_t(x)], m);
        EXPECT_EQ(t.received[size_t(x)], m);
      }
      const RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      EXPECT_EQ(r.steps, s + 1);
      if (m % s == 0) {
        EXPECT_DOUBLE_EQ(r.time, double(s + 1) * (10 + 0.5 * double(m / s)) + 0.25 * double(m));
      }
      EXPECT_DOUBLE_EQ(r.time, formula_time(c));
      EXPECT_EQ(r.max_link_load, 1);
      EXPECT_GE(r.time, lower_bound_time(c));

      RunConfig g = switch_config("allgather_nvls", TopologyKind::cluster, "1x8", m, s);
      g.cost = c.cost;
      const Traffic tg = traffic(g);
      EXPECT_EQ(tg.sent[3], m);
      EXPECT_EQ(tg.received[3], 8 * m);
      const RunResult rg = run_cpu(g);
      ASSERT_TRUE(rg.verified);
      if (m % s == 0) {
        EXPECT_DOUBLE_EQ(rg.time, double(s + 1) * 10 + 0.5 * double(m / s) + 0.5 * double(8 * m));
      }
      EXPECT_DOUBLE_EQ(rg.time, formula_time(g));
    }
  }
}

// On several nodes: the steps of each unit from its stages (L = 1 on rails, n on the fat tree; H
// the node tree's height), and what an accelerator moves: NVLS sends its m words to the NVSwitch,
// its slice to the network and to the NVSwitch again, and receives as much; CollNet sends every
// slice but its own to a peer, its own slice up and to G - 1 peers; the all-gathers gather block g
// of every node on accelerator g, which hands them on to the NVSwitch (NVLS) or its G - 1 peers.
TEST(SwitchAgents, StepsAndWordsOnSeveralNodes) {
  struct Machine {
    TopologyKind kind;
    const char* dims;
    int64_t L;
  };
  for (const Machine& mc : {Machine{TopologyKind::cluster, "4x8", 1}, Machine{TopologyKind::cluster, "3x4x2", 1},
                            Machine{TopologyKind::cluster_fattree, "8x8x8x4", 3}, Machine{TopologyKind::cluster_fattree, "16x4x2x2", 5}}) {
    for (int64_t s : {1, 3}) {
      const int64_t m = 96;
      SCOPED_TRACE(std::string(mc.dims) + " S = " + std::to_string(s));
      RunConfig nv = switch_config("allreduce_nvls", mc.kind, mc.dims, m, s);
      const int64_t G = nv.params.node_size, N = nv.params.p / G;
      EXPECT_EQ(nv.algorithm->rounds(nv.params), s + 2 * mc.L + 3);
      const Traffic t = traffic(nv);
      for (int64_t x = 0; x < nv.params.p; ++x) {
        EXPECT_EQ(t.sent[size_t(x)], m + 2 * (m / G));
        EXPECT_EQ(t.received[size_t(x)], m + 2 * (m / G));
        EXPECT_EQ(t.sends[size_t(x)], 3 * s);
      }
      RunConfig tree = switch_config("allreduce_nvls_tree", mc.kind, mc.dims, m, s);
      const int h = NcclTree{N, 1, N, 0}.tree_height();
      EXPECT_EQ(tree.algorithm->rounds(tree.params), s + 2 * h + 3);
      // Besides its segment and its slice to the NVSwitch, an accelerator sends half its slice up
      // and down each tree: a node interior in one tree (up, two children) is a leaf in the other
      // (up), so no rail's NIC sends more than two slices (one tree a rail: three).
      const Traffic tt = traffic(tree);
      int64_t most = 0;
      for (int64_t x = 0; x < tree.params.p; ++x) most = std::max(most, tt.sent[size_t(x)] - m - m / G);
      EXPECT_LE(most, 2 * (m / G));
      if (N >= 4) {  // (three nodes: no node has two children)
        EXPECT_EQ(most, 2 * (m / G));
      }
      RunConfig cn = switch_config("allreduce_collnet", mc.kind, mc.dims, m, s);
      EXPECT_EQ(cn.algorithm->rounds(cn.params), s + 2 * mc.L + 1);
      const Traffic tc = traffic(cn);
      for (int64_t x = 0; x < cn.params.p; ++x) {
        EXPECT_EQ(tc.sent[size_t(x)], (G - 1) * (m / G) + m / G + (G - 1) * (m / G));
      }
      RunConfig ag = switch_config("allgather_nvls", mc.kind, mc.dims, m, s);
      EXPECT_EQ(ag.algorithm->rounds(ag.params), s + 2 * mc.L + 1);
      const Traffic ta = traffic(ag);
      for (int64_t x = 0; x < ag.params.p; ++x) {
        EXPECT_EQ(ta.sent[size_t(x)], m + N * m) << "its block up, block g of every node to the NVSwitch";
        EXPECT_EQ(ta.received[size_t(x)], N * m + N * G * m);
      }
      RunConfig agc = switch_config("allgather_collnet", mc.kind, mc.dims, m, s);
      EXPECT_EQ(agc.algorithm->rounds(agc.params), s + 2 * mc.L);
      const Traffic tac = traffic(agc);
      for (int64_t x = 0; x < agc.params.p; ++x) {
        EXPECT_EQ(tac.sent[size_t(x)], m + (G - 1) * N * m) << "its block up, block g of every node to each peer";
        EXPECT_EQ(tac.received[size_t(x)], N * m + (G - 1) * N * m);
      }
      for (RunConfig* c : {&nv, &tree, &cn, &ag, &agc}) {
        const RunResult r = run_cpu(*c);
        EXPECT_TRUE(r.verified) << c->algorithm->name;
        EXPECT_EQ(r.steps, c->algorithm->rounds(c->params));
        EXPECT_GE(r.time, lower_bound_time(*c)) << c->algorithm->name;
      }
    }
  }
}

// The switches fold in rank order: a non-commutative operator (affine maps) verifies through
// NVSwitches and SHARP trees on both executors, with uneven slices; folding the other way round
// is caught.
TEST(SwitchAgents, RankOrderFoldOnBothExecutors) {
  for (const char* algo : kSwitchUnits) {
    for (const auto& [kind, dims] : {std::pair{TopologyKind::cluster, "3x4x2"}, std::pair{TopologyKind::cluster_fattree, "8x4x4x2"},
                                     std::pair{TopologyKind::cluster, "1x6"}}) {
      const bool commutative_only = find_algorithm(algo)->commutative_only();
      RunConfig c = switch_config(algo, kind, dims, 29, 3, commutative_only ? OperatorKind::sum : OperatorKind::affine);
      c.input = InputSpec{true, 7};
      SCOPED_TRACE(std::string(algo) + " on " + dims);
      const RunResult cpu = run_cpu(c);
      EXPECT_TRUE(cpu.verified) << cpu.mismatches;
      const RunResult dev = run_device_rounds_on_host(c);
      EXPECT_TRUE(dev.verified);
      EXPECT_EQ(dev.buffers, cpu.buffers);
      EXPECT_EQ(dev.time, cpu.time);
      EXPECT_EQ(dev.words, cpu.words);
      EXPECT_EQ(dev.messages, cpu.messages);
      EXPECT_EQ(cpu.buffers.size(), size_t(run_buffer_count(c)));
      EXPECT_EQ(int64_t(cpu.buffers[0].size()), c.params.p * run_buffer_words(c, 0)) << "the switches' words stay behind";
    }
  }
  RunConfig c = switch_config("allreduce_nvls", TopologyKind::cluster, "3x4x2", 29, 2, OperatorKind::affine);
  c.input = InputSpec{true, 7};
  c.test_ops_override = reversed_fold;
  EXPECT_FALSE(run_cpu(c).verified);
}

// A switch talks to its neighbours only, and a network whose switches would fold more than 32
// messages a step is refused with a line that says what to change.
TEST(SwitchAgents, RefusalsAndLimits) {
  RunConfig c = switch_config("allreduce_nvls", TopologyKind::cluster, "3x4x2", 8, 1);
  c.test_ops_override = [](const AlgoParams& a, int64_t proc, int round, StepOps& out) {
    if (round == 1 && proc == 0) out.add_send(a.p + 1, kData, 0, 1);  // node 1's NVSwitch
    if (round == 1 && proc == a.p + 1) out.add_recv(0, kData, 0, 1, RecvMode::copy);
  };
  EXPECT_THROW(run_cpu(c), ScheduleError);
  const Topology big = make_topology(TopologyKind::cluster_fattree, 0, "128x8");  // 1024 NICs: a 32-ary 2-tree
  AlgoParams a = params_for(big, 64, 0);
  std::string why = algorithm_rejects(*find_algorithm("allreduce_collnet"), big, a, OperatorKind::sum);
  EXPECT_NE(why.find("a fat tree of smaller arity"), std::string::npos) << why;
  const Topology ok = make_topology(TopologyKind::cluster_fattree, 0, "128x8x8x4");
  a = params_for(ok, 64, 0);
  EXPECT_EQ(algorithm_rejects(*find_algorithm("allreduce_collnet"), ok, a, OperatorKind::sum), "");
  const Topology rails = make_topology(TopologyKind::cluster, 0, "64x8");
  a = params_for(rails, 64, 0);
  EXPECT_NE(algorithm_rejects(*find_algorithm("allreduce_nvls"), rails, a, OperatorKind::sum), "");
  EXPECT_NE(algorithm_rejects(*find_algorithm("allreduce_nvls"), make_topology(TopologyKind::ring, 8, ""), a, OperatorKind::sum), "");
}
