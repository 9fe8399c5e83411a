// The algorithms of AI training collectives: Swing's all-reduce in its two variants, the
// dimension-wise all-reduce of 2D-ring and Themis, and PAT's all-gather and reduce-scatter. Each
// is held to its step count, to what its steps post (Swing's peers and distances, the words each
// rank sends), to its closed form, and to the verified result of a run. Every expected figure is
// derived here from the algorithm's definition, not copied from a run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "algorithms/allgather_pat.h"
#include "algorithms/allreduce_dimwise.h"
#include "algorithms/allreduce_swing_bandwidth.h"
#include "algorithms/allreduce_swing_latency.h"
#include "algorithms/reduce_scatter_pat.h"
#include "ppsim/engine.h"
#include "ppsim/report.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

// rho(j) as the paper defines it: sum_{i=0..j} (-2)^i.
int64_t rho_by_sum(int j) {
  int64_t sum = 0, term = 1;
  for (int i = 0; i <= j; ++i, term *= -2) sum += term;
  return sum;
}

// Swing's steps on extents `dims` (row-major), as (dimension, step within it): the fastest-varying
// dimension first in every cycle, a dimension dropping out once its log2 n steps are spent.
std::vector<std::pair<int, int>> swing_order(const std::vector<int64_t>& dims) {
  std::vector<std::pair<int, int>> order;
  for (int cycle = 0; cycle < 32; ++cycle)
    for (int k = int(dims.size()) - 1; k >= 0; --k)
      if ((int64_t{1} << cycle) < dims[k]) order.push_back({k, cycle});
  return order;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t n : dims) {
    if (!s.empty()) s.push_back('x');
    s.append(std::to_string(n));
  }
  return s;
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t n : dims) p *= n;
  return p;
}

RunResult run_checked(const RunConfig& c) {
  RunResult r = run_cpu(c);
  EXPECT_TRUE(r.verified) << c.algorithm->name << " on " << topology_shape(c.topology);
  EXPECT_EQ(r.mismatches, 0);
  return r;
}

const std::vector<std::vector<int64_t>> kSwingTori = {{2}, {4}, {8}, {16}, {64}, {4, 4}, {2, 8}, {8, 4}, {2, 2, 2}, {4, 4, 4}, {8, 2, 4}};

}  // namespace

TEST(Swing, RhoIsTheAlternatingSumOfPowersOfTwo) {
  for (int j = 0; j < 30; ++j) {
    EXPECT_EQ(swing_rho(j), rho_by_sum(j)) << j;
    EXPECT_NE(swing_rho(j) % 2, 0) << "rho is odd, so an even coordinate pairs with an odd one";
    // |rho(j)| = (2^(j+1) + (-1)^j) / 3: shorter than recursive doubling's 2^j from j = 2 on.
    EXPECT_EQ(std::llabs(swing_rho(j)), ((int64_t{2} << j) + (j % 2 == 0 ? 1 : -1)) / 3);
  }
}

// Both variants take log2 p steps per half on every torus whose extents are powers of two, and
// refuse others and non-commutative operators.
TEST(Swing, StepCounts) {
  for (const auto& dims : kSwingTori) {
    const int64_t p = product(dims);
    const int lg = int(std::lround(std::log2(double(p))));
    for (const char* algo : {"allreduce_swing_latency", "allreduce_swing_bandwidth"}) {
      const RunResult r = run_checked(make_config(algo, TopologyKind::torus, 0, dims_text(dims), 3 * p + 1));
      EXPECT_EQ(r.steps, std::string(algo) == "allreduce_swing_latency" ? lg : 2 * lg) << algo << " " << dims_text(dims);
    }
  }
  for (const char* algo : {"allreduce_swing_latency", "allreduce_swing_bandwidth"}) {
    const RunConfig bad = make_config(algo, TopologyKind::torus, 0, "4x6", 8);
    EXPECT_NE(algorithm_rejects(*bad.algorithm, bad.topology, bad.params, OperatorKind::sum), "");
    const RunConfig ring = make_config(algo, TopologyKind::ring, 16, "", 8);
    EXPECT_EQ(algorithm_rejects(*ring.algorithm, ring.topology, ring.params, OperatorKind::sum), "");
    EXPECT_NE(algorithm_rejects(*ring.algorithm, ring.topology, ring.params, OperatorKind::interval), "");
  }
}

