// Van de Geijn's broadcast for any p and any root (as Thakur, Rabenseifner and Gropp 2005 describe
// it; MPICH's scatter + ring all-gather): the n = m words are p blocks on ranks relative to the
// root (block q, the first n mod p of ceil(n/p) words, the rest floor(n/p), belongs to rank
// q = id - root mod p);
//   binomial scatter, D = ceil(lg p) steps, farthest first: in step s the holder of rank q passes
//     ranks [q + h, min(q + 2h, p)) to q + h, h = 2^(D-s) (one contiguous slice);
//   ring all-gather, p - 1 steps: rank q passes block (q - i + 1) mod p to q + 1.
// Empty blocks (n < p) are not sent. D + p - 1 steps. With W(a, b) the words of blocks [a, b) (a
// step whose largest message is empty costs nothing): the scatter's largest message in step s is
// rank 0's, W(h, min(2h, p)), and block 0, the largest, moves in every all-gather step:
//   T = sum_{s=1..D} (t_s + t_w W(2^(D-s), min(2^(D-s+1), p))) + (p - 1)(t_s + t_w ceil(n/p))
// which at p = 2^d with p | n is lg p t_s + n (p-1)/p t_w + (p-1) t_s + n (p-1)/p t_w. Nothing is
// combined: no gamma.
#pragma once
#include "algorithms/recursive_halving.h"
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BroadcastVanDeGeijn : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_van_de_geijn";
  static constexpr const char* description = "binomial scatter of p blocks, then a ring all-gather; any p, m, root (van de Geijn, MPICH)";
  static constexpr const char* formula_text =
      "sum_{k < ceil(lg p)} (t_s + t_w n_k) + (p - 1)(t_s + t_w ceil(n/p)), n_k = words of blocks [2^k, min(2^(k+1), p)); "
      "(lg p + p - 1) t_s + 2 n (p-1)/p t_w at p = 2^d, p | n";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p) + int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return formula_of(a, c, EvenSplit{a.m, a.p}); }
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) { ops_of(a, id, round, EvenSplit{a.m, a.p}, out); }

  // The time and the ops for any layout of the p blocks (offset(q): where block q starts; the
  // first block is the largest).
  template <class Layout>
  static double formula_of(const AlgoParams& a, const CostParams& c, const Layout& blocks) {
    const int steps = ceil_log2(a.p);
    double t = 0;
    for (int s = 1; s <= steps; ++s) {
      const int64_t h = int64_t{1} << (steps - s), end = 2 * h < a.p ? 2 * h : a.p;
      t += largest_message_time(c, blocks.offset(end) - blocks.offset(h), false);
    }
    return t + double(a.p - 1) * largest_message_time(c, blocks.offset(1) - blocks.offset(0), false);
  }
  template <class Layout>
  PPSIM_HD static void ops_of(const AlgoParams& a, int64_t id, int round, const Layout& blocks, StepOps& out) {
    const int steps = ceil_log2(a.p);
    const int64_t rank = pos_mod(id - a.root, a.p);
    if (round <= steps) {  // scatter: the subtree of ranks [first, first + span) moves as one slice
      const TreeStep s = tree_spread_step(rank, a.p, round, true);
      if (s.role == TreeRole::idle) return;
      const int64_t span = int64_t{1} << (steps - round), first = s.role == TreeRole::send ? s.partner : rank;
      const int64_t end = first + span < a.p ? first + span : a.p, words = blocks.offset(end) - blocks.offset(first);
      if (words == 0) return;
      if (s.role == TreeRole::send) out.add_send(pos_mod(s.partner + a.root, a.p), kData, blocks.offset(first), words);
      else out.add_recv(pos_mod(s.partner + a.root, a.p), kData, blocks.offset(first), words, RecvMode::copy);
      return;
    }
    const int i = round - steps;  // ring all-gather step i
    const int64_t out_block = pos_mod(rank - i + 1, a.p), in_block = pos_mod(rank - i, a.p);
    const int64_t out_words = blocks.offset(out_block + 1) - blocks.offset(out_block);
    const int64_t in_words = blocks.offset(in_block + 1) - blocks.offset(in_block);
    if (out_words > 0) out.add_send(pos_mod(id + 1, a.p), kData, blocks.offset(out_block), out_words);
    if (in_words > 0) out.add_recv(pos_mod(id - 1, a.p), kData, blocks.offset(in_block), in_words, RecvMode::copy);
  }
};

}  // namespace ppsim
