// Chapter 4 of Grama et al.: simulated time against each algorithm's closed form with
// t_h = 0 (eqs. 4-6 .. 4-14, the mesh shift bound), the congestion claims of §4.5-§4.6, Table 4-1
// for the hypercube, and the lower bounds reported beside the simulated time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
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
const Costs kCosts[] = {{1, 1}, {100, 1}, {10, 0.5}};

double simulate(RunConfig c, Costs k) {
  c.cost = CostParams{k.ts, k.tw, 0, Routing::cut_through};
  RunResult r = run_cpu(c);
  EXPECT_TRUE(r.verified) << c.algorithm->name;
  EXPECT_DOUBLE_EQ(formula_time(c), r.time) << c.algorithm->name << " reported formula";
  double lb = lower_bound_time(c);
  if (!std::isnan(lb)) {
    EXPECT_LE(lb, r.time + 1e-9) << c.algorithm->name << " beats its lower bound";
  }
  return r.time;
}

RunConfig cfg(const char* algo, TopologyKind kind, int64_t p, int64_t m, const std::string& dims = "") {
  return make_config(algo, kind, dims.empty() ? p : 0, dims, m);
}

}  // namespace

TEST(TextbookClaims, Eq4_6_ScatterAndGather) {
  for (int64_t p : {2, 8, 64})
    for (int64_t m : {1, 5})
      for (Costs k : kCosts) {
        double lg = std::log2(double(p)), expected = k.ts * lg + k.tw * m * (p - 1);
        for (const char* algo : {"scatter_binomial", "gather_binomial"}) {
          RunConfig c = cfg(algo, TopologyKind::hypercube, p, m);
          c.params.root = p / 2;
          EXPECT_DOUBLE_EQ(simulate(c, k), expected) << algo;
          EXPECT_DOUBLE_EQ(simulate(cfg(algo, TopologyKind::ring, p, m), k), expected) << algo << " on a ring (exercise 4.7)";
          if (p == 64) {  // exercise 4.7 on meshes: column phase, then row phase, congestion-free
            for (const char* dims : {"8x8", "4x16"}) {
              RunConfig mesh = cfg(algo, TopologyKind::mesh, 0, m, dims);
              EXPECT_DOUBLE_EQ(simulate(mesh, k), expected) << algo << " on a " << dims << " mesh";
              EXPECT_EQ(run_cpu(mesh).max_link_load, 1);
            }
          }
        }
      }
}

TEST(TextbookClaims, Eq4_7_4_9_4_10_AllToAllPersonalized) {
  for (int64_t p : {2, 4, 8, 32})
    for (int64_t m : {1, 3})
      for (Costs k : kCosts) {
        double lg = std::log2(double(p));
        EXPECT_DOUBLE_EQ(simulate(cfg("alltoall_ring", TopologyKind::ring, p, m), k), (k.ts + k.tw * m * p / 2.0) * (p - 1));
        EXPECT_DOUBLE_EQ(simulate(cfg("alltoall_hypercube", TopologyKind::hypercube, p, m), k), (k.ts + k.tw * m * p / 2.0) * lg);
        EXPECT_DOUBLE_EQ(simulate(cfg("alltoall_xor_ecube", TopologyKind::hypercube, p, m), k), (k.ts + k.tw * m) * (p - 1));
      }
}

// Alg. 4-10 with E-cube routing: no link of the hypercube carries two messages in any step.
TEST(TextbookClaims, XorExchangeIsCongestionFreeWithEcube) {
  for (int64_t p : {4, 16, 128}) {
    RunResult r = run_cpu(cfg("alltoall_xor_ecube", TopologyKind::hypercube, p, 2));
    ASSERT_TRUE(r.verified);
    for (const auto& s : r.per_step) EXPECT_EQ(s.max_link_load, 1) << "p=" << p << " step " << s.step;
  }
}

