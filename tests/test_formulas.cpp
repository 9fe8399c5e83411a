// Simulated time against the closed forms of Grama et al. Chapter 4, with t_h = 0:
//   (4-1) broadcast / reduce        T = (t_s + t_w m) log p
//   (4-2) ring all-to-all broadcast T = (t_s + t_w m)(p - 1)
//   (4-3) mesh all-to-all broadcast T = 2 t_s (sqrt p - 1) + t_w m (p - 1)
//   (4-4) hypercube all-to-all bc.  T = t_s log p + t_w m (p - 1)
//   (4-5) hypercube all-reduce      T = (t_s + t_w m) log p
// and the per-message models of §2.5.1 (cut-through t_s + l t_h + t_w m, store-and-forward
// t_s + l (t_h + t_w m)) on a route of known length.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ppsim/engine.h"
#include "ppsim/report.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

struct Costs {
  double ts, tw;
};
const Costs kCosts[] = {{1, 1}, {100, 1}, {10, 0.5}, {0, 3}};
const int64_t kMs[] = {1, 7, 64};

double simulate(RunConfig c, Costs k) {
  c.cost.ts = k.ts;
  c.cost.tw = k.tw;
  c.cost.th = 0;
  RunResult r = run_cpu(c);
  EXPECT_TRUE(r.verified);
  EXPECT_DOUBLE_EQ(formula_time(c), r.time) << "reported formula_time";
  return r.time;
}

}  // namespace

TEST(Formula, Eq4_1_BroadcastAndReduce) {
  for (int64_t p : {2, 8, 64, 256})
    for (int64_t m : kMs)
      for (Costs k : kCosts) {
        double lg = std::log2(double(p));
        double expected = (k.ts + k.tw * m) * lg;
        for (const char* algo : {"broadcast_hypercube", "reduce_hypercube"})
          EXPECT_DOUBLE_EQ(simulate(make_config(algo, TopologyKind::hypercube, p, "", m, OperatorKind::sum, p - 1), k), expected)
              << algo << p;
        for (const char* algo : {"broadcast_binomial", "reduce_binomial"})
          EXPECT_DOUBLE_EQ(simulate(make_config(algo, TopologyKind::ring, p, "", m), k), expected) << algo << p;
        EXPECT_DOUBLE_EQ(simulate(make_config("broadcast_hypercube", TopologyKind::tree, p, "", m), k), expected);
        int64_t side = int64_t(std::llround(std::sqrt(double(p))));
        if (side * side == p) {
          for (const char* algo : {"broadcast_mesh", "reduce_mesh"})
            EXPECT_DOUBLE_EQ(simulate(make_config(algo, TopologyKind::mesh, p, "", m), k), expected) << algo << p;
        }
      }
  // Any p (exercise 4.1): ceil(log2 p) steps of t_s + t_w m.
  for (int64_t p : {3, 5, 13, 100})
    EXPECT_DOUBLE_EQ(simulate(make_config("broadcast_binomial", TopologyKind::ring, p, "", 4), {5, 2}),
                     (5 + 2 * 4) * std::ceil(std::log2(double(p))));
}

TEST(Formula, Eq4_2_RingAllgather) {
  for (int64_t p : {2, 5, 8, 13, 64})
    for (int64_t m : kMs)
      for (Costs k : kCosts)
        EXPECT_DOUBLE_EQ(simulate(make_config("allgather_ring", TopologyKind::ring, p, "", m), k), (k.ts + k.tw * m) * (p - 1));
}

TEST(Formula, Eq4_3_MeshAllgather) {
  for (int64_t side : {2, 3, 4, 8})
    for (int64_t m : kMs)
      for (Costs k : kCosts) {
        int64_t p = side * side;
        double expected = 2 * k.ts * (side - 1) + k.tw * m * (p - 1);
        EXPECT_DOUBLE_EQ(simulate(make_config("allgather_mesh", TopologyKind::torus, p, "", m), k), expected) << side;
      }
}

TEST(Formula, Eq4_4_HypercubeAllgather) {
  for (int64_t p : {2, 8, 32, 128})
    for (int64_t m : kMs)
      for (Costs k : kCosts)
        EXPECT_DOUBLE_EQ(simulate(make_config("allgather_hypercube", TopologyKind::hypercube, p, "", m), k),
                         k.ts * std::log2(double(p)) + k.tw * m * (p - 1));
}

TEST(Formula, Eq4_5_HypercubeAllreduce) {
  for (int64_t p : {2, 8, 64, 1024})
    for (int64_t m : kMs)
      for (Costs k : kCosts)
        EXPECT_DOUBLE_EQ(simulate(make_config("allreduce_hypercube", TopologyKind::hypercube, p, "", m), k),
                         (k.ts + k.tw * m) * std::log2(double(p)));
}

// Fig. 4-2 on an 8-node ring: steps move the message 4, 2 and 1 links.
TEST(Formula, CutThroughAndStoreAndForwardPerHop) {
  const double ts = 10, tw = 2, th = 3;
  const int64_t m = 5;
  RunConfig c = make_config("broadcast_binomial", TopologyKind::ring, 8, "", m);
  c.cost = CostParams{ts, tw, th, Routing::cut_through};
  double ct = 0, sf = 0;
  for (int l : {4, 2, 1}) {
    ct += ts + l * th + tw * m;
    sf += ts + l * (th + tw * m);
  }
  EXPECT_DOUBLE_EQ(run_cpu(c).time, ct);
  c.cost.routing = Routing::store_and_forward;
  EXPECT_DOUBLE_EQ(run_cpu(c).time, sf);
}

