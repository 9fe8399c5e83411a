// Block-wise hypercube and line patterns shared by the reduce-scatter, scatter/gather, all-to-all
// and message-splitting algorithms. A buffer is viewed as p blocks of `b` words; "block j" is the
// one that belongs to (or comes from) processor j.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "ppsim/operation.h"
#include "ppsim/schedule.h"

namespace ppsim {

// Hypercube reduce-scatter, lowest dimension first (textbook Alg. 4-8 in the order that keeps
// folds contiguous). Round r (k = r - 1): processor x sends to x ^ 2^k the blocks whose index
// agrees with x below bit k and differs at bit k (every 2^(k+1)-th block, runs of one block), and
// folds the partner's copy of the blocks agreeing with x up to bit k into its own. The partials
// then cover aligned groups of processors, so any associative ⊕ works. Messages: p/2, p/4, ...
PPSIM_HD inline void hypercube_rs_step(int64_t p, int64_t x, int round, int32_t buf, int64_t b, StepOps& out) {
  const int64_t bit = int64_t{1} << (round - 1), low = x & (bit - 1), mine = x & bit;
  const int64_t partner = x ^ bit, stride = 2 * bit * b, count = p / (2 * bit);
  out.add_send_strided(partner, buf, (low + (bit - mine)) * b, b, stride, count);
  out.add_recv_strided(partner, buf, (low + mine) * b, b, stride, count, fold_mode(x, partner));
}

// Hypercube all-gather, lowest dimension first (Alg. 4-7): round r exchanges the aligned group of
// 2^(r-1) blocks that holds x's own.
PPSIM_HD inline void hypercube_ag_step(int64_t x, int round, int32_t buf, int64_t b, StepOps& out) {
  const int64_t half = int64_t{1} << (round - 1), partner = x ^ half;
  out.add_send(partner, buf, (x & ~(half - 1)) * b, half * b);
  out.add_recv(partner, buf, (partner & ~(half - 1)) * b, half * b, RecvMode::copy);
}

// Hypercube scatter from `root` (Fig. 4-15), highest dimension first, on ids relabelled x ^ root:
// a holder passes the blocks of the upper half of its subcube, an aligned run of real ids.
PPSIM_HD inline void hypercube_scatter_step(int64_t p, int64_t root, int64_t x, int round, int32_t buf, int64_t b, StepOps& out) {
  const int d = ceil_log2(p);
  const int64_t bit = int64_t{1} << (d - round), v = x ^ root;
  if ((v & (2 * bit - 1)) == 0) {
    int64_t to = (v + bit) ^ root;
    out.add_send(to, buf, (to & ~(bit - 1)) * b, bit * b);
  } else if ((v & (2 * bit - 1)) == bit) {
    out.add_recv((v - bit) ^ root, buf, (x & ~(bit - 1)) * b, bit * b, RecvMode::copy);
  }
}

// Hypercube gather to `root`, lowest dimension first: the reverse of hypercube_scatter_step.
PPSIM_HD inline void hypercube_gather_step(int64_t root, int64_t x, int round, int32_t buf, int64_t b, StepOps& out) {
  const int64_t bit = int64_t{1} << (round - 1), v = x ^ root;
  if ((v & (2 * bit - 1)) == bit) {
    out.add_send((v - bit) ^ root, buf, (x & ~(bit - 1)) * b, bit * b);
  } else if ((v & (2 * bit - 1)) == 0) {
    int64_t from = (v + bit) ^ root;
    out.add_recv(from, buf, (from & ~(bit - 1)) * b, bit * b, RecvMode::copy);
  }
}

// Time of the message-splitting forms (eqs. 4-13, 4-14): two log p phases moving (p - 1) blocks
// of m/p words each.
inline double message_splitting_time(const AlgoParams& a, const CostParams& c) {
  return 2 * (c.ts * ceil_log2(a.p) + c.tw * double(a.m / a.p) * double(a.p - 1));
}

// What the message-splitting algorithms (§4.7.1) share: p = 2^d, m a multiple of p, two log p
// phases, and the closed form above.
struct MessageSplitting {
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsMDivisibleByP;
  PPSIM_HD static int rounds(const AlgoParams& a) { return 2 * ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return message_splitting_time(a, c); }
};

// Ring all-gather step (Alg. 4-4): in step i, pass block (id - i + 1) mod p (the one received
// last) to the right, receive block (id - i) mod p from the left.
template <class Ops>
PPSIM_HD void ring_allgather_step(int64_t p, int64_t id, int i, int32_t buf, int64_t b, Ops& out) {
  out.add_send(pos_mod(id + 1, p), buf, pos_mod(id - i + 1, p) * b, b);
  out.add_recv(pos_mod(id - 1, p), buf, pos_mod(id - i, p) * b, b, RecvMode::copy);
}

// Ring reduce-scatter on a line of n members (textbook Alg. 4-5): member c holds one unit of
// `unit` words per member at base + u*unit; in step i it passes its partial of unit (c+i) mod n to
// the left and folds the right neighbour's partial of unit (c+i+1) mod n into its own. After
// n - 1 steps unit c holds every member's contribution (in ring order: ⊕ must be commutative).
PPSIM_HD inline void line_rs_step(int64_t n, int64_t c, int64_t left, int64_t right, int32_t buf, int64_t base, int64_t unit, int i,
                                  StepOps& out) {
  out.add_send(left, buf, base + pos_mod(c + i, n) * unit, unit);
  out.add_recv(right, buf, base + pos_mod(c + i + 1, n) * unit, unit, RecvMode::recv_op_slot);
}

}  // namespace ppsim
