// The hierarchical all-reduce on the two-level clusters (algorithms/allreduce_hierarchical.h): a
// ring reduce-scatter inside every node, any all-reduce that runs on a switched network between
// the nodes on each slice (--inter), a ring all-gather inside every node. Data through both
// executors with several inter algorithms and uneven slices, the closed form against the
// simulation under per-class costs, the degenerate machines (one node, one accelerator per node),
// and what it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/protocol.h"
#include "ppsim/run.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

// Every all-reduce that runs between nodes (inter_node_refusal admits it).
const char* const kInter[] = {"allreduce_ring",  "allreduce_rabenseifner", "allreduce_hypercube", "allreduce_reduce_broadcast",
                              "allreduce_rs_ag", "allreduce_nccl_ring",    "allreduce_nccl_tree"};

// The hierarchical all-reduce with `inter` between nodes, and the ports that needs (NCCL's ring: one
// per channel; its tree: 8).
RunConfig hierarchical(TopologyKind kind, const std::string& dims, int64_t m, const std::string& inter, int channels = 1,
                       int64_t segments = 1) {
  RunConfig c = make_config("allreduce_hierarchical", kind, 0, dims, m);
  const AlgorithmInfo* between = find_algorithm(inter);
  c.params.inter = int16_t(between->id);
  c.params.channels = channels;
  c.params.segments = segments;
  const int ports = std::max(channels, between->sends_per_step);
  if (ports > 1) {
    c.ports = PortSpec{PortModel::kport, ports};
    c.params.kports = ports;
  }
  return c;
}

int64_t nodes(const RunConfig& c) { return c.topology.dims[0]; }
int64_t per_node(const RunConfig& c) { return c.topology.dims[1]; }

// The refusals a configuration may meet, and only these: p' = N not 2^d for a unit that needs it, a
// slice that is no multiple of N where the unit splits it so, more segments than a slice has words.
bool refusal_declared(const RunConfig& c, const std::string& inter) {
  const int64_t n = nodes(c), g = per_node(c), large = (c.params.m + g - 1) / g, small = c.params.m / g;
  if (inter == "allreduce_rs_ag") return !is_pow2(n) || large % n != 0 || (small > 0 && small % n != 0);
  if (inter == "allreduce_nccl_tree") return c.params.segments > (small > 0 ? small : large);
  return false;
}

}  // namespace

// Every inter algorithm, on clusters of either network (one node and one accelerator per node
// among them), with m below G, uneven and even: verified on the CPU backend and by the device
// rounds executed on the host, with the same time and steps.
TEST(Hierarchical, VerifiedWithEveryInterAlgorithmOnBothExecutors) {
  struct Shape {
    TopologyKind kind;
    const char* dims;
  };
  const Shape shapes[] = {{TopologyKind::cluster, "4x4"},          {TopologyKind::cluster, "3x4x2"},
                          {TopologyKind::cluster, "2x8x2"},        {TopologyKind::cluster, "1x4"},
                          {TopologyKind::cluster, "5x1"},          {TopologyKind::cluster_fattree, "4x2x2x2"},
                          {TopologyKind::cluster_fattree, "3x2x1"}};
  int runs = 0, refused = 0;
  for (const char* inter : kInter)
    for (const Shape& s : shapes)
      for (int64_t m : {1, 7, 64}) {
        const bool ring = std::string(inter) == "allreduce_nccl_ring", tree = std::string(inter) == "allreduce_nccl_tree";
        RunConfig c = hierarchical(s.kind, s.dims, m, inter, ring ? 2 : 1, ring || tree ? 2 : 1);
        c.combine = OperatorKind::bxor;
        c.input = InputSpec{true, 2024};
        const std::string why = algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine);
        if (!why.empty()) {
          EXPECT_TRUE(refusal_declared(c, inter)) << inter << " " << s.dims << " m=" << m << ": " << why;
          EXPECT_THROW(run_cpu(c), ConfigError);
          ++refused;
          continue;
        }
        EXPECT_FALSE(refusal_declared(c, inter)) << inter << " " << s.dims << " m=" << m;
        const RunResult cpu = run_cpu(c);
        EXPECT_TRUE(cpu.verified) << inter << " " << s.dims << " m=" << m;
        EXPECT_EQ(cpu.steps, c.algorithm->rounds(c.params));
        c.keep_buffers = false;
        const RunResult host = run_device_rounds_on_host(c);
        EXPECT_TRUE(host.verified) << inter << " " << s.dims << " m=" << m;
        EXPECT_EQ(host.steps, cpu.steps);
        EXPECT_EQ(host.time, cpu.time);
        EXPECT_EQ(host.words, cpu.words);
        ++runs;
      }
  EXPECT_EQ(runs + refused, 7 * 7 * 3);
  EXPECT_GE(runs, 120);
}

