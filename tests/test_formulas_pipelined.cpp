// Simulated time against the closed forms of the pipelined and k-nomial trees, on a fully
// connected machine (one link per pair: no congestion) with t_h = 0, α = t_s, β = t_w, n = m words,
// S segments (r = m mod S segments of ceil(m/S) words first, the others floor(m/S)):
//   broadcast_chain               (p - 2 + S)(α + β n/S)
//   broadcast_bintree_pipelined   (2(S - 1) + D)(α + β n/S), D = max over heap ranks of depth + right turns
//   broadcast_double_binary_tree  (ceil(S/2) + floor(log2(p - 1)))(α + β n/S), 2 ports
//   broadcast_knomial             ((d - 1) ceil((k-1)/K) + ceil(c_1/K))(α + β n), d = ceil(log_k p)
//   reduce_knomial                the same steps × (α + β n + γ n)
// with the uneven-segment split written out below. Every case runs on the CPU backend and on the
// device rounds executed on the host, which must agree on the time to the bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/broadcast_double_binary_tree.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "ppsim/report.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

// Binary fractions only: the simulated sums and the formulas are then exact.
struct Costs {
  double ts, tw, gamma;
};
const Costs kCosts[] = {{1, 1, 0}, {100, 1, 0.25}, {10, 0.5, 2}, {0, 3, 1}};
const int64_t kPs[] = {2, 3, 5, 6, 7, 12, 13, 100};

std::vector<int64_t> roots_of(int64_t p) { return p == 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, p - 1, p / 2}; }

// Runs c on the CPU and on the device rounds on the host under each cost; checks both verify, agree
// on steps and time, and report the unit's formula as the time. Returns the steps.
int64_t simulate(RunConfig c, const std::function<double(const Costs&)>& expected, const std::string& what) {
  int64_t steps = -1;
  for (const Costs& k : kCosts) {
    c.cost = CostParams{k.ts, k.tw, 0, Routing::cut_through, k.gamma};
    const RunResult cpu = run_cpu(c);
    RunConfig d = c;
    d.keep_buffers = false;
    const RunResult dev = run_device_rounds_on_host(d);
    EXPECT_TRUE(cpu.verified) << what;
    EXPECT_TRUE(dev.verified) << what;
    EXPECT_EQ(cpu.steps, dev.steps) << what;
    EXPECT_EQ(cpu.time, dev.time) << what;
    EXPECT_EQ(cpu.steps, c.algorithm->rounds(c.params)) << what;
    EXPECT_DOUBLE_EQ(cpu.time, expected(k)) << what << " ts " << k.ts << " tw " << k.tw << " gamma " << k.gamma;
    EXPECT_DOUBLE_EQ(formula_time(c), cpu.time) << what << " (the unit's formula)";
    steps = cpu.steps;
  }
  return steps;
}

RunConfig pipelined(const std::string& algo, int64_t p, int64_t m, int64_t segments, int64_t root, OperatorKind op = OperatorKind::sum) {
  RunConfig c = make_config(algo, TopologyKind::full, p, "", m, op, root);
  c.params.segments = segments;
  return c;
}

std::string label(const std::string& algo, int64_t p, int64_t m, int64_t s, int64_t root) {
  return algo + " p=" + std::to_string(p) + " m=" + std::to_string(m) + " S=" + std::to_string(s) + " root " + std::to_string(root);
}

// N steps of which the last `small` carry floor(m/S)-word segments only, the others a ceil(m/S) one.
double segmented(const Costs& k, int64_t m, int64_t s, int64_t steps, int64_t small) {
  const int64_t lo = m / s, hi = (m + s - 1) / s;
  if (lo == hi) return double(steps) * (k.ts + k.tw * double(m) / double(s));
  return double(steps - small) * (k.ts + k.tw * double(hi)) + double(small) * (k.ts + k.tw * double(lo));
}

const int64_t kMs[] = {1, 7, 12, 64};
const int64_t kSegments[] = {1, 2, 3, 4, 5, 8};

}  // namespace

