// Simulated time against the closed forms of the reduction-family algorithms MPI and NCCL run,
// with a compute term gamma per combined word, on a fully connected network (one hop,
// no congestion, t_h = 0). alpha = t_s, beta = t_w, n = the whole vector in words (m for
// all-reduce, reduce and broadcast; p m for reduce-scatter), p' = 2^floor(lg p), r = p - p',
// d = lg p'. Thakur, Rabenseifner and Gropp (2005) give, at p = 2^d,
//   reduce-scatter, recursive halving  lg p a + n (p-1)/p (b + g)
//   Rabenseifner all-reduce and reduce  2 lg p a + 2 n (p-1)/p b + n (p-1)/p g
//   ring all-reduce (any p, p | n)     2 (p-1) a + 2 n (p-1)/p b + n (p-1)/p g
//   van de Geijn broadcast             lg p a + n (p-1)/p b + (p-1) a + n (p-1)/p b
// and for all-reduce at other p (2 floor(lg p) + 2) a + (2 (p-1)/p + 2) n b + n (1 + (p-1)/p) g,
// whose p must read p' to be exact (the halving runs among p' processors). The forms for uneven
// blocks, other p and reduce roots are derived in each test from the step pattern stated in the
// algorithm's header. Every case runs on the CPU backend and on the device rounds executed on the
// host, which must agree to the bit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/reduce_scatter_halving.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

struct Costs {
  double ts, tw, gamma;
};
// Powers of two and halves keep every sum exact.
const Costs kCosts[] = {{1, 1, 0}, {100, 1, 0.5}, {10, 0.5, 2}, {0, 3, 1}, {1, 0.25, 4}};
const int64_t kOtherPs[] = {3, 5, 6, 7, 12, 13, 100};
const int64_t kPow2Ps[] = {2, 4, 8, 16, 64};

// Runs algo on both backends, checks that each verifies and that they agree, and that the unit's
// own formula says the same; returns the simulated time.
double simulate(const std::string& algo, int64_t p, int64_t m, Costs k, int64_t root = 0, OperatorKind op = OperatorKind::sum) {
  RunConfig c = make_config(algo, TopologyKind::full, p, "", m, op, root);
  c.cost.ts = k.ts;
  c.cost.tw = k.tw;
  c.cost.th = 0;
  c.cost.gamma = k.gamma;
  const RunResult cpu = run_cpu(c);
  EXPECT_TRUE(cpu.verified) << algo << " p=" << p << " m=" << m << " root " << root;
  EXPECT_EQ(cpu.steps, c.algorithm->rounds(c.params)) << algo << " p=" << p;
  EXPECT_DOUBLE_EQ(formula_time(c), cpu.time) << algo << " p=" << p << " m=" << m << " root " << root << ": the unit's formula";
  RunConfig h = c;
  h.keep_buffers = false;  // the device's own verification
  const RunResult dev = run_device_rounds_on_host(h);
  EXPECT_TRUE(dev.verified) << algo << " p=" << p << " m=" << m << " on the device rounds";
  EXPECT_EQ(dev.time, cpu.time) << algo << " p=" << p << " m=" << m;
  EXPECT_EQ(dev.steps, cpu.steps);
  EXPECT_EQ(dev.messages, cpu.messages);
  EXPECT_EQ(dev.words, cpu.words);
  return cpu.time;
}

int lg(int64_t x) { return int(std::floor(std::log2(double(x)) + 1e-9)); }
int64_t pow2_below(int64_t p) { return int64_t{1} << lg(p); }

// A step whose largest message has w words: a + w b (+ w g when it combines); no message, no time.
double step(Costs k, int64_t w, bool combines) { return w == 0 ? 0.0 : k.ts + w * k.tw + (combines ? w * k.gamma : 0.0); }

// n words as `parts` blocks, ceil(n/parts) words for the first n mod parts: words of blocks [a, b).
int64_t block_words(int64_t n, int64_t parts, int64_t a, int64_t b) {
  auto first = [&](int64_t i) { return i * (n / parts) + std::min(i, n % parts); };
  return first(b) - first(a);
}

}  // namespace

// Recursive halving at p = 2^d: lg p steps of n/2, n/4, ..., n/p words, each combined.
TEST(FormulaReduce, ReduceScatterHalvingPowerOfTwo) {
  for (int64_t p : kPow2Ps)
    for (int64_t m : {1, 3, 8})
      for (Costs k : kCosts) {
        const double n = double(p * m);
        EXPECT_DOUBLE_EQ(simulate("reduce_scatter_halving", p, m, k), lg(p) * k.ts + n * (p - 1) / p * (k.tw + k.gamma)) << p << " " << m;
      }
}