namespace {

// A configuration of algorithm a at (about) p processors on a topology it runs on (full where it
// may, else the first it runs on), with the ports it needs; false where there is none.
bool natural_config(const AlgorithmInfo& a, int64_t p, RunConfig& c) {
  TopologyKind kind = TopologyKind::full;
  if (!a.runs_on(kind))
    for (int k = 0; k < kTopologyCount; ++k)
      if (a.runs_on(TopologyKind(k))) {
        kind = TopologyKind(k);
        break;
      }
  if (kind == TopologyKind::mesh || kind == TopologyKind::torus) p = p <= 9 ? 9 : 16;
  if (kind == TopologyKind::bintree) p = p <= 7 ? 7 : 15;
  if (a.needs_pow2() && !is_pow2(p)) return false;
  try {
    c = make_config(a.name, kind, p, "", a.needs_m_divisible_by_p() ? 2 * p : 6);
  } catch (const std::invalid_argument&) {
    return false;  // the topology has no such size (a hypercube of 13)
  }
  if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
  if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
  c.cost = CostParams{3, 0.5, 0, Routing::cut_through};
  return algorithm_rejects(a, c.topology, c.params, c.combine).empty();
}

}  // namespace

// The gamma term (--gamma, time per combined word): wherever an algorithm's closed form gives its
// simulated time with gamma = 0, it must still give it with gamma > 0 — so every formula of an
// algorithm that combines carries its gamma term, and one that only copies is unchanged.
TEST(Formula, EveryClosedFormCarriesItsGammaTerm) {
  int checked = 0;
  for (const AlgorithmInfo& a : algorithms())
    for (int64_t p : {8, 13}) {
      RunConfig c;
      if (!natural_config(a, p, c)) continue;
      const RunResult plain = run_cpu(c);
      ASSERT_TRUE(plain.verified) << a.name;
      if (!(formula_time(c) == plain.time)) continue;  // no closed form here (congestion, postal, ...)
      c.cost.gamma = 0.25;
      const RunResult with_gamma = run_cpu(c);
      EXPECT_DOUBLE_EQ(formula_time(c), with_gamma.time) << a.name << " on " << topology_name(c.topology.kind) << " p=" << c.params.p;
      ++checked;
    }
  EXPECT_GT(checked, 40);
}

// No algorithm beats the lower bound of its operation (bounds.h), with or without gamma.
TEST(LowerBound, NoAlgorithmBeatsIt) {
  int checked = 0;
  for (const AlgorithmInfo& a : algorithms())
    for (int64_t p : {2, 3, 8, 13, 64})
      for (double gamma : {0.0, 0.25}) {
        RunConfig c;
        if (!natural_config(a, p, c)) continue;
        c.cost.gamma = gamma;
        const double bound = lower_bound_time(c);
        if (std::isnan(bound)) continue;
        const RunResult r = run_cpu(c);
        ASSERT_TRUE(r.verified) << a.name;
        EXPECT_GE(r.time, bound) << a.name << " on " << topology_name(c.topology.kind) << " p=" << c.params.p << " gamma " << gamma;
        ++checked;
      }
  EXPECT_GT(checked, 200);
}

// algbw and busbw as nccl-tests defines them: n / time, times 2(p - 1)/p for all-reduce, (p - 1)/p
// for the operations on p blocks (n = p m), 1 for broadcast and reduce (n = m).
TEST(Bandwidth, NcclTestsBusFactors) {
  const int64_t p = 8, m = 16;
  struct Expect {
    const char* algo;
    double n, factor;
  };
  for (Expect e :
       {Expect{"allreduce_hypercube", double(m), 2.0 * (p - 1) / p}, Expect{"allgather_ring", double(p * m), double(p - 1) / p},
        Expect{"reduce_scatter_ring", double(p * m), double(p - 1) / p}, Expect{"alltoall_ring", double(p * m), double(p - 1) / p},
        Expect{"broadcast_binomial", double(m), 1.0}, Expect{"reduce_binomial", double(m), 1.0}}) {
    RunConfig c = make_config(e.algo, TopologyKind::ring, p, "", m);
    const RunResult r = run_cpu(c);
    ASSERT_TRUE(r.verified) << e.algo;
    const Bandwidth bw = bandwidth(c, r.time);
    EXPECT_DOUBLE_EQ(bw.words, e.n) << e.algo;
    EXPECT_DOUBLE_EQ(bw.algbw, e.n / r.time) << e.algo;
    EXPECT_DOUBLE_EQ(bw.busbw, e.n / r.time * e.factor) << e.algo;
  }
  // One processor takes no time: no bandwidth to report.
  const RunConfig one = make_config("allreduce_hypercube", TopologyKind::full, 1, "", m);
  EXPECT_TRUE(std::isnan(bandwidth(one, run_cpu(one).time).busbw));
}
