// Recursive-halving reduce-scatter for any p (Thakur, Rabenseifner, Gropp 2005; MPICH), kept in
// processor order for any associative ⊕ by Träff's bit-reversed layout (Träff 2005, MPICH's
// non-commutative reduce-scatter). With p' = 2^d, d = floor(lg p), r = p - p':
//   fold-in  (r > 0): the pairs (2j, 2j+1), j < r, fold into the odd member: the even one sends its
//            whole p m words; virtual rank v then stands for blocks 2v, 2v+1 (v < r) or v + r;
//   halving  d steps, lowest dimension first (recursive_halving.h): v ends with position rev_d(v),
//            so before step 1 every processor lays its blocks out in a scratch buffer with
//            virtual rank v's blocks at position rev_d(v), and each message is one slice;
//   hand-back (r > 0): the odd member of each pair sends block 2j (m words) to 2j.
// Every fold covers an aligned group of processors, so any associative ⊕ works.
// d steps, + 2 when r > 0. Step k's largest message is the aligned range of positions holding the
// virtual ranks = 0 (mod 2^k): p'/2^k blocks and ceil(r/2^k) more for the pairs in it. n = p m:
//   T = [r > 0] (2 t_s + (t_w + gamma) n + t_w m) + sum_{k=1..d} (t_s + (t_w + gamma) m (p'/2^k + ceil(r/2^k))),
// which at p = 2^d is t_s lg p + (t_w + gamma) n (p-1)/p.
#pragma once
#include "algorithms/recursive_halving.h"

namespace ppsim {

// Träff's layout: position P holds virtual rank rev_d(P)'s blocks, two of m words for the pairs'
// ranks (below r), one otherwise.
struct BitReversedBlocks {
  int64_t m, r;
  int d;
  // Pairs' positions before P: the x < r with rev_d(x) < P. Split on the highest bit i where x < r
  // first differs (x: r's bits above i, 0 at bit i, any i low bits): rev_d(x) = rev_d(r's high bits)
  // + 2^(d-i) rev_i(low bits), the last ranging over [0, 2^i). O(d^2).
  PPSIM_HD int64_t pairs_before(int64_t P) const {
    int64_t count = 0;
    for (int i = 0; i < d; ++i) {
      if (((r >> i) & 1) == 0) continue;
      const int64_t fixed = reverse_bits((r >> (i + 1)) << (i + 1), d), unit = int64_t{1} << (d - i);
      if (P > fixed) {
        const int64_t below = (P - fixed + unit - 1) / unit, all = int64_t{1} << i;
        count += below < all ? below : all;
      }
    }
    return count;
  }
  PPSIM_HD int64_t offset(int64_t P) const { return m * (P + pairs_before(P)); }
};

struct ReduceScatterHalving : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_halving";
  static constexpr const char* description = "recursive halving on a bit-reversed layout (Träff), pairs folded first; any p";
  static constexpr const char* formula_text =
      "t_s lg p + (t_w + gamma) m (p - 1) at p = 2^d; else 2 t_s + (t_w + gamma) p m + t_w m + sum_{k=1..lg p'} (t_s + (t_w + gamma) m "
      "(p'/2^k + ceil(r/2^k))), p' = 2^floor(lg p), r = p - p'";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kReversed = 2;  // scratch: the p blocks in Träff's layout

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) {
    const HalvingGroup g = halving_group(a.p, -1);
    return g.d + (g.r > 0 ? 2 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const HalvingGroup g = halving_group(a.p, -1);
    double t = g.r > 0 ? largest_message_time(c, a.p * a.m, true) + largest_message_time(c, a.m, false) : 0.0;
    for (int k = 1; k <= g.d; ++k) {
      const int64_t step = int64_t{1} << k;
      t += largest_message_time(c, a.m * ((g.pp >> k) + (g.r + step - 1) / step), true);
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const HalvingGroup g = halving_group(a.p, -1);
    const BitReversedBlocks layout{a.m, g.r, g.d};
    if (g.r > 0) {
      if (round == 1) {  // the even member of each pair hands its whole vector to the odd one
        if (id >= 2 * g.r) return;
        if (folded_away(g, id)) out.add_send(id + 1, kReversed, 0, a.p * a.m);
        else out.add_recv(id - 1, kReversed, 0, a.p * a.m, fold_mode(id, id - 1));
        return;
      }
      if (round == g.d + 2) {  // the odd member returns block 2j, the first of the pair's two
        if (id >= 2 * g.r) return;
        if (folded_away(g, id)) out.add_recv(id + 1, kResult, 0, a.m, RecvMode::copy);
        else out.add_send(id - 1, kReversed, layout.offset(reverse_bits(id / 2, g.d)), a.m);
        return;
      }
      if (folded_away(g, id)) return;
      round -= 1;
    }
    halving_step(g, layout, virtual_rank(g, id), round, kReversed, out);
  }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    const HalvingGroup g = halving_group(a.p, -1);
    uint64_t *data = b.buf[kData], *reversed = b.buf[kReversed];
    if (phase == LocalPhase::before_first_step) {
      int64_t to = 0;  // position by position, virtual rank rev_d(P)'s one or two blocks
      for (int64_t P = 0; P < g.pp; ++P) {
        const int64_t v = reverse_bits(P, g.d), first = v < g.r ? 2 * v : v + g.r, words = (v < g.r ? 2 : 1) * a.m;
        for (int64_t w = 0; w < words; ++w) reversed[to + w] = data[first * a.m + w];
        to += words;
      }
      return;
    }
    if (folded_away(g, id)) return;  // its block came in the last step
    const BitReversedBlocks layout{a.m, g.r, g.d};
    const int64_t v = virtual_rank(g, id), from = layout.offset(reverse_bits(v, g.d)) + (id < 2 * g.r ? a.m : 0);
    for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = reversed[from + w];
  }
};

}  // namespace ppsim