// Other p: the even member of each pair sends its n = p m words, combined (a + n (b + g)); then
// halving step k sends p'/2^k positions, of which ceil(r/2^k) hold a pair's two blocks (the
// positions of the virtual ranks = 0 mod 2^k); last the pairs' blocks go back (a + m b).
TEST(FormulaReduce, ReduceScatterHalvingAnyP) {
  for (int64_t p : kOtherPs)
    for (int64_t m : {1, 2, 5})
      for (Costs k : kCosts) {
        const int64_t pp = pow2_below(p), r = p - pp;
        double t = step(k, p * m, true) + step(k, m, false);
        for (int64_t span = 2; span <= pp; span *= 2) t += step(k, m * (pp / span + (r + span - 1) / span), true);
        EXPECT_DOUBLE_EQ(simulate("reduce_scatter_halving", p, m, k), t) << p << " " << m;
      }
}

// The paper's forms, with p' for p where p is not a power of two, when p' divides n.
TEST(FormulaReduce, AllreduceRabenseifnerPapersForm) {
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 12, 13, 16, 100})
    for (int64_t blocks : {1, 3})
      for (Costs k : kCosts) {
        const int64_t pp = pow2_below(p), m = blocks * pp;
        const double n = double(m), part = double(pp - 1) / double(pp);
        const double t = p == pp ? 2 * lg(p) * k.ts + 2 * n * part * k.tw + n * part * k.gamma
                                 : (2 * lg(p) + 2) * k.ts + (2 * part + 2) * n * k.tw + n * (1 + part) * k.gamma;
        EXPECT_DOUBLE_EQ(simulate("allreduce_rabenseifner", p, m, k), t) << p << " " << m;
      }
  // Written with p, as the paper prints it, the form misses: the halving runs among p' = 4 of 6.
  const Costs k{1, 1, 1};
  const double n = 12, part = 5.0 / 6.0;
  EXPECT_NE(simulate("allreduce_rabenseifner", 6, 12, k), (2 * 2 + 2) * k.ts + (2 * part + 2) * n * k.tw + n * (1 + part) * k.gamma);
}

// Any m: blocks of ceil(n/p') and floor(n/p') words; halving step k and doubling step d+1-k move
// at most the first p'/2^k blocks, W(2^(k-1)) words (never empty: block 0 has a word).
TEST(FormulaReduce, AllreduceRabenseifnerUnevenBlocks) {
  for (int64_t p : {2, 3, 5, 6, 7, 8, 12, 13, 100})
    for (int64_t m : {1, 2, 5, 7, 100, 131})
      for (Costs k : kCosts) {
        const int64_t pp = pow2_below(p);
        double t = p == pp ? 0.0 : step(k, m, true) + step(k, m, false);  // fold-in and hand-back
        for (int64_t b = 1; b < pp; b *= 2) t += step(k, block_words(m, pp, 0, b), true) + step(k, block_words(m, pp, 0, b), false);
        EXPECT_DOUBLE_EQ(simulate("allreduce_rabenseifner", p, m, k), t) << p << " " << m;
      }
}

// Reduce, p' | n: the all-reduce's halving, then a gather moving (p'-1)/p' n words in d steps; a
// root in a pair is the member that survives it, so other p add one step, not two.
TEST(FormulaReduce, ReduceRabenseifnerPapersFormEveryRoot) {
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 12, 13, 16, 100})
    for (int64_t root = 0; root<p; root += p> 16 ? 33 : 1)
      for (Costs k : {kCosts[1], kCosts[2], kCosts[4]}) {
        const int64_t pp = pow2_below(p), m = 2 * pp;
        const double n = double(m), part = double(pp - 1) / double(pp);
        const double t = p == pp ? 2 * lg(p) * k.ts + 2 * n * part * k.tw + n * part * k.gamma
                                 : (2 * lg(p) + 1) * k.ts + (2 * part + 1) * n * k.tw + n * (1 + part) * k.gamma;
        EXPECT_DOUBLE_EQ(simulate("reduce_rabenseifner", p, m, k, root), t) << p << " root " << root;
      }
}

// Any m: gather step j moves the aligned ranges of 2^(j-1) blocks off the root's side; their
// index has its low bit 1 - bit (d-j) of the root's virtual rank v (pair j -> j, i >= 2r -> i - r),
// so the largest is the range with that index, possibly empty (then nobody sends).
TEST(FormulaReduce, ReduceRabenseifnerUnevenBlocks) {
  for (int64_t p : {2, 3, 6, 8, 13, 100})
    for (int64_t m : {1, 3, 7, 131})
      for (int64_t root : {int64_t{0}, p / 2, p - 1})
        for (Costs k : {kCosts[0], kCosts[2], kCosts[3]}) {
          const int64_t pp = pow2_below(p), r = p - pp, v = root < 2 * r ? root / 2 : root - r;
          const int d = lg(pp);
          double t = p == pp ? 0.0 : step(k, m, true);
          for (int64_t b = 1; b < pp; b *= 2) t += step(k, block_words(m, pp, 0, b), true);
          for (int j = 1; j <= d; ++j) {
            const int64_t span = int64_t{1} << (j - 1), low = 1 - ((v >> (d - j)) & 1);
            t += step(k, block_words(m, pp, low * span, (low + 1) * span), false);
          }
          EXPECT_DOUBLE_EQ(simulate("reduce_rabenseifner", p, m, k, root), t) << p << " " << m << " root " << root;
        }
}