// The commutative operators run (fsum too: commutative, not associative); the partials go round a
// node's ring, so a non-commutative one is refused before the run.
TEST(Hierarchical, CommutativeOperatorsOnly) {
  for (OperatorKind k : {OperatorKind::sum, OperatorKind::max, OperatorKind::bxor, OperatorKind::fsum}) {
    RunConfig c = hierarchical(TopologyKind::cluster, "3x4", 23, "allreduce_rabenseifner");
    c.combine = k;
    c.input = InputSpec{true, 7};
    EXPECT_TRUE(run_cpu(c).verified) << operator_name(k);
  }
  for (OperatorKind k : {OperatorKind::interval, OperatorKind::affine}) {
    RunConfig c = hierarchical(TopologyKind::cluster, "3x4", 23, "allreduce_hypercube");  // itself order-keeping
    c.combine = k;
    EXPECT_NE(algorithm_rejects(*c.algorithm, c.topology, c.params, k).find("commutative"), std::string::npos) << operator_name(k);
    EXPECT_THROW(run_cpu(c), ConfigError);
  }
}

// Steps 2 (G - 1) + the inter algorithm's at p' = N; every message of the first and last G - 1
// steps stays in its node, every one between them joins two accelerators of one local index.
TEST(Hierarchical, PhasesKeepToTheirLinks) {
  for (const char* inter : {"allreduce_ring", "allreduce_rabenseifner", "allreduce_reduce_broadcast"}) {
    const RunConfig c = hierarchical(TopologyKind::cluster, "5x4", 37, inter);
    const int64_t g = per_node(c);
    AlgoParams between = c.params;
    between.p = nodes(c);
    const int inner = find_algorithm(inter)->rounds(between), rounds = c.algorithm->rounds(c.params);
    ASSERT_EQ(rounds, 2 * (g - 1) + inner) << inter;
    for (int64_t x = 0; x < c.params.p; ++x)
      for (int r = 1; r <= rounds; ++r) {
        StepOps ops;
        algorithm_ops(c.algorithm->id, c.params, x, r, ops);
        ASSERT_FALSE(ops.overflow);
        const bool inside = r <= g - 1 || r > g - 1 + inner;
        for (int i = 0; i < ops.nsend; ++i) {
          const int64_t to = ops.send[i].to;
          if (inside) {
            EXPECT_EQ(to / g, x / g) << inter << " step " << r;
          } else {
            EXPECT_EQ(to % g, x % g) << inter << " step " << r;
            EXPECT_NE(to / g, x / g) << inter << " step " << r;
          }
        }
      }
  }
}

// One accelerator per node: the inter algorithm alone on p = N (the same steps, time and traffic as
// running it directly); one node: the ring reduce-scatter and all-gather of allreduce_ring.
TEST(Hierarchical, OneAcceleratorPerNodeOrOneNode) {
  for (const char* inter : {"allreduce_ring", "allreduce_rabenseifner", "allreduce_hypercube", "allreduce_reduce_broadcast"}) {
    RunConfig h = hierarchical(TopologyKind::cluster, "5x1", 37, inter);
    RunConfig direct = make_config(inter, TopologyKind::cluster, 0, "5x1", 37);
    h.cost = direct.cost = CostParams{3, 0.5, 0, Routing::cut_through};
    const RunResult a = run_cpu(h), b = run_cpu(direct);
    ASSERT_TRUE(a.verified && b.verified) << inter;
    EXPECT_EQ(a.steps, b.steps) << inter;
    EXPECT_DOUBLE_EQ(a.time, b.time) << inter;
    EXPECT_EQ(a.words, b.words) << inter;
    EXPECT_EQ(a.messages, b.messages) << inter;
  }
  for (int64_t m : {3, 37, 64}) {
    RunConfig h = hierarchical(TopologyKind::cluster, "1x8", m, "allreduce_nccl_tree");  // N = 1: no steps between nodes
    RunConfig ring = make_config("allreduce_ring", TopologyKind::cluster, 0, "1x8", m);
    h.cost = ring.cost = CostParams{3, 0.5, 0, Routing::cut_through};
    h.cost.gamma = ring.cost.gamma = 0.25;
    const RunResult a = run_cpu(h), b = run_cpu(ring);
    ASSERT_TRUE(a.verified && b.verified);
    EXPECT_EQ(a.steps, 14);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_DOUBLE_EQ(a.time, b.time) << "m=" << m;
    EXPECT_EQ(a.words, b.words);
  }
}

