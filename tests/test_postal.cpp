// The k-port postal model of Lin–Yeh: Theorem 1's bound, Algorithms A and B (step-optimal for
// every n, k, lambda, order-checked with `interval` and `affine`), the paper's worked examples, and
// the broadcast on the tree T_0.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/engine.h"
#include "ppsim/postal.h"
#include "ppsim/report.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

RunConfig postal(const std::string& algo, int64_t p, int k, int lambda, OperatorKind op = OperatorKind::interval, int64_t n = 0) {
  RunConfig c = make_config(algo, TopologyKind::full, p, "", 1, op);
  c.params.kports = k;
  c.params.lambda = lambda;
  c.params.n = n;
  c.ports = k == 1 ? PortSpec{PortModel::single, 1} : PortSpec{PortModel::kport, k};
  return c;
}

// One buffer of the trace as the paper prints it: "<0, 0:1, ...>" -> {"0", "0:1", ...}.
std::vector<std::string> row(const RunResult& r, size_t step, int buf, int64_t p, int64_t words) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < p; ++i) out.push_back(word_text(OperatorKind::interval, r.trace[step].buffers[size_t(buf)][size_t(i * words)]));
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(", ", start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 2;
  }
}

// The recurrence written out independently of postal_g.
std::vector<int64_t> g_by_hand(int k, int lambda, int count) {
  std::vector<int64_t> g;
  for (int j = 0; j < count; ++j) g.push_back(j < lambda ? 1 : g[size_t(j - 1)] + k * g[size_t(j - lambda)]);
  return g;
}

// Everything a processor's StepOps says, as text (so two can be compared and a difference shown).
std::string ops_text(const StepOps& o) {
  std::string t = o.overflow ? "overflow;" : "";
  for (int n = 0; n < o.nsend; ++n) {
    const Send& x = o.send[n];
    t += "send " + std::to_string(x.to) + " " + std::to_string(x.buf) + ":" + std::to_string(x.src_off) + "+" + std::to_string(x.len) +
         "/" + std::to_string(x.run) + "/" + std::to_string(x.stride) + ";";
  }
  for (int n = 0; n < o.nrecv; ++n) {
    const Recv& x = o.recv[n];
    t += "recv " + std::to_string(x.from) + " +" + std::to_string(x.len);
    for (int q = 0; q < x.nact; ++q) {
      const RecvAction& y = x.act[q];
      t += " [" + std::to_string(y.buf) + ":" + std::to_string(y.dst_off) + "/" + std::to_string(y.run) + "/" + std::to_string(y.stride) +
           " mode " + std::to_string(int(y.mode)) + " msg " + std::to_string(y.msg_off) + "+" + std::to_string(y.words) + "]";
    }
    t += ";";
  }
  return t;
}

}  // namespace

// The run's table holds G exactly where the recurrence defines it, and the fewest steps for p.
TEST(PostalTable, HoldsTheRecurrence) {
  for (int k : {1, 2, 3, 7})
    for (int lambda : {1, 2, 3, 8, 100, 1024})
      for (int64_t p : {int64_t{1}, int64_t{2}, int64_t{10}, int64_t{1000}, int64_t{1} << 24, int64_t{1} << 40}) {
        AlgoParams a;
        a.p = p;
        a.kports = k;
        a.lambda = lambda;
        const PostalTable t(a);
        EXPECT_EQ(t.steps(), postal_min_steps(p, k, lambda));
        ASSERT_EQ(t.values().size(), size_t(t.steps()) + size_t(lambda));
        for (size_t j = 0; j < t.values().size(); j += 1 + j / 64)  // every index up to 64, then spaced out
          ASSERT_EQ(t.values()[j], postal_g(int(j), k, lambda)) << "j=" << j << " k=" << k << " lambda=" << lambda;
        EXPECT_EQ(t.values().back(), postal_g(int(t.values().size()) - 1, k, lambda));
        const AlgoParams b = t.attached(a);
        EXPECT_EQ(run_postal_steps(b), t.steps());
        EXPECT_EQ(run_postal_g(b, -1), 0);
        EXPECT_GE(run_postal_g(b, int(t.values().size()) + 5), p);  // past the table: at least p, as G is
      }
}