// Chain: rank i receives segment s in step s + i; the last rank gets the last segment in step
// p - 2 + S. Large segments lead, so the first p - 2 + r steps carry ceil(m/S) words.
TEST(FormulaPipelined, Chain) {
  for (int64_t p : kPs)
    for (int64_t m : kMs)
      for (int64_t s : kSegments) {
        if (s > m) continue;
        const int64_t r = m % s;
        for (int64_t root : roots_of(p)) {
          auto expected = [&](const Costs& k) { return segmented(k, m, s, p - 2 + s, s - r); };
          EXPECT_EQ(simulate(pipelined("broadcast_chain", p, m, s, root), expected, label("chain", p, m, s, root)), p - 2 + s);
        }
      }
  // Single-port suffices (one send and one receive per step); S = 1 is the plain chain, (p - 1)(α + β n).
  RunConfig one = pipelined("broadcast_chain", 9, 5, 1, 4);
  EXPECT_DOUBLE_EQ(run_cpu(one).time, 8 * (1 + 5.0));
  // On a ring the chain's messages each use their own link: the same time as on the full machine.
  RunConfig ring = make_config("broadcast_chain", TopologyKind::ring, 12, "", 12, OperatorKind::sum, 5);
  ring.params.segments = 4;
  EXPECT_DOUBLE_EQ(run_cpu(ring).time, (12 - 2 + 4) * (1 + 12.0 / 4));
}

namespace {
// D from the definition: the largest, over heap ranks 1..p-1, of the steps a segment needs to get
// there when every node serves its left child one step and its right child two steps after it
// received (walk up to the root: a left child, odd rank, is 1 step, a right child 2).
int64_t heap_d(int64_t p) {
  int64_t d = 0;
  for (int64_t i = 1; i < p; ++i) {
    int64_t lag = 0;
    for (int64_t x = i; x > 0; x = (x - 1) / 2) lag += x % 2 == 1 ? 1 : 2;
    d = std::max(d, lag);
  }
  return d;
}
}  // namespace

// Binary tree, heap numbering, single-port: a node passes a segment on every two steps, the last
// one reaches the node of largest lag D in step 2(S - 1) + D; steps after the last large segment's
// arrival (2(r - 1) + D) carry small ones only. p = 2 is the chain.
TEST(FormulaPipelined, BinaryTree) {
  for (int64_t h = 2; h <= 6; ++h) EXPECT_EQ(heap_d((int64_t{1} << h) - 1), 2 * (h - 1)) << "complete tree of height " << h;
  for (int64_t p : kPs)
    for (int64_t m : kMs)
      for (int64_t s : kSegments) {
        if (s > m) continue;
        const int64_t r = m % s, steps = p == 2 ? s : 2 * (s - 1) + heap_d(p), small = p == 2 ? s - r : 2 * (s - r);
        for (int64_t root : roots_of(p)) {
          auto expected = [&](const Costs& k) { return segmented(k, m, s, steps, small); };
          EXPECT_EQ(simulate(pipelined("broadcast_bintree_pipelined", p, m, s, root), expected, label("bintree", p, m, s, root)), steps);
        }
      }
  // A larger tree, one size: p = 1000, S = 16, m = 64.
  auto big = [](const Costs& k) { return (2 * 15 + heap_d(1000)) * (k.ts + k.tw * 4); };
  simulate(pipelined("broadcast_bintree_pipelined", 1000, 64, 16, 999), big, "bintree p=1000");
}

// Double binary tree under 2 ports: each tree carries ceil(S/2) or floor(S/2) segments at one per
// step, the root feeding both tops at once; the trees are floor(log2(p - 1)) + 1 links deep.
TEST(FormulaPipelined, DoubleBinaryTree) {
  for (int64_t p : kPs)
    for (int64_t m : kMs)
      for (int64_t s : kSegments) {
        if (s > m) continue;
        const int64_t r = m % s, half = (s + 1) / 2;
        const int64_t steps = p == 2 ? s : half + floor_log2(p - 1), small = p == 2 ? s - r : half - (r + 1) / 2;
        for (int64_t root : roots_of(p)) {
          RunConfig c = pipelined("broadcast_double_binary_tree", p, m, s, root);
          c.ports = PortSpec{PortModel::kport, 2};
          c.params.kports = 2;
          auto expected = [&](const Costs& k) { return segmented(k, m, s, steps, small); };
          EXPECT_EQ(simulate(c, expected, label("double tree", p, m, s, root)), steps);
        }
      }
  // All-port on the full machine allows it too; single-port does not (the root sends to both tops).
  RunConfig c = pipelined("broadcast_double_binary_tree", 13, 8, 4, 3);
  EXPECT_THROW(run_cpu(c), ScheduleError);
  c.ports = PortSpec{PortModel::all, kMaxOps};
  EXPECT_DOUBLE_EQ(run_cpu(c).time, (2 + 3) * (1 + 2.0));
}

