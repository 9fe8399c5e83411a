// Rabenseifner's all-reduce for any p (Thakur, Rabenseifner, Gropp 2005; MPICH): the n = m words
// are p' = 2^floor(lg p) blocks (the first n mod p' of ceil(n/p') words, the rest floor(n/p'));
// a recursive-halving reduce-scatter (lowest dimension first, recursive_halving.h) leaves block
// rev(v) complete on virtual rank v, and a recursive-doubling all-gather spreads the blocks back.
// When p is not a power of two, the r = p - p' pairs (2j, 2j+1) first fold into the odd member
// (n words combined) and the odd member hands the result back at the end (n words).
// Folds cover aligned groups of processors, so any associative ⊕ works. Empty blocks (n < p') are
// not sent. 2 lg p' steps, + 2 when r > 0.
//
// With W(b) = b floor(n/p') + min(b, n mod p') >= 1 the words of the first b blocks (the largest b
// blocks any message of a step carries):
//   T = [r > 0] (2 t_s + (2 t_w + gamma) n) + sum_{k=1..d} (2 t_s + (2 t_w + gamma) W(2^(k-1))).
// p' | n: T = 2 lg p t_s + 2 n (p-1)/p t_w + n (p-1)/p gamma at p = 2^d, and otherwise
// (2 floor(lg p) + 2) t_s + (2 (p'-1)/p' + 2) n t_w + n (1 + (p'-1)/p') gamma: the paper's form
// with p' where it writes p (its p is exact only at p = 2^d).
#pragma once
#include "algorithms/recursive_halving.h"

namespace ppsim {

// The fold-in and halving part of the time above (the reduce shares it).
inline double rabenseifner_halving_time(const AlgoParams& a, const CostParams& c) {
  const HalvingGroup g = halving_group(a.p, -1);
  const EvenSplit blocks{a.m, g.pp};
  double t = g.r > 0 ? largest_message_time(c, a.m, true) : 0.0;  // the fold-in
  for (int k = 1; k <= g.d; ++k) t += largest_message_time(c, blocks.offset(g.pp >> k), true);
  return t;
}

struct AllreduceRabenseifner : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_rabenseifner";
  static constexpr const char* description = "recursive-halving reduce-scatter, recursive-doubling all-gather; any p, any m (Rabenseifner)";
  static constexpr const char* formula_text =
      "2 lg p t_s + (2 t_w + gamma) n (p-1)/p at p = 2^d; else (2 lg p' + 2) t_s + (2 (p'-1)/p' + 2) n t_w + (1 + (p'-1)/p') n gamma, "
      "p' = 2^floor(lg p) (p' | n)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  PPSIM_HD static int rounds(const AlgoParams& a) {
    const HalvingGroup g = halving_group(a.p, -1);
    return 2 * g.d + (g.r > 0 ? 2 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const HalvingGroup g = halving_group(a.p, -1);
    const EvenSplit blocks{a.m, g.pp};
    double t = rabenseifner_halving_time(a, c);
    for (int j = 1; j <= g.d; ++j) t += largest_message_time(c, blocks.offset(int64_t{1} << (j - 1)), false);
    return g.r > 0 ? t + largest_message_time(c, a.m, false) : t;  // + the hand-back
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const HalvingGroup g = halving_group(a.p, -1);
    if (g.r > 0) {
      if (round == 1 || round == 2 * g.d + 2) {  // fold into the odd member first, hand back last
        if (id >= 2 * g.r) return;
        const bool into_me = (round == 1) != folded_away(g, id);
        if (into_me) out.add_recv(id ^ 1, kData, 0, a.m, round == 1 ? fold_mode(id, id ^ 1) : RecvMode::copy);
        else out.add_send(id ^ 1, kData, 0, a.m);
        return;
      }
      if (folded_away(g, id)) return;
      round -= 1;
    }
    const int64_t v = virtual_rank(g, id);
    const EvenSplit blocks{a.m, g.pp};
    if (round <= g.d) halving_step(g, blocks, v, round, kData, out);
    else doubling_step(g, blocks, v, round - g.d, kData, out);
  }
};

}  // namespace ppsim
