// Optimal broadcast in the k-port postal model: the spanning tree T_0 of Lin–Yeh §3.1, on ranks
// relative to the root. After step j - 1 ranks 0 .. G(j-1) - 1 hold the message; in step j each of
// them, x, sends to x + G(j+lambda-2) + t G(j-1) (< p, 0 <= t < k), received in step j + lambda - 1.
// min{ j | G(j) >= p } steps, the Theorem 1 bound.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "ppsim/postal.h"

namespace ppsim {

struct BroadcastPostal : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_postal";
  static constexpr const char* description = "k-port postal broadcast on Lin–Yeh's tree T_0, min{j | G(j) >= p} steps";
  static constexpr const char* formula_text = "min{ j | G(j) >= p } steps  [Lin–Yeh Theorem 1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kPostalNative;

  static int rounds(const AlgoParams& a) { return run_postal_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return a.lambda > 1 ? double(rounds(a)) : (c.ts + c.tw * a.m) * rounds(a);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int k = a.kports, lam = a.lambda, s = round;
    const int64_t rank = pos_mod(id - a.root, a.p);
    const int64_t holders = run_postal_g(a, s - 1), base = run_postal_g(a, s + lam - 2);
    if (rank < holders)
      for (int t = 0; t < k; ++t) {
        int64_t y = rank + base + t * holders;
        if (y < a.p) out.add_send(pos_mod(y + a.root, a.p), kData, 0, a.m);
      }
    if (rank >= base && rank < base + int64_t(k) * holders) {  // added to T_0 by this step's sends
      int64_t parent = (rank - base) % holders;
      out.add_recv(pos_mod(parent + a.root, a.p), kData, 0, a.m, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
