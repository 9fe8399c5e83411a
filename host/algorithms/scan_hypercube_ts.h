// Hypercube prefix as the group-operations slides (Cube_Prefix_Sum) write it: t_i (partial sum of
// the subcube) and s_i (partial prefix) start at a_i; in step j P_i and P_k, k = i with bit j
// flipped, swap t; P_i sets t_i := t_i ⊕ b_i and, when bit j of i is 1, s_i := s_i ⊕ b_i. The
// received value goes on the right, as the slides write it for sums, so ⊕ must be commutative
// (scan_hypercube keeps the order for any ⊕). log p steps. T = (t_s + t_w m) log p.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ScanHypercubeTs : AlgorithmDefaults {
  static constexpr const char* name = "scan_hypercube_ts";
  static constexpr const char* description = "the slides' Cube_Prefix_Sum with t_i / s_i, received value on the right";
  static constexpr const char* formula_text = "(t_s + (t_w + 2 gamma) m) log p  (two folds a step)";
  static constexpr Operation op = Operation::scan;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsNEqualsP | kCommutativeOnly;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + 2 * c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)  // t_i := a_i (s_i is the data buffer, already a_i)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kPartial][w] = b.buf[kData][w];
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int64_t bit = int64_t{1} << (round - 1), partner = id ^ bit;
    out.add_send(partner, kPartial, 0, a.m);
    out.add_recv(partner, kPartial, 0, a.m, RecvMode::slot_op_recv);  // t_i := t_i ⊕ b_i
    if (id & bit) out.add_action(kData, 0, RecvMode::slot_op_recv);   // s_i := s_i ⊕ b_i
  }
};

}  // namespace ppsim