// The closed form equals the simulated time on the rails wherever allreduce_hierarchical.h says it
// must: every inter algorithm, with gamma, with per-class word times (a spine slower than all: no
// route between accelerators of one local index uses it), with every accelerator on its own NIC
// (uneven slices included) or with m a multiple of N G times enough that no message is empty; and on
// a fat tree of one switch.
TEST(Hierarchical, ClosedFormEqualsTheSimulation) {
  struct Shape {
    TopologyKind kind;
    const char* dims;
    std::vector<int64_t> ms;
  };
  const Shape shapes[] = {{TopologyKind::cluster, "4x8", {3, 37, 64, 1000}},
                          {TopologyKind::cluster, "3x4", {5, 37, 96}},
                          {TopologyKind::cluster, "5x2", {1, 37, 80}},
                          {TopologyKind::cluster, "2x1", {37}},
                          {TopologyKind::cluster, "4x4x2", {4 * 4 * 24}},
                          {TopologyKind::cluster, "2x8x2", {2 * 8 * 24}},
                          {TopologyKind::cluster_fattree, "4x2x2x8", {7, 37, 64}},
                          {TopologyKind::cluster_fattree, "3x4x4x12", {48, 50}}};
  int checked = 0;
  for (const char* inter : {"allreduce_ring", "allreduce_rabenseifner", "allreduce_hypercube", "allreduce_reduce_broadcast",
                            "allreduce_rs_ag", "allreduce_nccl_ring"})
    for (const Shape& s : shapes)
      for (int64_t m : s.ms)
        for (bool classes : {false, true}) {
          RunConfig c = hierarchical(s.kind, s.dims, m, inter, 1, std::string(inter) == "allreduce_nccl_ring" ? 2 : 1);
          if (!algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine).empty()) continue;
          c.cost = CostParams{3, 0.5, 0, Routing::cut_through};
          c.cost.gamma = 0.25;
          if (classes) {
            c.cost.set_class_tw(topology_find_link_class(c.topology, "nvlink"), 0.125);
            c.cost.set_class_tw(topology_find_link_class(c.topology, "pcie"), 0.75);
            const int network = 2;  // rail, or the fat tree's level1
            c.cost.set_class_tw(network, 1.5);
            if (s.kind == TopologyKind::cluster) c.cost.set_class_tw(topology_find_link_class(c.topology, "spine"), 40);
          }
          const RunResult r = run_cpu(c);
          ASSERT_TRUE(r.verified) << inter << " " << s.dims << " m=" << m;
          EXPECT_DOUBLE_EQ(r.time, formula_time(c)) << inter << " " << s.dims << " m=" << m << (classes ? " with classes" : "");
          ++checked;
        }
  EXPECT_GE(checked, 100);
}

// The form written out for the ring between 4 nodes of 8 (p | m): 7 steps of m/8 words each way
// inside the nodes, 3 of m/32 each way between them; NVLink ten times faster than the network.
// The NCCL ring over the same 32 ranks (one channel) has every step cross the network.
TEST(Hierarchical, TheRingBetweenNodesWrittenOut) {
  const int64_t m = 65536;
  RunConfig c = hierarchical(TopologyKind::cluster, "4x8", m, "allreduce_ring");
  c.cost = CostParams{1, 1, 0, Routing::cut_through};
  c.cost.set_class_tw(topology_find_link_class(c.topology, "nvlink"), 0.1);
  const RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  EXPECT_EQ(r.steps, 2 * 7 + 2 * 3);
  const double expect = 7 * (2 * 1 + 2 * 0.1 * (m / 8)) + 3 * (2 * 1 + 2 * 1.0 * (m / 32));
  EXPECT_DOUBLE_EQ(r.time, expect);
  EXPECT_DOUBLE_EQ(formula_time(c), expect);
  RunConfig nccl = make_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "4x8", m);
  nccl.cost = c.cost;
  EXPECT_DOUBLE_EQ(run_cpu(nccl).time, 2 * 31 * (1 + 1.0 * (m / 32)));
  EXPECT_LT(r.time, run_cpu(nccl).time / 5);
  // The lower bound charges the cheapest class (NVLink) for the 2 m (p - 1)/p words of the busiest rank.
  EXPECT_DOUBLE_EQ(lower_bound_time(c), 5 * 1 + 0.1 * 2.0 * m * 31 / 32);
  EXPECT_GE(r.time, lower_bound_time(c));
}

