// Prefix on a ring or linear array: a pipeline along the line, p - 1 steps; in step i processor
// i - 1 hands its inclusive prefix (kept in `partial`) to processor i, which folds it in on the
// left (and, for --exclusive, keeps the received prefix as its result). T = (t_s + t_w m)(p - 1).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ScanRing : AlgorithmDefaults {
  static constexpr const char* name = "scan_ring";
  static constexpr const char* description = "prefix passed down a linear array, p - 1 steps; inclusive or exclusive";
  static constexpr const char* formula_text = "(t_s + (t_w + 2 gamma) m)(p - 1)  (two folds a step)";
  static constexpr Operation op = Operation::scan;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear);
  static constexpr uint32_t flags = kNeedsNEqualsP | kSupportsExclusive;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + 2 * c.gamma) * a.m) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (id == round - 1) out.add_send(id + 1, kPartial, 0, a.m);
    if (id == round) {
      out.add_recv(id - 1, kPartial, 0, a.m, RecvMode::recv_op_slot);
      out.add_action(kData, 0, a.exclusive ? RecvMode::copy : RecvMode::recv_op_slot);
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind k, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase != LocalPhase::before_first_step) return;
    for (int64_t w = 0; w < a.m; ++w) {
      b.buf[kPartial][w] = b.buf[kData][w];
      if (a.exclusive) b.buf[kData][w] = operator_identity(k);
    }
  }
};

}  // namespace ppsim