// Exercise 4.22: with E-cube routing every circular q-shift is congestion-free on a hypercube, and
// its longest path has log p - gamma(q) links (exercise 4.23).
TEST(TextbookClaims, Eq4_12_EcubeShiftIsCongestionFree) {
  for (int64_t p : {8, 64})
    for (int64_t q = 1; q < p; ++q) {
      RunConfig c = cfg("shift_ecube", TopologyKind::hypercube, p, 4);
      c.params.shift = q;
      c.cost = CostParams{7, 2, 0, Routing::cut_through};
      RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      EXPECT_EQ(r.max_link_load, 1) << "q=" << q;
      EXPECT_DOUBLE_EQ(r.time, 7 + 2 * 4.0);
      int gamma = 0;
      while (((q >> gamma) & 1) == 0) ++gamma;
      int64_t longest = 0;
      for (int64_t i = 0; i < p; ++i) longest = std::max<int64_t>(longest, __builtin_popcountll(uint64_t(i ^ ((i + q) % p))));
      EXPECT_EQ(longest, int64_t(std::log2(double(p))) - gamma) << "q=" << q;
    }
}

TEST(TextbookClaims, RingAndMeshShift) {
  for (int64_t p : {5, 8, 13})
    for (int64_t q = 0; q < 2 * p; ++q) {
      RunConfig c = cfg("shift_ring", TopologyKind::ring, p, 2);
      c.params.shift = q;
      int64_t qq = q % p;
      EXPECT_DOUBLE_EQ(simulate(c, {3, 1}), (3 + 2.0) * double(std::min(qq, p - qq))) << "p=" << p << " q=" << q;
    }
  // Fig. 4-22: a 5-shift on a 4x4 mesh is one row step, one compensating column step, one column step.
  RunConfig fig = cfg("shift_mesh", TopologyKind::torus, 16, 1, "4x4");
  fig.params.shift = 5;
  EXPECT_EQ(run_cpu(fig).steps, 3);
  // The bound (t_s + t_w m)(sqrt p + 1) for every q on square tori.
  for (int64_t side : {3, 4, 5, 8})
    for (int64_t q = 0; q < side * side; ++q) {
      RunConfig c = cfg("shift_mesh", TopologyKind::torus, side * side, 2, std::to_string(side) + "x" + std::to_string(side));
      c.params.shift = q;
      double t = simulate(c, {10, 1});
      EXPECT_LE(t, (10 + 2.0) * double(side + 1)) << "side " << side << " q=" << q;
    }
}

TEST(TextbookClaims, ReduceScatterAndAllreduceForms) {
  for (int64_t p : {2, 8, 32})
    for (Costs k : kCosts) {
      const int64_t m = 2 * p;  // splittable into p parts
      double lg = std::log2(double(p));
      EXPECT_DOUBLE_EQ(simulate(cfg("reduce_scatter_hypercube", TopologyKind::hypercube, p, m), k), k.ts * lg + k.tw * m * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("reduce_scatter_ring", TopologyKind::ring, p, m), k), (k.ts + k.tw * m) * (p - 1));
      // eqs. 4-13, 4-14 (message splitting): 2 (t_s log p + t_w (m/p)(p - 1)).
      double split = 2 * (k.ts * lg + k.tw * double(m / p) * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("broadcast_scatter_allgather", TopologyKind::hypercube, p, m), k), split);
      EXPECT_DOUBLE_EQ(simulate(cfg("reduce_rs_gather", TopologyKind::hypercube, p, m), k), split);
      EXPECT_DOUBLE_EQ(simulate(cfg("allreduce_rs_ag", TopologyKind::hypercube, p, m), k), split);
      // Exercise 4.6 on a ring: (i) and (iii) (t_s + t_w m)(p - 1), (ii) 2 (t_s + t_w m) log p.
      EXPECT_DOUBLE_EQ(simulate(cfg("allreduce_ring_allgather", TopologyKind::ring, p, m), k), (k.ts + k.tw * m) * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("allreduce_ring_combining", TopologyKind::ring, p, m), k), (k.ts + k.tw * m) * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("allreduce_reduce_broadcast", TopologyKind::ring, p, m), k), 2 * (k.ts + k.tw * m) * lg);
    }
  for (int64_t side : {2, 4, 8})
    EXPECT_DOUBLE_EQ(simulate(cfg("reduce_scatter_mesh", TopologyKind::torus, side * side, 3), {10, 1}),
                     2 * 10.0 * (side - 1) + 3.0 * (side * side - 1));
}