// What the latency-optimal unit posts: in step s every rank sends its whole vector to, and
// receives from, the rank whose coordinate in the step's dimension is c + rho(j) (c even) or
// c - rho(j) (c odd), mod n, all other coordinates equal.
TEST(Swing, PeersOnATorusFollowRho) {
  for (const auto& dims : kSwingTori) {
    const RunConfig c = make_config("allreduce_swing_latency", TopologyKind::torus, 0, dims_text(dims), 5);
    const auto order = swing_order(dims);
    ASSERT_EQ(int(order.size()), AllreduceSwingLatency::rounds(c.params));
    for (int s = 0; s < int(order.size()); ++s) {
      const auto [k, j] = order[s];
      int64_t stride = 1;
      for (int i = int(dims.size()) - 1; i > k; --i) stride *= dims[i];
      for (int64_t id = 0; id < c.params.p; ++id) {
        StepOps ops;
        AllreduceSwingLatency::ops(c.params, id, s + 1, ops);
        ASSERT_EQ(ops.nsend, 1);
        ASSERT_EQ(ops.nrecv, 1);
        const int64_t coord = (id / stride) % dims[k], n = dims[k];
        const int64_t to = (((coord % 2 == 0 ? coord + rho_by_sum(j) : coord - rho_by_sum(j)) % n) + n) % n;
        EXPECT_EQ(ops.send[0].to, id + (to - coord) * stride) << dims_text(dims) << " step " << s << " rank " << id;
        EXPECT_EQ(ops.send[0].len, 5);
        EXPECT_EQ(ops.recv[0].from, ops.send[0].to);
      }
    }
  }
}

// On the torus every message of step s crosses |rho(j)| links (link_hops / messages), and the
// busiest link carries (|rho(j)| + 1)/2 of them: the coordinates of one parity among |rho(j)|
// consecutive ones, sending the same way round.
TEST(Swing, DistancesAndLinkLoadsPerStep) {
  for (const auto& dims : kSwingTori) {
    const RunConfig c = make_config("allreduce_swing_latency", TopologyKind::torus, 0, dims_text(dims), 4);
    const RunResult r = run_checked(c);
    const auto order = swing_order(dims);
    ASSERT_EQ(r.per_step.size(), order.size());
    for (size_t s = 0; s < order.size(); ++s) {
      const int64_t distance = std::llabs(rho_by_sum(order[s].second));
      EXPECT_EQ(r.per_step[s].messages, c.params.p);
      EXPECT_EQ(r.per_step[s].link_hops, c.params.p * distance) << dims_text(dims) << " step " << s;
      EXPECT_EQ(r.per_step[s].max_link_load, (distance + 1) / 2) << dims_text(dims) << " step " << s;
    }
  }
}