// NCCL's ring: 2 (p-1) steps, each moving at most a ceil(n/p)-word chunk, combined in the first p-1.
TEST(FormulaReduce, AllreduceRing) {
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 12, 13, 64, 100})
    for (int64_t m : {p, 3 * p, int64_t{1}, int64_t{7}, 2 * p + 1})
      for (Costs k : kCosts) {
        const double t = m % p == 0 ? 2 * (p - 1) * k.ts + 2.0 * m * (p - 1) / p * k.tw + double(m) * (p - 1) / p * k.gamma
                                    : 2 * (p - 1) * k.ts + (p - 1) * ((m + p - 1) / p) * (2 * k.tw + k.gamma);
        EXPECT_DOUBLE_EQ(simulate("allreduce_ring", p, m, k), t) << p << " " << m;
      }
}

// Van de Geijn at p = 2^d, p | n: the paper's sum of a binomial scatter and a ring all-gather.
TEST(FormulaReduce, BroadcastVanDeGeijnPowerOfTwo) {
  for (int64_t p : kPow2Ps)
    for (int64_t blocks : {1, 5})
      for (int64_t root : {int64_t{0}, p - 1, p / 2 + 1})
        for (Costs k : kCosts) {
          const int64_t m = blocks * p;
          const double part = double(m) * (p - 1) / p;
          EXPECT_DOUBLE_EQ(simulate("broadcast_van_de_geijn", p, m, k, root % p), lg(p) * k.ts + part * k.tw + (p - 1) * k.ts + part * k.tw)
              << p << " root " << root;
        }
}

// Any p, any m: scatter step s (D = ceil(lg p) steps) at its largest sends rank 0's subtree
// [h, min(2h, p)), h = 2^(D-s), as uneven blocks (none: no time); each of the p-1 ring steps moves
// block 0, ceil(n/p) words.
TEST(FormulaReduce, BroadcastVanDeGeijnAnyP) {
  for (int64_t p : {3, 5, 6, 7, 12, 13, 100})
    for (int64_t m : {int64_t{1}, int64_t{4}, p, 3 * p + 2, int64_t{1000}})
      for (int64_t root : {int64_t{0}, int64_t{2}, p - 1})
        for (Costs k : {kCosts[0], kCosts[2], kCosts[4]}) {
          double t = (p - 1) * step(k, (m + p - 1) / p, false);
          for (int64_t h = pow2_below(p - 1); h >= 1; h /= 2) t += step(k, block_words(m, p, h, std::min(2 * h, p)), false);
          EXPECT_DOUBLE_EQ(simulate("broadcast_van_de_geijn", p, m, k, root), t) << p << " " << m << " root " << root;
        }
}

// Order: the halving algorithms fold aligned groups of processors in processor order, so the
// non-commutative operators verify at every p and root; the ring folds round the ring and is refused.
TEST(FormulaReduce, NonCommutativeOperators) {
  const Costs k{1, 1, 1};
  for (OperatorKind op : {OperatorKind::interval, OperatorKind::affine})
    for (int64_t p : {1, 2, 3, 5, 6, 7, 12, 13, 100})
      for (int64_t m : {1, 6}) {
        simulate("reduce_scatter_halving", p, m, k, 0, op);
        simulate("allreduce_rabenseifner", p, m, k, 0, op);
        for (int64_t root : {int64_t{0}, p / 2, p - 1}) {
          simulate("reduce_rabenseifner", p, m, k, root, op);
          simulate("broadcast_van_de_geijn", p, m, k, root, op);
        }
        if (p > 1) {
          RunConfig c = make_config("allreduce_ring", TopologyKind::full, p, "", m, op);
          EXPECT_THROW(run_cpu(c), ConfigError);
        }
      }
}

// Träff's layout counts the pairs' positions before P in O(d^2); against counting them one by one.
TEST(FormulaReduce, BitReversedLayoutCountsPairs) {
  for (int d = 0; d <= 7; ++d)
    for (int64_t r = 0; r < (int64_t{1} << d); ++r) {
      const BitReversedBlocks layout{1, r, d};
      int64_t count = 0;
      for (int64_t P = 0; P <= (int64_t{1} << d); ++P) {
        EXPECT_EQ(layout.pairs_before(P), count) << "d=" << d << " r=" << r << " P=" << P;
        if (P < (int64_t{1} << d) && reverse_bits(P, d) < r) ++count;
      }
    }
}