// Under NCCL's protocols every class has a startup of its own: NVLink's inside a node, the network's
// between nodes; the closed form charges each phase its own and meets the simulation.
TEST(Hierarchical, ProtocolStartupsPerPhase) {
  for (Protocol p : {Protocol::simple, Protocol::ll, Protocol::ll128})
    for (const char* inter : {"allreduce_ring", "allreduce_rabenseifner"}) {
      RunConfig c = hierarchical(TopologyKind::cluster, "4x8", 8 * 4 * 16, inter);
      c.cost = CostParams{0.5, 0.01, 0, Routing::cut_through};
      apply_protocol(c, p);
      const RunResult r = run_simulation(c, Backend::cpu);
      ASSERT_TRUE(r.verified);
      EXPECT_DOUBLE_EQ(r.time, formula_time(c)) << protocol_name(p) << " " << inter;
    }
}

// On a fat tree of more levels the G groups' routes may meet above the leaves: the closed form (every
// class one t_w) is then a lower bound of the simulated time.
TEST(Hierarchical, ClosedFormBoundsTheFatTree) {
  for (const char* dims : {"4x4x4x2", "8x2x2x2", "4x8x2x2"})
    for (const char* inter : {"allreduce_ring", "allreduce_rabenseifner"}) {
      RunConfig c = hierarchical(TopologyKind::cluster_fattree, dims, 4096, inter);
      const RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      EXPECT_LE(formula_time(c), r.time) << dims << " " << inter;
    }
}

// What it refuses, each with a line that names the inter algorithm and the reason: a unit that is
// no all-reduce, itself, one written for rings and tori, one with local work and a scratch buffer,
// p' = N not 2^d, slices that are no multiple of N, a unit's own limit on a slice, an id outside the
// registry; and anything off the two clusters.
TEST(Hierarchical, RefusesWhatCannotRunBetweenNodes) {
  struct Refusal {
    const char* inter;
    const char* dims;
    int64_t m;
    int64_t segments;
    const char* says;
  };
  for (const Refusal& e :
       {Refusal{"broadcast_binomial", "4x4", 16, 1, "is no all-reduce"}, Refusal{"allreduce_hierarchical", "4x4", 16, 1, "inside itself"},
        Refusal{"allreduce_swing_latency", "4x4", 16, 1, "it runs on ring, torus"},
        Refusal{"allreduce_dimwise", "4x4", 16, 1, "fully connected"}, Refusal{"allreduce_ring_allgather", "4x4", 16, 1, "local work"},
        Refusal{"allreduce_ring_combining", "4x4", 16, 1, "local work"},
        Refusal{"allreduce_rs_ag", "3x4", 48, 1, "power-of-two number of nodes (N = 3)"},
        Refusal{"allreduce_rs_ag", "4x4", 20, 1, "no multiple of 4"},
        Refusal{"allreduce_nccl_tree", "2x4", 10, 3, "the slice of 2 words"}}) {
    RunConfig c = hierarchical(TopologyKind::cluster, e.dims, e.m, e.inter, 1, e.segments);
    const std::string why = algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine);
    EXPECT_NE(why.find(std::string("--inter ") + e.inter), std::string::npos) << why;
    EXPECT_NE(why.find(e.says), std::string::npos) << e.inter << ": " << why;
    EXPECT_TRUE(std::isnan(c.algorithm->formula(c.params, c.cost)));
    EXPECT_THROW(run_cpu(c), ConfigError);
  }
  RunConfig c = hierarchical(TopologyKind::cluster, "2x2", 4, "allreduce_ring");
  c.params.inter = int16_t(algorithms().size());
  EXPECT_NE(algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine).find("no registered algorithm"), std::string::npos);
  c.params.inter = -1;
  c.params.node_size = 3;  // no cluster has it, but a hand-made AlgoParams may
  EXPECT_NE(algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine).find("to divide p = 4"), std::string::npos);
  const AlgorithmInfo& h = *find_algorithm("allreduce_hierarchical");
  for (TopologyKind k : {TopologyKind::full, TopologyKind::ring, TopologyKind::fattree}) EXPECT_FALSE(h.runs_on(k));
  // The default between nodes is the ring.
  AlgoParams a;
  EXPECT_STREQ(inter_algorithm(a)->name, "allreduce_ring");
}
