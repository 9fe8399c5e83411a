// k-nomial broadcast (radix k = --radix): knomial_pattern.h's tree on ranks relative to the root,
// d = ceil(log_k p) rounds; in each a processor holding the data sends it to up to k - 1 children,
// K = --ports of them per step. With c_1 = min(k - 1, floor((p - 1)/k^(d-1))):
//   T = ((d - 1) ceil((k - 1)/K) + ceil(c_1/K))(t_s + t_w n),  = ceil(log_k p)(t_s + t_w n) for K >= k - 1;
// k = 2 is broadcast_binomial (eq. 4-1).
#pragma once
#include "algorithms/knomial_pattern.h"

namespace ppsim {

struct BroadcastKnomial : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_knomial";
  static constexpr const char* description =
      "k-nomial tree relative to the root (--radix k), k - 1 children per round, K = --ports per step";
  static constexpr const char* formula_text = "ceil(log_k p)(t_s + t_w m) under k-port, K >= k - 1; k - 1 sends K at a time otherwise";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) { return knomial_limit(a); }

  static int rounds(const AlgoParams& a) { return knomial_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * double(a.m)) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    KnomialStep st;
    if (!knomial_locate(a, round, false, st)) return;
    const int64_t rank = pos_mod(id - a.root, a.p), u = st.unit;
    if (rank % (a.radix * u) == 0) {  // holds the data: children first..last of this step
      for (int64_t j = st.first; j <= st.last && rank + j * u < a.p; ++j) out.add_send(pos_mod(id + j * u, a.p), kData, 0, a.m);
    } else if (rank % u == 0) {  // child j of rank - j u, served in this step or another
      const int64_t j = (rank / u) % a.radix;
      if (j >= st.first && j <= st.last) out.add_recv(pos_mod(id - j * u, a.p), kData, 0, a.m, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