// A step of a postal algorithm is the same whether it reads G from the run's table or runs the
// recurrence: every processor, every step, several p, k, lambda, roots and n.
TEST(PostalTable, StepsAreTheSameWithAndWithoutIt) {
  const AlgorithmId ids[] = {find_algorithm("broadcast_postal")->id, find_algorithm("scan_postal_a")->id,
                             find_algorithm("scan_postal_b")->id};
  int64_t compared = 0;
  for (AlgorithmId id : ids)
    for (int k : {1, 2, 3})
      for (int lambda : {1, 2, 3, 5, 17})
        for (int64_t p : {2, 3, 10, 31, 64, 200}) {
          AlgoParams plain;
          plain.p = p;
          plain.kports = k;
          plain.lambda = lambda;
          plain.root = p / 3;
          plain.n = 2 * p + 1;
          const PostalTable t(plain);
          const AlgoParams tab = t.attached(plain);
          const int rounds = run_postal_steps(plain);
          ASSERT_EQ(run_postal_steps(tab), rounds);
          for (int s = 1; s <= rounds; ++s)
            for (int64_t i = 0; i < p; ++i) {
              StepOps x, y;
              algorithm_ops(id, plain, i, s, x);
              algorithm_ops(id, tab, i, s, y);
              ASSERT_EQ(ops_text(y), ops_text(x))
                  << "algorithm " << int(id) << " p=" << p << " k=" << k << " lambda=" << lambda << " processor " << i << " step " << s;
              compared += x.nsend + x.nrecv;
            }
        }
  EXPECT_GT(compared, 100000);  // the comparison saw real sends and receives
}

TEST(PostalBound, TheoremOneSequences) {
  // The paper's example: k = 2, lambda = 3 gives 1, 1, 1, 3, 5, 7, 13.
  std::vector<int64_t> paper = {1, 1, 1, 3, 5, 7, 13};
  for (int j = 0; j < 7; ++j) EXPECT_EQ(postal_g(j, 2, 3), paper[size_t(j)]) << j;
  EXPECT_EQ(postal_min_steps(10, 2, 3), 6);
  // lambda = 1, one port: G(j) = 2^j, the binomial tree: ceil(log2 n) steps.
  for (int64_t n : {2, 3, 8, 9, 1000, 1 << 20}) EXPECT_EQ(postal_min_steps(n, 1, 1), ceil_log2(n)) << n;
  // lambda = 1, k ports: G(j) = (k+1)^j.
  EXPECT_EQ(postal_g(4, 3, 1), 256);
  // lambda = 2, one port: Fibonacci 1, 1, 2, 3, 5, 8, 13.
  std::vector<int64_t> fib = {1, 1, 2, 3, 5, 8, 13};
  for (int j = 0; j < 7; ++j) EXPECT_EQ(postal_g(j, 1, 2), fib[size_t(j)]);
  EXPECT_EQ(postal_min_steps(8, 1, 2), 5);
  EXPECT_EQ(postal_min_steps(9, 1, 2), 6);
  EXPECT_EQ(postal_min_steps(1, 4, 5), 0);
  for (int k = 1; k <= 4; ++k)
    for (int lambda = 1; lambda <= 5; ++lambda) {
      auto g = g_by_hand(k, lambda, 25);  // 5^25 < 2^62: no saturation yet
      for (int j = 0; j < 25; ++j) EXPECT_EQ(postal_g(j, k, lambda), g[size_t(j)]);
    }
  // postal_min_steps (one pass of the recurrence) is min{ i | G(i) >= n } by its definition,
  // including lambda = 1024 and n near the saturation cap.
  for (int k : {1, 2, 5})
    for (int lambda : {1, 2, 3, 7, 1024})
      for (int64_t n : {int64_t{2}, int64_t{3}, int64_t{10}, int64_t{1000}, int64_t{1} << 20, kPostalGCap - 1, kPostalGCap}) {
        if (lambda == 1024 && n > (int64_t{1} << 20)) continue;  // tens of thousands of G(i) to scan
        int i = 0;
        while (postal_g(i, k, lambda) < n) ++i;
        EXPECT_EQ(postal_min_steps(n, k, lambda), i) << "n=" << n << " k=" << k << " lambda=" << lambda;
      }
}

// G saturates at the cap; n beyond it gets the cap's answer (it used to search without end).
TEST(PostalBound, NPastTheCapEnds) {
  for (int k : {1, 3})
    for (int lambda : {1, 4}) {
      EXPECT_EQ(postal_min_steps(INT64_MAX, k, lambda), postal_min_steps(kPostalGCap, k, lambda));
      EXPECT_GE(postal_g(postal_min_steps(INT64_MAX, k, lambda), k, lambda), kPostalGCap);
    }
}