// Table 4-1 (hypercube): for each operation the best registered algorithm takes the row's time.
// The splitting rows use the exact form 2 (t_s log p + t_w m (p-1)/p) that the table rounds to
// 2 (t_s log p + t_w m).
TEST(TextbookClaims, Table4_1Hypercube) {
  const int64_t p = 64;
  const double lg = 6;
  for (int64_t m : {64, 640, 6400})
    for (Costs k : kCosts) {
      auto best = [&](std::vector<const char*> algos) {
        double t = 1e300;
        for (const char* a : algos) t = std::min(t, simulate(cfg(a, TopologyKind::hypercube, p, m), k));
        return t;
      };
      double split = 2 * (k.ts * lg + k.tw * m * double(p - 1) / double(p));
      EXPECT_DOUBLE_EQ(best({"broadcast_hypercube", "broadcast_scatter_allgather"}), std::min((k.ts + k.tw * m) * lg, split));
      EXPECT_DOUBLE_EQ(best({"reduce_hypercube", "reduce_rs_gather"}), std::min((k.ts + k.tw * m) * lg, split));
      EXPECT_DOUBLE_EQ(best({"allreduce_hypercube", "allreduce_rs_ag"}), std::min((k.ts + k.tw * m) * lg, split));
      EXPECT_DOUBLE_EQ(best({"allgather_hypercube"}), k.ts * lg + k.tw * m * (p - 1));
      EXPECT_DOUBLE_EQ(best({"reduce_scatter_hypercube"}), k.ts * lg + k.tw * m * (p - 1));
      EXPECT_DOUBLE_EQ(best({"scatter_binomial"}), k.ts * lg + k.tw * m * (p - 1));
      EXPECT_DOUBLE_EQ(best({"gather_binomial"}), k.ts * lg + k.tw * m * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("alltoall_xor_ecube", TopologyKind::hypercube, p, m), k), (k.ts + k.tw * m) * (p - 1));
      EXPECT_DOUBLE_EQ(simulate(cfg("shift_ecube", TopologyKind::hypercube, p, m), k), k.ts + k.tw * m);
    }
}

// bounds.h: t_s ceil(log_{k+1} p) for the steps knowledge needs, plus t_w over the ports for the words
// the busiest processor must move (and gamma for what it must combine).
TEST(TextbookClaims, LowerBoundsAreReported) {
  const double lg16 = 4;  // ceil(log2 16): single-port, t_s = 1
  RunConfig ag = cfg("allgather_ring", TopologyKind::ring, 16, 3);
  ag.cost.tw = 2;
  EXPECT_DOUBLE_EQ(lower_bound_time(ag), lg16 + 2.0 * 3 * 15);  // (p - 1) m words reach each processor
  ag.ports = PortSpec{PortModel::kport, 3};
  EXPECT_DOUBLE_EQ(lower_bound_time(ag), 2 + 2.0 * 3 * 15 / 3);  // ceil(log4 16) = 2 steps, 3 ports
  // All-to-all: the larger of (p - 1) m words per processor and the bisection bound (p/2)^2 m / w.
  RunConfig a2a = cfg("alltoall_xor_ecube", TopologyKind::hypercube, 16, 3);
  EXPECT_DOUBLE_EQ(lower_bound_time(a2a), lg16 + std::max(3.0 * 15, 3.0 * 8 * 8 / 8));  // bisection width p/2 = 8
  RunConfig ring = cfg("alltoall_ring", TopologyKind::ring, 16, 3);
  EXPECT_DOUBLE_EQ(lower_bound_time(ring), lg16 + std::max(3.0 * 15, 3.0 * 8 * 8 / 2));  // a ring's bisection is 2 links
  // Broadcast: ceil(log2 p) steps and m words into every processor.
  EXPECT_DOUBLE_EQ(lower_bound_time(cfg("broadcast_binomial", TopologyKind::ring, 16, 3)), lg16 + 3);
  // All-reduce (Chan et al. 2007): 2 m (p - 1)/p words and m (p - 1)/p combined words.
  RunConfig ar = cfg("allreduce_hypercube", TopologyKind::hypercube, 16, 32);
  ar.cost.gamma = 0.5;
  EXPECT_DOUBLE_EQ(lower_bound_time(ar), lg16 + 2.0 * 32 * 15 / 16 + 0.5 * 32 * 15 / 16);
  EXPECT_TRUE(std::isnan(lower_bound_time(cfg("shift_ring", TopologyKind::ring, 16, 3))));
}