// The closed forms, with those loads: T = sum_s (t_s + (c_s t_w + gamma) m) for the latency
// variant; for the bandwidth variant (p | m) each half moves 2^(S-s-1) m/p words in step s.
TEST(Swing, TimeAgainstTheClosedForm) {
  const CostParams cost{3, 0.5, 0, Routing::cut_through, 0.25};
  for (const auto& dims : kSwingTori) {
    const int64_t p = product(dims), m = 4 * p;
    const auto order = swing_order(dims);
    double latency = 0, bandwidth = 0;
    for (size_t s = 0; s < order.size(); ++s) {
      const double load = double((std::llabs(rho_by_sum(order[s].second)) + 1) / 2);
      const double words = double(m / p) * double(int64_t{1} << (order.size() - s - 1));
      latency += cost.ts + (load * cost.tw + cost.gamma) * double(m);
      bandwidth += 2 * cost.ts + (2 * load * cost.tw + cost.gamma) * words;
    }
    RunConfig c = make_config("allreduce_swing_latency", TopologyKind::torus, 0, dims_text(dims), m);
    c.cost = cost;
    EXPECT_DOUBLE_EQ(run_checked(c).time, latency) << dims_text(dims);
    EXPECT_DOUBLE_EQ(formula_time(c), latency);
    c = make_config("allreduce_swing_bandwidth", TopologyKind::torus, 0, dims_text(dims), m);
    c.cost = cost;
    const RunResult r = run_checked(c);
    EXPECT_DOUBLE_EQ(r.time, bandwidth) << dims_text(dims);
    EXPECT_DOUBLE_EQ(formula_time(c), bandwidth);
    EXPECT_EQ(r.words, 2 * m * (p - 1)) << "bandwidth-optimal: every rank sends 2 m (p-1)/p words";
  }
  // m < p: some ranks have nothing to send in a step, the loads fall, and no closed form is claimed.
  EXPECT_TRUE(std::isnan(formula_time(make_config("allreduce_swing_bandwidth", TopologyKind::ring, 16, "", 8))));
}

// Swing's point: on a ring, its short hops load the links less than recursive doubling's 2^s.
TEST(Swing, LoadsARingLessThanRecursiveDoubling) {
  for (int64_t p : {16, 64, 256}) {
    const RunResult swing = run_checked(make_config("allreduce_swing_latency", TopologyKind::ring, p, "", 64));
    const RunResult doubling = run_checked(make_config("allreduce_hypercube", TopologyKind::ring, p, "", 64));
    ASSERT_EQ(swing.steps, doubling.steps);
    EXPECT_LT(swing.link_hops, doubling.link_hops) << p;
    EXPECT_LT(swing.time, doubling.time) << p;
  }
}

namespace {

// The extents of the dimension-wise all-reduce's phases, in its order: the fastest-varying first.
std::vector<int64_t> phase_extents(const std::vector<int64_t>& dims) { return std::vector<int64_t>(dims.rbegin(), dims.rend()); }

const std::vector<std::vector<int64_t>> kGrids = {{7}, {4, 4}, {3, 5}, {2, 3, 4}, {5, 1, 3}, {6, 4}, {10, 10, 10}};

}  // namespace

// 2 sum (n_k - 1) steps; in all the messages carry 2 m (p - 1) words for any m: the lines of phase i
// hold disjoint shards that add up to m p / (n_0 ... n_(i-1)) words, each moved n_i - 1 times by the
// ring, and sum_i (n_i - 1) / (n_0 ... n_i) telescopes to (p - 1)/p.
TEST(Dimwise, StepsAndWords) {
  for (const auto& dims : kGrids)
    for (TopologyKind kind : {TopologyKind::torus, TopologyKind::mesh})
      for (int64_t m : {int64_t{1}, int64_t{7}, product(dims), 3 * product(dims) + 5}) {
        const int64_t p = product(dims);
        int64_t steps = 0;
        for (int64_t n : dims) steps += 2 * (n - 1);
        RunConfig c = make_config("allreduce_dimwise", kind, 0, dims_text(dims), m, OperatorKind::bxor);
        c.input = InputSpec{true, 99};
        const RunResult r = run_checked(c);
        EXPECT_EQ(r.steps, steps) << dims_text(dims);
        EXPECT_EQ(r.words, 2 * m * (p - 1)) << dims_text(dims) << " m " << m;
        EXPECT_EQ(r.max_link_load, 1) << "ring neighbours only; a mesh line's wrap message goes back alone";
      }
}