// Lin–Yeh §3.2: n = 10, k = 2, lambda = 3, c(i) = i; C_j after every step, in the paper's notation.
// (The paper prints W(1,3) = {10}; by the definition it is {0}, which is what C_3 needs.)
TEST(PostalAlgorithmA, PaperExampleN10K2Lambda3) {
  RunConfig c = postal("scan_postal_a", 10, 2, 3);
  c.trace = true;
  RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  ASSERT_EQ(r.steps, 6);
  const char* C[] = {
      "0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
      "0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
      "0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
      "0, 0:1, 0:2, 1:3, 2:4, 3:5, 4:6, 5:7, 6:8, 7:9",
      "0, 0:1, 0:2, 0:3, 0:4, 1:5, 2:6, 3:7, 4:8, 5:9",
      "0, 0:1, 0:2, 0:3, 0:4, 0:5, 0:6, 1:7, 2:8, 3:9",
      "0, 0:1, 0:2, 0:3, 0:4, 0:5, 0:6, 0:7, 0:8, 0:9",
  };
  for (size_t j = 0; j <= 6; ++j) EXPECT_EQ(row(r, j, kData, 10, 1), split(C[j])) << "C_" << j;
  // Step 4: U(i,4) = {i + 7} for i < 3 -- three messages; steps 5 and 6 send nothing.
  EXPECT_EQ(r.trace[4].messages.size(), 3u);
  EXPECT_TRUE(r.trace[5].messages.empty() && r.trace[6].messages.empty());
  EXPECT_EQ(r.trace[1].messages[0].arrives, 3);
}

// Lin–Yeh §4: n = 80, p = 10, k = 2, lambda = 3; C_j and D_j after every step.
TEST(PostalAlgorithmB, PaperExampleN80P10) {
  RunConfig c = postal("scan_postal_b", 10, 2, 3, OperatorKind::interval, 80);
  c.trace = true;
  RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  ASSERT_EQ(r.steps, 6);
  const char* C[] = {
      "0:7, 8:15, 16:23, 24:31, 32:39, 40:47, 48:55, 56:63, 64:71, 72:79",
      "0:7, 8:15, 16:23, 24:31, 32:39, 40:47, 48:55, 56:63, 64:71, 72:79",
      "0:7, 8:15, 16:23, 24:31, 32:39, 40:47, 48:55, 56:63, 64:71, 72:79",
      "0:7, 0:15, 0:23, 8:31, 16:39, 24:47, 32:55, 40:63, 48:71, 56:79",
      "0:7, 0:15, 0:23, 0:31, 0:39, 8:47, 16:55, 24:63, 32:71, 40:79",
      "0:7, 0:15, 0:23, 0:31, 0:39, 0:47, 0:55, 8:63, 16:71, 24:79",
      "0:7, 0:15, 0:23, 0:31, 0:39, 0:47, 0:55, 0:63, 0:71, 0:79",
  };
  const char* D[] = {
      "0, 8, 16, 24, 32, 40, 48, 56, 64, 72",
      "0, 8, 16, 24, 32, 40, 48, 56, 64, 72",
      "0, 8, 16, 24, 32, 40, 48, 56, 64, 72",
      "0, 0:8, 0:16, 8:24, 16:32, 24:40, 32:48, 40:56, 48:64, 56:72",
      "0, 0:8, 0:16, 0:24, 0:32, 8:40, 16:48, 24:56, 32:64, 40:72",
      "0, 0:8, 0:16, 0:24, 0:32, 0:40, 0:48, 8:56, 16:64, 24:72",
      "0, 0:8, 0:16, 0:24, 0:32, 0:40, 0:48, 0:56, 0:64, 0:72",
  };
  for (size_t j = 0; j <= 6; ++j) {
    EXPECT_EQ(row(r, j, kPartial, 10, 1), split(C[j])) << "C_" << j;
    EXPECT_EQ(row(r, j, kPrefix, 10, 1), split(D[j])) << "D_" << j;
  }
  // u(8i + j) = 0:(8i + j) on every processor.
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t e = 0; e < 8; ++e) EXPECT_EQ(r.buffers[kData][size_t(i * 8 + e)], interval_make(0, uint32_t(8 * i + e)));
}

// The uneven split of §4: n = 75, p = 10 gives PEs 0..4 eight values and PEs 5..9 seven.
TEST(PostalAlgorithmB, UnevenSplit) {
  AlgoParams a;
  a.p = 10;
  a.n = 75;
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(scan_count(a, i), i < 5 ? 8 : 7) << i;
  EXPECT_EQ(scan_first(a, 5), 40);
  EXPECT_EQ(scan_first(a, 9), 68);
  for (OperatorKind op : {OperatorKind::interval, OperatorKind::affine}) {
    RunResult r = run_cpu(postal("scan_postal_b", 10, 2, 3, op, 75));
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.steps, 6);
  }
}