TEST(TextbookClaims, ExclusiveScan) {
  for (const char* algo : {"scan_ring", "scan_hypercube"})
    for (OperatorKind op : {OperatorKind::interval, OperatorKind::affine, OperatorKind::sum}) {
      RunConfig c = make_config(algo, TopologyKind::hypercube, 16, "", 2, op);
      c.params.exclusive = true;
      RunResult r = run_cpu(c);
      EXPECT_TRUE(r.verified) << algo;
      EXPECT_EQ(r.buffers[kData][0], operator_identity(op)) << algo;
      if (op == OperatorKind::interval) {
        EXPECT_EQ(r.buffers[kData][5 * 2], interval_make(0, 4)) << algo;
      }
    }
  RunConfig postal = make_config("scan_postal_a", TopologyKind::full, 8);
  postal.params.exclusive = true;
  EXPECT_THROW(run_cpu(postal), ConfigError);
}

// §4.6.2, eq. 4-11: the q-shift of a ring placed on a hypercube by the Gray code takes
// 2 popcount(q) - [q odd] <= 2 log p - 1 steps of one link each, never sharing a link; shifting
// backwards when cheaper needs at most log p (the textbook's 6-shift on 8 nodes: a backward 2-shift).
TEST(TextbookClaims, Eq4_11_GrayCodeShiftOnAHypercube) {
  for (int64_t p : {8, 64}) {
    const int64_t lg = int64_t(std::log2(double(p)));
    for (int64_t q = 1; q < p; ++q)
      for (const char* algo : {"shift_hypercube_gray", "shift_hypercube_gray_fb"}) {
        RunConfig c = make_config(algo, TopologyKind::ring, p, "", 2, OperatorKind::interval);
        c.params.shift = q;
        c.mapped = true;
        c.mapping.kind = MapKind::gray;
        c.mapping.logical = c.topology;
        c.mapping.physical = make_topology(TopologyKind::hypercube, p, "");
        RunResult r = run_cpu(c);
        ASSERT_TRUE(r.verified) << algo << " q=" << q;
        EXPECT_EQ(r.link_hops, r.messages) << algo << " q=" << q << ": every message crosses one link";
        EXPECT_EQ(r.max_link_load, 1) << algo << " q=" << q;
        int64_t forward = 2 * __builtin_popcountll(uint64_t(q)) - (q & 1);
        if (std::string(algo) == "shift_hypercube_gray") {
          EXPECT_EQ(r.steps, forward);
          EXPECT_LE(r.steps, 2 * lg - 1);
        } else {
          EXPECT_LE(r.steps, lg) << "q=" << q;
          EXPECT_LE(r.steps, forward);
        }
      }
  }
  RunConfig six = make_config("shift_hypercube_gray_fb", TopologyKind::ring, 8);
  six.params.shift = 6;
  EXPECT_EQ(run_cpu(six).steps, 2);
}

// Exercise 4.16: k-to-all broadcast on a hypercube in t_s log p + t_w m (k log(p/k) + k - 1).
TEST(TextbookClaims, Exercise4_16_KToAllBroadcast) {
  for (int64_t p : {8, 64, 256})
    for (int64_t k = 1; k <= p; k *= 2)
      for (Costs c : kCosts) {
        RunConfig cfgk = make_config("kbroadcast_hypercube", TopologyKind::hypercube, p, "", 3, OperatorKind::interval);
        cfgk.params.sources = k;
        const double lg = std::log2(double(p)), low = std::log2(double(p / k));
        EXPECT_DOUBLE_EQ(simulate(cfgk, c), c.ts * lg + c.tw * 3 * (double(k) * low + double(k) - 1)) << "p=" << p << " k=" << k;
      }
}

// Multicast (the group-operations slides): the members get the root's words, nobody else receives anything.
TEST(TextbookClaims, MulticastReachesExactlyTheGroup) {
  for (int64_t stride : {1, 2, 3, 5})
    for (int64_t size : {1, 2, 5, 8}) {
      RunConfig c = make_config("multicast_binomial", TopologyKind::full, 40, "", 2, OperatorKind::interval, 7);
      c.params.group_stride = stride;
      c.params.group_size = size;
      RunResult r = run_cpu(c);
      EXPECT_TRUE(r.verified) << stride << " " << size;  // the reference also checks non-members stay unset
      EXPECT_EQ(r.messages, size - 1);
      EXPECT_EQ(r.steps, ceil_log2(size));
    }
  RunConfig bad = make_config("multicast_binomial", TopologyKind::full, 12);
  bad.params.group_stride = 3;
  bad.params.group_size = 5;  // only 4 distinct members exist
  EXPECT_THROW(run_cpu(bad), ConfigError);
}

