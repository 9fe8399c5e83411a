// Circular q-shift in one step: every processor sends its m words straight to (x + q) mod p. On a
// hypercube with E-cube routing the p paths never share a link (textbook §4.6.2, exercise 4.22),
// so T = t_s + t_w m  [eq. 4-12] (plus t_h per hop, at most log p - gamma(q) hops).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ShiftEcube : AlgorithmDefaults {
  static constexpr const char* name = "shift_ecube";
  static constexpr const char* description = "one direct message per processor; congestion-free with E-cube routing (eq. 4-12)";
  static constexpr const char* formula_text = "t_s + t_w m  [eq. 4-12]";
  static constexpr Operation op = Operation::shift;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | kSwitchedNetworks | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return pos_mod(a.shift, a.p) == 0 ? 0 : 1; }
  static double formula(const AlgoParams& a, const CostParams& c) { return rounds(a) * (c.ts + c.tw * a.m); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int, StepOps& out) {
    const int64_t q = pos_mod(a.shift, a.p);
    out.add_send(pos_mod(id + q, a.p), kData, 0, a.m);
    out.add_recv(pos_mod(id - q, a.p), kResult, 0, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step && pos_mod(a.shift, a.p) == 0)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][w];
  }
};

}  // namespace ppsim