// Per rank, on the ops the unit posts: with p | m every rank sends m (n_i - 1)/(n_0 ... n_i) words in
// each half of phase i, 2 m (p - 1)/p in all.
TEST(Dimwise, WordsPerRank) {
  for (const auto& dims : kGrids) {
    const int64_t p = product(dims), m = 2 * p;
    const RunConfig c = make_config("allreduce_dimwise", TopologyKind::torus, 0, dims_text(dims), m);
    const int rounds = AllreduceDimwise::rounds(c.params);
    for (int64_t id = 0; id < p; ++id) {
      int64_t sent = 0;
      for (int round = 1; round <= rounds; ++round) {
        StepOps ops;
        AllreduceDimwise::ops(c.params, id, round, ops);
        ASSERT_LE(ops.nsend, 1);
        for (int i = 0; i < ops.nsend; ++i) sent += ops.send[i].len;
      }
      EXPECT_EQ(sent, 2 * m * (p - 1) / p) << dims_text(dims) << " rank " << id;
    }
  }
}

// T = sum_i (n_i - 1)(2 t_s + (2 t_w + gamma) C_i), C_i the largest chunk of phase i, which is
// ceil(m / (n_0 ... n_i)) when every ceiling is exact or not; p | m: 2 t_s sum (n_i - 1) + (2 t_w +
// gamma) m (p-1)/p. On a ring or linear array it is allreduce_ring.
TEST(Dimwise, TimeAgainstTheClosedForm) {
  const CostParams cost{2, 0.5, 0, Routing::cut_through, 0.25};
  for (const auto& dims : kGrids)
    for (TopologyKind kind : {TopologyKind::torus, TopologyKind::mesh})
      for (int64_t m : {product(dims), 4 * product(dims) + 3, int64_t{5}}) {
        double expected = 0;
        int64_t lines = 1;
        for (int64_t n : phase_extents(dims)) {
          lines *= n;
          const int64_t chunk = (m + lines - 1) / lines;  // ceil(ceil(m/a)/b) = ceil(m/(a b))
          if (chunk > 0) expected += double(n - 1) * (2 * cost.ts + (2 * cost.tw + cost.gamma) * double(chunk));
        }
        RunConfig c = make_config("allreduce_dimwise", kind, 0, dims_text(dims), m);
        c.cost = cost;
        EXPECT_DOUBLE_EQ(run_checked(c).time, expected) << dims_text(dims) << " m " << m;
        EXPECT_DOUBLE_EQ(formula_time(c), expected);
      }
  for (int64_t p : {2, 5, 13}) {
    RunConfig dimwise = make_config("allreduce_dimwise", TopologyKind::ring, p, "", 3 * p + 1);
    RunConfig ring = make_config("allreduce_ring", TopologyKind::ring, p, "", 3 * p + 1);
    EXPECT_DOUBLE_EQ(run_checked(dimwise).time, run_checked(ring).time) << p;
  }
}

namespace {

// Blocks PAT moves along dimension d: the offsets j 2^(d+1) + 2^d below p.
int64_t pat_offsets(int64_t p, int d) {
  int64_t count = 0;
  for (int64_t s = int64_t{1} << d; s < p; s += int64_t{2} << d) ++count;
  return count;
}

}  // namespace

