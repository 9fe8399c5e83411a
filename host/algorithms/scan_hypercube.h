// Hypercube prefix (textbook Alg. 4-9, Fig. 4-13): log p steps; in step r processor i exchanges its
// subcube partial ("msg") with i ^ 2^(r-1), folds the received partial into it, and, when the
// partner is lower, also into its prefix ("result"). Partials are aligned blocks, so the folds keep
// processor order and any associative ⊕ works. With --exclusive the result starts as the identity.
// T = (t_s + t_w m) log p.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ScanHypercube : AlgorithmDefaults {
  static constexpr const char* name = "scan_hypercube";
  static constexpr const char* description = "prefix with the all-to-all broadcast pattern, result and msg buffers (Alg. 4-9)";
  static constexpr const char* formula_text = "(t_s + (t_w + 2 gamma) m) log p  (two folds a step)";
  static constexpr Operation op = Operation::scan;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsNEqualsP | kSupportsExclusive;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + 2 * c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind k, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase != LocalPhase::before_first_step) return;
    for (int64_t w = 0; w < a.m; ++w) {  // msg := my number; result := my number (exclusive: the identity)
      b.buf[kPartial][w] = b.buf[kData][w];
      if (a.exclusive) b.buf[kData][w] = operator_identity(k);
    }
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int64_t partner = id ^ (int64_t{1} << (round - 1));
    out.add_send(partner, kPartial, 0, a.m);
    out.add_recv(partner, kPartial, 0, a.m, fold_mode(id, partner));     // msg := msg ⊕ number (ordered)
    if (partner < id) out.add_action(kData, 0, RecvMode::recv_op_slot);  // result := number ⊕ result
  }
};

}  // namespace ppsim
