// Recursive halving and doubling for any p (Thakur, Rabenseifner, Gropp 2005; MPICH's
// reduce_scatter / allreduce / reduce "rsag" paths), shared by reduce_scatter_halving,
// allreduce_rabenseifner and reduce_rabenseifner.
//
// Fold-in. p' = 2^d with d = floor(lg p), r = p - p'. The pairs (2j, 2j+1), j < r, first fold into
// one member, the survivor (the odd one, or the reduce root when it is the even one); the p'
// survivors take virtual ranks v: pair j -> j, processor i >= 2r -> i - r. The map is monotone, so
// an aligned group of 2^k virtual ranks stands for a contiguous range of processors.
//
// Halving, lowest dimension first. The data is p' blocks at positions 0 .. p'-1. Step k (1..d)
// pairs v with v ^ 2^(k-1); their common range of positions is split in two and v keeps the lower
// half when bit k-1 of v is 0, sends the other half and folds the partner's copy of its own half
// in. After step k, v holds the p'/2^k positions from rev_d(v mod 2^k) on (rev_d reverses d bits):
//
//   p' = 8   before: every v holds [0, 8)
//   step 1   0<->1 2<->3 4<->5 6<->7   even v keep [0, 4), odd v keep [4, 8)
//   step 2   0<->2 1<->3 4<->6 5<->7   v = 0 keeps [0, 2), 2: [2, 4), 1: [4, 6), 3: [6, 8) ...
//   step 3   0<->4 1<->5 2<->6 3<->7   v ends with position rev_3(v): 0, 4, 2, 6, 1, 5, 3, 7
//
// Every partial covers an aligned group of virtual ranks, and the partner's group lies wholly on
// one side, so fold_mode keeps any associative ⊕ in processor order. Every aligned range of
// p'/2^k positions is sent by someone in step k, so with blocks that shrink with the position
// (even_split) the largest message of step k is the first range [0, p'/2^k).
//
// Doubling (all-gather) runs the halving backwards: step j exchanges the ranges held after halving
// step d+1-j. A binomial gather to one virtual rank does the same, the member off the root's side
// sending and the other receiving.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct HalvingGroup {
  int d;         // halving steps: floor(lg p)
  int64_t pp;    // p' = 2^d processors take part
  int64_t r;     // p - p': the pairs (2j, 2j+1), j < r, fold first
  int64_t keep;  // a processor that survives its pair even when it is the even member, or -1
};

PPSIM_HD inline HalvingGroup halving_group(int64_t p, int64_t keep) {
  const int d = floor_log2(p);
  return HalvingGroup{d, int64_t{1} << d, p - (int64_t{1} << d), keep};
}
PPSIM_HD inline int64_t pair_survivor(const HalvingGroup& g, int64_t j) { return g.keep >= 0 && g.keep / 2 == j ? g.keep : 2 * j + 1; }
// True for the member of a pair that hands its vector over and waits.
PPSIM_HD inline bool folded_away(const HalvingGroup& g, int64_t id) { return id < 2 * g.r && pair_survivor(g, id / 2) != id; }
PPSIM_HD inline int64_t virtual_rank(const HalvingGroup& g, int64_t id) { return id < 2 * g.r ? id / 2 : id - g.r; }
PPSIM_HD inline int64_t virtual_id(const HalvingGroup& g, int64_t v) { return v < g.r ? pair_survivor(g, v) : v + g.r; }

PPSIM_HD inline int64_t reverse_bits(int64_t x, int d) {
  int64_t y = 0;
  for (int i = 0; i < d; ++i) y |= ((x >> i) & 1) << (d - 1 - i);
  return y;
}
// The first of the p'/2^k positions v holds after halving step k (k = 0: all of them).
PPSIM_HD inline int64_t halving_first(const HalvingGroup& g, int64_t v, int k) { return reverse_bits(v & ((int64_t{1} << k) - 1), g.d); }

// n words as `parts` blocks: the first n mod parts of ceil(n/parts) words, the others
// floor(n/parts) (some empty when n < parts). Block i starts at offset(i).
struct EvenSplit {
  int64_t n, parts;
  PPSIM_HD int64_t offset(int64_t i) const {
    const int64_t q = n / parts, rem = n % parts;
    return i * q + (i < rem ? i : rem);
  }
};

// Halving step k of virtual rank v (buffer laid out by `layout`: offset(position)). An empty half
// (no words) is not sent; the partner computes the same and posts no receive.
template <class Layout>
PPSIM_HD inline void halving_step(const HalvingGroup& g, const Layout& layout, int64_t v, int k, int32_t buf, StepOps& out) {
  const int64_t pv = v ^ (int64_t{1} << (k - 1)), id = virtual_id(g, v), partner = virtual_id(g, pv), count = g.pp >> k;
  const int64_t mine = halving_first(g, v, k), theirs = halving_first(g, pv, k);
  const int64_t send_words = layout.offset(theirs + count) - layout.offset(theirs);
  const int64_t recv_words = layout.offset(mine + count) - layout.offset(mine);
  if (send_words > 0) out.add_send(partner, buf, layout.offset(theirs), send_words);
  if (recv_words > 0) out.add_recv(partner, buf, layout.offset(mine), recv_words, fold_mode(id, partner));
}

// The positions v and its partner hold while undoing halving step k: v sends its own, and
// receives the partner's if `receive` (both, in the all-gather; one way, in the gather).
template <class Layout>
PPSIM_HD inline void undo_halving(const HalvingGroup& g, const Layout& layout, int64_t v, int k, bool send, bool receive, int32_t buf,
                                  StepOps& out) {
  const int64_t pv = v ^ (int64_t{1} << (k - 1)), partner = virtual_id(g, pv), count = g.pp >> k;
  const int64_t mine = halving_first(g, v, k), theirs = halving_first(g, pv, k);
  const int64_t send_words = layout.offset(mine + count) - layout.offset(mine);
  const int64_t recv_words = layout.offset(theirs + count) - layout.offset(theirs);
  if (send && send_words > 0) out.add_send(partner, buf, layout.offset(mine), send_words);
  if (receive && recv_words > 0) out.add_recv(partner, buf, layout.offset(theirs), recv_words, RecvMode::copy);
}

// Recursive-doubling all-gather, step j (1..d): the reverse of halving step d+1-j.
template <class Layout>
PPSIM_HD inline void doubling_step(const HalvingGroup& g, const Layout& layout, int64_t v, int j, int32_t buf, StepOps& out) {
  undo_halving(g, layout, v, g.d + 1 - j, true, true, buf, out);
}

// Binomial gather to virtual rank vroot, step j (1..d): of the pairs across bit d-j that agree with
// vroot above it, the member off vroot's side sends what it has gathered.
template <class Layout>
PPSIM_HD inline void halving_gather_step(const HalvingGroup& g, const Layout& layout, int64_t v, int64_t vroot, int j, int32_t buf,
                                         StepOps& out) {
  const int k = g.d + 1 - j;
  if (((v ^ vroot) >> k) != 0) return;  // handed its range on in an earlier step
  const bool off_side = ((v ^ vroot) >> (k - 1)) & 1;
  undo_halving(g, layout, v, k, off_side, !off_side, buf, out);
}

// Time of one step whose largest message has `words` words (no message at all: nothing), with
// gamma per word when the receive combines.
inline double largest_message_time(const CostParams& c, int64_t words, bool combines) {
  return words > 0 ? c.ts + c.tw * double(words) + (combines ? c.gamma * double(words) : 0.0) : 0.0;
}

}  // namespace ppsim