// A member's rank comes from a modular inverse, not a search: it agrees with the definition
// (member j is root + j*stride mod p) for every processor, including strides sharing factors with p.
TEST(TextbookClaims, MulticastRankInvertsTheMembership) {
  for (int64_t p : {1, 2, 12, 40, 97})
    for (int64_t stride : {1, 2, 3, 5, 12, 41, 96})
      for (int64_t root : {int64_t{0}, p / 2, p - 1}) {
        int64_t g = stride, q = p;
        while (q != 0) {
          int64_t r = g % q;
          g = q;
          q = r;
        }
        for (int64_t size : {int64_t{1}, p / g / 2, p / g}) {
          if (size < 1) continue;
          AlgoParams a;
          a.p = p;
          a.root = root;
          a.group_stride = stride;
          a.group_size = size;
          std::vector<int64_t> want(static_cast<size_t>(p), -1);
          for (int64_t j = 0; j < size; ++j) want[size_t(multicast_member(a, j))] = j;
          for (int64_t id = 0; id < p; ++id)
            EXPECT_EQ(multicast_rank(a, id), want[size_t(id)])
                << "p=" << p << " stride=" << stride << " root=" << root << " size=" << size << " id=" << id;
        }
      }
}

// Exercise 4.20: k-to-all personalized on a hypercube in t_s (log(p/k) + k - 1) + t_w m (p - 1).
TEST(TextbookClaims, Exercise4_20_KToAllPersonalized) {
  for (int64_t p : {8, 32, 128})
    for (int64_t k = 1; k <= p; k *= 2)
      for (Costs c : kCosts) {
        RunConfig cfgk = make_config("kscatter_hypercube", TopologyKind::hypercube, p, "", 2, OperatorKind::interval);
        cfgk.params.sources = k;
        const double low = std::log2(double(p / k));
        EXPECT_DOUBLE_EQ(simulate(cfgk, c), c.ts * (low + double(k) - 1) + c.tw * 2 * double(p - 1)) << "p=" << p << " k=" << k;
      }
}

// §4.7.2: under the all-port model the hypercube broadcast, scatter and gather have their t_w term
// divided by log p; under single-port they are refused at their first step.
TEST(TextbookClaims, AllPortHypercubeOperations) {
  for (int64_t p : {8, 64, 256})
    for (Costs k : kCosts) {
      const int64_t d = int64_t(std::log2(double(p))), m = 3 * d;
      for (const char* algo : {"broadcast_hypercube_allport", "scatter_hypercube_allport", "gather_hypercube_allport"}) {
        RunConfig c = cfg(algo, TopologyKind::hypercube, p, m);
        c.params.root = p - 1;
        c.ports = PortSpec{PortModel::all, kMaxOps};
        double t = simulate(c, k);
        bool scatter = std::string(algo) != "broadcast_hypercube_allport";
        double single_port = scatter ? k.ts * d + k.tw * m * (p - 1) : (k.ts + k.tw * m) * d;  // eqs. 4-6, 4-1
        double all_port = scatter ? k.ts * d + k.tw * (m / d) * (p - 1) : k.ts * d + k.tw * m;
        EXPECT_DOUBLE_EQ(t, all_port) << algo << " p=" << p;
        EXPECT_DOUBLE_EQ((single_port - k.ts * d) / (t - k.ts * d), double(d)) << algo << ": t_w term log p times smaller";
        c.ports = PortSpec{PortModel::single, 1};
        EXPECT_THROW(run_cpu(c), ScheduleError) << algo;
      }
    }
}

// Eq. 4-8: all-to-all personalized on a sqrt p x sqrt p mesh in (2 t_s + t_w m p)(sqrt p - 1).
TEST(TextbookClaims, Eq4_8_MeshAllToAll) {
  for (int64_t side : {2, 4, 8})
    for (int64_t m : {1, 3})
      for (Costs k : kCosts) {
        const int64_t p = side * side;
        std::string dims = std::to_string(side) + "x" + std::to_string(side);
        EXPECT_DOUBLE_EQ(simulate(cfg("alltoall_mesh", TopologyKind::torus, p, m, dims), k), (2 * k.ts + k.tw * m * p) * (side - 1));
      }
}