// The trees themselves: parents and children agree, both trees span 1..q, and every processor is
// a leaf in at least one of them (interior nodes of A are leaves of B).
TEST(FormulaPipelined, DoubleBinaryTreeShape) {
  for (int64_t q = 1; q <= 300; ++q) {
    const InorderTree t{q};
    int64_t interior_in_both = 0;
    for (int64_t x = 1; x <= q; ++x) {
      for (int64_t child : {t.left(x), t.right(x)})
        if (child) {
          EXPECT_TRUE(child >= 1 && child <= q);
          EXPECT_EQ(t.parent(child), x) << "q " << q << " child " << child;
        }
      EXPECT_LE(t.depth(x), floor_log2(q) + 1);
      const int64_t y = tree_b_position(q, x);
      EXPECT_EQ(tree_b_label(q, y), x);
      const bool inner_a = t.left(x) || t.right(x), inner_b = t.left(y) || t.right(y);
      interior_in_both += inner_a && inner_b;
    }
    EXPECT_EQ(interior_in_both, 0) << "q " << q;
  }
}

namespace {
// ceil(log_k p) rounds; round 1 serves c_1 = min(k - 1, floor((p - 1)/k^(d-1))) children, the others
// k - 1, K per step.
int64_t knomial_expected_steps(int64_t p, int64_t k, int64_t ports) {
  int64_t d = 0, top = 1;
  while (top < p) top *= k, ++d;
  if (d == 0) return 0;
  const int64_t first = std::min(k - 1, (p - 1) / (top / k));
  return (d - 1) * ((k - 2 + ports) / ports) + (first + ports - 1) / ports;
}

RunConfig knomial(const std::string& algo, int64_t p, int64_t m, int64_t k, int64_t ports, int64_t root, OperatorKind op) {
  RunConfig c = make_config(algo, TopologyKind::full, p, "", m, op, root);
  c.params.radix = int32_t(k);
  if (ports > 1) c.ports = PortSpec{PortModel::kport, int32_t(ports)};
  c.params.kports = int32_t(ports);
  return c;
}
}  // namespace

TEST(FormulaPipelined, Knomial) {
  for (int64_t p : kPs)
    for (int64_t k : {2, 3, 4, 5, 8})
      for (int64_t ports : {int64_t{1}, int64_t{2}, k - 1, int64_t{7}})
        for (int64_t m : {1, 7, 64}) {
          const int64_t steps = knomial_expected_steps(p, k, ports);
          for (int64_t root : roots_of(p)) {
            const std::string what = " p=" + std::to_string(p) + " k=" + std::to_string(k) + " K=" + std::to_string(ports) +
                                     " m=" + std::to_string(m) + " root " + std::to_string(root);
            auto bcast = [&](const Costs& c) { return double(steps) * (c.ts + c.tw * double(m)); };
            auto red = [&](const Costs& c) { return double(steps) * (c.ts + (c.tw + c.gamma) * double(m)); };
            EXPECT_EQ(simulate(knomial("broadcast_knomial", p, m, k, ports, root, OperatorKind::sum), bcast, "broadcast_knomial" + what),
                      steps);
            EXPECT_EQ(simulate(knomial("reduce_knomial", p, m, k, ports, root, OperatorKind::sum), red, "reduce_knomial" + what), steps);
            if (root == 0)  // rank order: a non-commutative operator folds correctly at root 0
              for (OperatorKind op : {OperatorKind::affine, OperatorKind::interval})
                simulate(knomial("reduce_knomial", p, m, k, ports, 0, op), red, "reduce_knomial affine/interval" + what);
          }
        }
}

