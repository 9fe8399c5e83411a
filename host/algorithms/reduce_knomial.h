// k-nomial reduction (radix k = --radix): broadcast_knomial's tree run backwards, rounds d..1, the
// children of a round still in ascending j (K = --ports of them per step). A parent x's partial
// covers ranks [x, x + u) and child j's [x + j u, x + (j+1) u): folding them in on the right in
// ascending j keeps rank order, so a non-commutative ⊕ needs root 0 (ranks relative to the root).
// Every receive combines m words:
//   T = ((d - 1) ceil((k - 1)/K) + ceil(c_1/K))(t_s + t_w n + gamma n),  = ceil(log_k p)(t_s + (t_w + gamma) n)
// for K >= k - 1 (c_1 as in knomial_pattern.h); k = 2 is reduce_binomial (eq. 4-1). A parent combining
// several children in one step pays gamma n once: the engine charges each message its own combine.
#pragma once
#include "algorithms/knomial_pattern.h"

namespace ppsim {

struct ReduceKnomial : AlgorithmDefaults {
  static constexpr const char* name = "reduce_knomial";
  static constexpr const char* description = "k-nomial tree relative to the root (--radix k), run backwards; K = --ports children per step";
  static constexpr const char* formula_text =
      "ceil(log_k p)(t_s + t_w m + gamma m) under k-port, K >= k - 1; k - 1 receives K at a time otherwise";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kRootZeroIfNoncommutative;
  static const char* rejects(const AlgoParams& a) { return knomial_limit(a); }

  static int rounds(const AlgoParams& a) { return knomial_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * double(a.m)) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    KnomialStep st;
    if (!knomial_locate(a, round, true, st)) return;
    const int64_t rank = pos_mod(id - a.root, a.p), u = st.unit;
    if (rank % (a.radix * u) == 0) {  // folds in children first..last of this step, nearest first
      for (int64_t j = st.first; j <= st.last && rank + j * u < a.p; ++j) {
        const int64_t child = pos_mod(id + j * u, a.p);
        out.add_recv(child, kData, 0, a.m, fold_mode(id, child));
      }
    } else if (rank % u == 0) {  // sends its partial to rank - j u in the step that serves j
      const int64_t j = (rank / u) % a.radix;
      if (j >= st.first && j <= st.last) out.add_send(pos_mod(id - j * u, a.p), kData, 0, a.m);
    }
  }
};

}  // namespace ppsim