// ceil(log2 p) steps for any p; the all-gather's step i is dimension k - i (far first), the
// reduce-scatter's dimension i - 1; each moves its offsets' blocks, p - 1 in all per rank.
TEST(Pat, StepsAndBlocksPerStep) {
  for (int64_t p = 1; p <= 70; ++p) {
    int k = 0;
    while ((int64_t{1} << k) < p) ++k;
    for (const char* algo : {"allgather_pat", "reduce_scatter_pat"}) {
      const bool gather = std::string(algo) == "allgather_pat";
      const int64_t m = 3;
      RunConfig c = make_config(algo, TopologyKind::full, p, "", m, OperatorKind::sum);
      c.input = InputSpec{true, 5};
      const RunResult r = run_checked(c);
      ASSERT_EQ(r.steps, k) << algo << " p " << p;
      for (int i = 1; i <= k; ++i) {
        const int d = gather ? k - i : i - 1;
        EXPECT_EQ(r.per_step[i - 1].messages, p) << algo << " p " << p;
        EXPECT_EQ(r.per_step[i - 1].words, p * m * pat_offsets(p, d)) << algo << " p " << p << " step " << i;
        StepOps ops;  // rank 0's peer: 2^d away, below for the all-gather, above for the reduce-scatter
        if (gather) AllgatherPat::ops(c.params, 0, i, ops);
        else ReduceScatterPat::ops(c.params, 0, i, ops);
        ASSERT_EQ(ops.nsend, 1);
        EXPECT_EQ(ops.send[0].to, gather ? (p - (int64_t{1} << d)) % p : (int64_t{1} << d) % p);
      }
      EXPECT_EQ(r.words, p * m * (p - 1)) << algo << " p " << p;
    }
  }
}

// On the fully connected machine (no congestion): T = sum_d (t_s + (t_w + [RS] gamma) m c_d), which at
// p = 2^k is t_s k + (t_w + [RS] gamma) m (p - 1), Bruck's and recursive halving's figures.
TEST(Pat, TimeAgainstTheClosedForm) {
  const CostParams cost{5, 0.5, 0, Routing::cut_through, 0.25};
  for (int64_t p : {2, 3, 5, 8, 13, 16, 64, 100})
    for (int64_t m : {1, 6}) {
      int k = 0;
      while ((int64_t{1} << k) < p) ++k;
      double gather = 0, scatter = 0;
      for (int d = 0; d < k; ++d) {
        gather += cost.ts + cost.tw * double(m * pat_offsets(p, d));
        scatter += cost.ts + (cost.tw + cost.gamma) * double(m * pat_offsets(p, d));
      }
      if ((p & (p - 1)) == 0) {
        EXPECT_DOUBLE_EQ(gather, cost.ts * k + cost.tw * double(m * (p - 1)));
        EXPECT_DOUBLE_EQ(scatter, cost.ts * k + (cost.tw + cost.gamma) * double(m * (p - 1)));
      }
      RunConfig c = make_config("allgather_pat", TopologyKind::full, p, "", m);
      c.cost = cost;
      EXPECT_DOUBLE_EQ(run_checked(c).time, gather) << p;
      EXPECT_DOUBLE_EQ(formula_time(c), gather);
      c = make_config("reduce_scatter_pat", TopologyKind::full, p, "", m);
      c.cost = cost;
      EXPECT_DOUBLE_EQ(run_checked(c).time, scatter) << p;
      EXPECT_DOUBLE_EQ(formula_time(c), scatter);
    }
}

// The all-gather keeps every block exact under the strictest operator, and the reduce-scatter
// (commutative only) refuses a non-commutative one.
TEST(Pat, OperatorsAndLimits) {
  for (int64_t p : {6, 13, 32}) {
    RunConfig c = make_config("allgather_pat", TopologyKind::ring, p, "", 2, OperatorKind::interval);
    run_checked(c);
    c = make_config("reduce_scatter_pat", TopologyKind::ring, p, "", 2, OperatorKind::affine);
    EXPECT_NE(algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine), "");
    EXPECT_THROW(run_cpu(c), ConfigError);
  }
}

// PAT's point: the same steps and words as Bruck, but the largest messages go to the nearest
// peers, so on a ring (where a message 2^d away shares its links with others) it is faster.
TEST(Pat, BeatsBruckOnARing) {
  for (int64_t p : {16, 64, 100}) {
    const RunResult pat = run_checked(make_config("allgather_pat", TopologyKind::ring, p, "", 16));
    const RunResult bruck = run_checked(make_config("allgather_bruck", TopologyKind::ring, p, "", 16));
    ASSERT_EQ(pat.steps, bruck.steps);
    EXPECT_EQ(pat.words, bruck.words);
    EXPECT_LT(pat.time, bruck.time) << p;
  }
}