// With K >= k - 1 every round is one step: ceil(log_k p)(α + β n); and k = 2 is the binomial tree.
TEST(FormulaPipelined, KnomialOneStepPerRoundAndBinomial) {
  for (int64_t p : {3, 5, 9, 13, 27, 28, 100, 1000})
    for (int64_t k : {2, 3, 4, 10}) {
      int64_t d = 0;
      for (int64_t top = 1; top < p; top *= k) ++d;
      RunConfig c = knomial("broadcast_knomial", p, 3, k, k - 1, p / 3, OperatorKind::sum);
      EXPECT_EQ(run_cpu(c).steps, d) << p << " " << k;
      EXPECT_DOUBLE_EQ(run_cpu(c).time, double(d) * (1 + 3)) << p << " " << k;
    }
  for (int64_t p : kPs)
    for (Costs k : kCosts) {
      const CostParams cost{k.ts, k.tw, 0, Routing::cut_through, k.gamma};
      for (auto [ours, binomial] : {std::pair{"broadcast_knomial", "broadcast_binomial"}, std::pair{"reduce_knomial", "reduce_binomial"}}) {
        RunConfig a = make_config(ours, TopologyKind::ring, p, "", 5, OperatorKind::interval, 0),
                  b = make_config(binomial, TopologyKind::ring, p, "", 5, OperatorKind::interval, 0);
        a.cost = b.cost = cost;
        const RunResult ra = run_cpu(a), rb = run_cpu(b);
        EXPECT_TRUE(ra.verified);
        EXPECT_EQ(ra.steps, rb.steps) << ours << " p " << p;
        EXPECT_DOUBLE_EQ(ra.time, rb.time) << ours << " p " << p;
      }
    }
}

// The limits: at least one word per segment, a radix the StepOps can hold, root 0 for a
// non-commutative k-nomial reduction.
TEST(FormulaPipelined, Refusals) {
  RunConfig c = pipelined("broadcast_chain", 8, 3, 4, 0);
  EXPECT_THROW(run_cpu(c), ConfigError);
  for (const char* algo : {"broadcast_bintree_pipelined", "broadcast_double_binary_tree"}) {
    c = pipelined(algo, 8, 3, 4, 0);
    EXPECT_THROW(run_cpu(c), ConfigError) << algo;
  }
  c = knomial("broadcast_knomial", 8, 3, 40, 1, 0, OperatorKind::sum);
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = knomial("reduce_knomial", 8, 3, 3, 1, 2, OperatorKind::affine);
  EXPECT_THROW(run_cpu(c), ConfigError);
}

// Away from the full machine the times carry congestion and hops, so only the results and the
// agreement of the two backends are checked: S = 3 segments, radix 3, under 2 ports.
TEST(FormulaPipelined, OtherTopologiesVerifyOnBothBackends) {
  struct Machine {
    TopologyKind kind;
    int64_t p;
    const char* dims;
  };
  const Machine machines[] = {{TopologyKind::ring, 13, ""},      {TopologyKind::linear, 12, ""}, {TopologyKind::mesh, 0, "3x4"},
                              {TopologyKind::hypercube, 16, ""}, {TopologyKind::star, 7, ""},    {TopologyKind::bintree, 15, ""}};
  for (const Machine& mc : machines)
    for (const char* algo :
         {"broadcast_chain", "broadcast_bintree_pipelined", "broadcast_double_binary_tree", "broadcast_knomial", "reduce_knomial"}) {
      RunConfig c = make_config(algo, mc.kind, mc.p, mc.dims, 7, OperatorKind::interval, 0);
      c.params.segments = 3;
      c.params.radix = 3;
      c.params.kports = 2;
      c.ports = PortSpec{PortModel::kport, 2};
      c.cost.th = 0.5;
      for (int64_t root : {int64_t{0}, c.params.p - 1}) {
        c.params.root = root;
        if (root != 0) c.combine = OperatorKind::sum;
        const RunResult cpu = run_cpu(c);
        RunConfig d = c;
        d.keep_buffers = false;
        const RunResult dev = run_device_rounds_on_host(d);
        EXPECT_TRUE(cpu.verified) << algo << " on " << topology_name(mc.kind) << " root " << root;
        EXPECT_TRUE(dev.verified) << algo << " on " << topology_name(mc.kind) << " root " << root;
        EXPECT_EQ(cpu.time, dev.time) << algo << " on " << topology_name(mc.kind);
        EXPECT_EQ(cpu.steps, c.algorithm->rounds(c.params)) << algo;
      }
    }
}
