// Rabenseifner's reduce for any p and any root (Thakur, Rabenseifner, Gropp 2005; MPICH): the
// recursive-halving reduce-scatter of allreduce_rabenseifner over p' = 2^floor(lg p) uneven blocks,
// then a binomial gather of the blocks to the root (the halving undone towards it,
// recursive_halving.h). When p is not a power of two, the r = p - p' pairs (2j, 2j+1) first fold
// into one member: the root when it is in a pair, else the odd one, so the result needs no last
// step. Folds cover aligned groups of processors, so any associative ⊕ works at any root.
// 2 lg p' steps, + 1 when r > 0.
//
// W(b) = b floor(n/p') + min(b, n mod p') >= 1 words are the first b blocks; gather step j moves
// aligned ranges of 2^(j-1) blocks whose index has its low bit c_j = 1 - bit (d-j) of the root's
// virtual rank, the largest being G_j = W((c_j + 1) 2^(j-1)) - W(c_j 2^(j-1)) (0: nobody sends):
//   T = [r > 0] (t_s + (t_w + gamma) n) + sum_{k=1..d} (t_s + (t_w + gamma) W(2^(k-1)))
//       + sum_{j=1..d, G_j > 0} (t_s + t_w G_j).
// p' | n: T = 2 lg p t_s + 2 n (p-1)/p t_w + n (p-1)/p gamma at p = 2^d, and otherwise
// (2 floor(lg p) + 1) t_s + (2 (p'-1)/p' + 1) n t_w + n (1 + (p'-1)/p') gamma: one step and n t_w
// less than the paper's (2 lg p + 2) t_s + (2 (p-1)/p + 2) n t_w, which hands the result to an
// even root at the end.
#pragma once
#include "algorithms/allreduce_rabenseifner.h"
#include "algorithms/recursive_halving.h"

namespace ppsim {

struct ReduceRabenseifner : AlgorithmDefaults {
  static constexpr const char* name = "reduce_rabenseifner";
  static constexpr const char* description = "recursive-halving reduce-scatter, then binomial gather to the root; any p, m, root";
  static constexpr const char* formula_text =
      "2 lg p t_s + (2 t_w + gamma) n (p-1)/p at p = 2^d; else (2 lg p' + 1) t_s + (2 (p'-1)/p' + 1) n t_w + (1 + (p'-1)/p') n gamma, "
      "p' = 2^floor(lg p) (p' | n)";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) {
    const HalvingGroup g = halving_group(a.p, a.root);
    return 2 * g.d + (g.r > 0 ? 1 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const HalvingGroup g = halving_group(a.p, a.root);
    const EvenSplit blocks{a.m, g.pp};
    const int64_t vroot = virtual_rank(g, a.root);
    double t = rabenseifner_halving_time(a, c);
    for (int j = 1; j <= g.d; ++j) {
      const int64_t span = int64_t{1} << (j - 1), low = 1 - ((vroot >> (g.d - j)) & 1);
      t += largest_message_time(c, blocks.offset((low + 1) * span) - blocks.offset(low * span), false);
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const HalvingGroup g = halving_group(a.p, a.root);
    if (g.r > 0) {
      if (round == 1) {  // the pairs fold into their survivor
        if (id >= 2 * g.r) return;
        if (folded_away(g, id)) out.add_send(id ^ 1, kData, 0, a.m);
        else out.add_recv(id ^ 1, kData, 0, a.m, fold_mode(id, id ^ 1));
        return;
      }
      if (folded_away(g, id)) return;
      round -= 1;
    }
    const int64_t v = virtual_rank(g, id);
    const EvenSplit blocks{a.m, g.pp};
    if (round <= g.d) halving_step(g, blocks, v, round, kData, out);
    else halving_gather_step(g, blocks, v, virtual_rank(g, a.root), round - g.d, kData, out);
  }
};

}  // namespace ppsim
