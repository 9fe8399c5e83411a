// Lin–Yeh Algorithm A: step-optimal prefix on n = p processors of a fully connected machine in
// the k-port postal model with latency lambda. With G from Theorem 1 and m = min{ j | G(j) >= p }:
//   step j (1 <= j <= m - lambda + 1): PE i sends c(i) to U(i,j) = { i + G(j+lambda-2) + t G(j-1) < p,
//                                      0 <= t < k };
//   step j (lambda <= j <= m):         PE i receives from W(i,j) = { i - G(j-1) - t G(j-lambda) >= 0 }
//                                      and sets c(i) := c(e1) ⊕ ... ⊕ c(eh) ⊕ c(i), e1 < ... < eh.
// After step j, c(i) = v(max(0, i-G(j)+1)) ⊕ ... ⊕ v(i) (the paper's Lemma 3), so m steps suffice:
// exactly the lower bound. Time under the postal model: m steps.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "ppsim/postal.h"

namespace ppsim {

struct ScanPostalA : AlgorithmDefaults {
  static constexpr const char* name = "scan_postal_a";
  static constexpr const char* description = "k-port postal prefix on n = p processors, min{j | G(j) >= p} steps (Lin–Yeh Algorithm A)";
  static constexpr const char* formula_text = "min{ j | G(j) >= p } steps  [Lin–Yeh Theorem 1]";
  static constexpr Operation op = Operation::scan;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kSwitchedNetworks;
  static constexpr uint32_t flags = kPostalNative | kNeedsNEqualsP;

  static int rounds(const AlgoParams& a) { return run_postal_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return a.lambda > 1 ? double(rounds(a)) : (c.ts + (c.tw + c.gamma) * a.m) * rounds(a);
  }

  // Sends of step s and the receives those messages meet in step s + lambda - 1.
  PPSIM_HD static void postal_prefix_ops(const AlgoParams& a, int64_t i, int s, int32_t first_slot, bool also_prefix, StepOps& out) {
    const int m = run_postal_steps(a);
    if (s > m - a.lambda + 1) return;
    const int64_t far = run_postal_g(a, s + a.lambda - 2), step = run_postal_g(a, s - 1);
    for (int t = 0; t < a.kports; ++t) {  // U(i, s)
      int64_t y = i + far + t * step;
      if (y < a.p) out.add_send(y, first_slot, 0, a.m);
    }
    for (int t = 0; t < a.kports; ++t) {  // W(i, s + lambda - 1), largest sender first: it folds in nearest
      int64_t x = i - far - t * step;
      if (x < 0) break;
      out.add_recv(x, first_slot, 0, a.m, RecvMode::recv_op_slot);
      if (also_prefix) out.add_action(kPrefix, 0, RecvMode::recv_op_slot);
    }
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) { postal_prefix_ops(a, id, round, kData, false, out); }
};

}  // namespace ppsim