// Both algorithms take exactly the bound's number of steps for every n, k, lambda, and the
// interval operator (any misordered or overlapping fold) and affine agree with the reference.
TEST(PostalAlgorithmA, StepOptimalOverAGrid) {
  for (int k = 1; k <= 4; ++k)
    for (int lambda = 1; lambda <= 5; ++lambda)
      for (int64_t n = 1; n <= 200; ++n) {
        RunResult r = run_cpu(postal("scan_postal_a", n, k, lambda));
        ASSERT_TRUE(r.verified) << "n=" << n << " k=" << k << " lambda=" << lambda;
        ASSERT_EQ(r.steps, postal_min_steps(n, k, lambda)) << "n=" << n << " k=" << k << " lambda=" << lambda;
        if (n % 17 == 0) {
          EXPECT_TRUE(run_cpu(postal("scan_postal_a", n, k, lambda, OperatorKind::affine)).verified);
        }
      }
}

TEST(PostalAlgorithmB, StepOptimalOverAGrid) {
  for (int k = 1; k <= 4; ++k)
    for (int lambda = 1; lambda <= 5; ++lambda)
      for (int64_t n = 1; n <= 200; n += (n < 40 ? 1 : 7))
        for (int64_t p : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, (n + 2) / 3, n - 1, n}) {
          if (p < 1 || p > n) continue;
          RunResult r = run_cpu(postal("scan_postal_b", p, k, lambda, OperatorKind::interval, n));
          ASSERT_TRUE(r.verified) << "n=" << n << " p=" << p << " k=" << k << " lambda=" << lambda;
          ASSERT_EQ(r.steps, postal_min_steps(p, k, lambda)) << "n=" << n << " p=" << p;
        }
}

TEST(PostalBroadcast, TreeT0ReachesEveryoneInTheBound) {
  for (int k = 1; k <= 4; ++k)
    for (int lambda = 1; lambda <= 5; ++lambda)
      for (int64_t p : {1, 2, 3, 10, 13, 64, 100, 1000}) {
        RunConfig c = postal("broadcast_postal", p, k, lambda, OperatorKind::sum);
        c.params.root = p / 3;
        RunResult r = run_cpu(c);
        ASSERT_TRUE(r.verified) << "p=" << p << " k=" << k << " lambda=" << lambda;
        EXPECT_EQ(r.steps, postal_min_steps(p, k, lambda));
        EXPECT_EQ(r.messages, p - 1);  // a spanning tree: every processor but the root receives once
      }
}

// The textbook's round-based algorithms run one round every lambda steps under the postal model;
// they can only be slower than the bound.
TEST(PostalTextbook, RoundsAreSpacedByLambdaAndRespectTheBound) {
  for (int lambda : {1, 2, 3, 5})
    for (int64_t p : {8, 13, 64}) {
      for (const char* algo : {"broadcast_binomial", "reduce_binomial", "allreduce_hypercube", "allgather_ring"}) {
        RunConfig c = postal(algo, p, 1, lambda, OperatorKind::sum);
        RunResult r = run_cpu(c);
        ASSERT_TRUE(r.verified) << algo;
        EXPECT_EQ(r.steps, int64_t(c.algorithm->rounds(c.params)) * lambda) << algo;
        EXPECT_GE(r.steps, postal_lower_bound_steps(c)) << algo;
        EXPECT_DOUBLE_EQ(r.time, lambda > 1 ? double(r.steps) : r.time);
      }
    }
}

// Alg. 4-9 and the slides' t_i / s_i procedure: the same exchanges, the same sums.
TEST(HypercubePrefix, TextbookAndSlidesAgreeOnSums) {
  for (int64_t p : {2, 8, 64, 1024}) {
    RunResult a = run_cpu(make_config("scan_hypercube", TopologyKind::hypercube, p, "", 3, OperatorKind::sum));
    RunResult b = run_cpu(make_config("scan_hypercube_ts", TopologyKind::hypercube, p, "", 3, OperatorKind::sum));
    ASSERT_TRUE(a.verified && b.verified);
    EXPECT_EQ(a.buffers[kData], b.buffers[kData]);
    EXPECT_EQ(a.messages, b.messages);
    EXPECT_EQ(a.steps, ceil_log2(p));
  }
  // Only Alg. 4-9 keeps the order: the slides' right-hand folds need a commutative operator.
  EXPECT_TRUE(run_cpu(make_config("scan_hypercube", TopologyKind::hypercube, 16, "", 1, OperatorKind::interval)).verified);
  EXPECT_THROW(run_cpu(make_config("scan_hypercube_ts", TopologyKind::hypercube, 16, "", 1, OperatorKind::interval)), ConfigError);
}
