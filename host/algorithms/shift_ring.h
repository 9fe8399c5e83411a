// Circular q-shift on a ring (textbook §4.6.1): every value moves min{q, p - q} neighbour steps the
// shorter way round, one step per round (the values in transit wait in a scratch word each).
// T = (t_s + t_w m) min{q, p - q}.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

PPSIM_HD inline int64_t shift_steps(const AlgoParams& a) {
  int64_t q = pos_mod(a.shift, a.p);
  return q <= a.p - q ? q : a.p - q;
}

struct ShiftRing : AlgorithmDefaults {
  static constexpr const char* name = "shift_ring";
  static constexpr const char* description = "neighbour steps the shorter way round, min{q, p - q} steps (§4.6.1)";
  static constexpr const char* formula_text = "(t_s + t_w m) min{q, p - q}";
  static constexpr Operation op = Operation::shift;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear) | kProcessorTrees;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kTransit = 2;  // scratch: the value passing through

  static int64_t scratch_words(const AlgoParams& a) { return a.m; }
  static int rounds(const AlgoParams& a) { return int(shift_steps(a)); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * double(shift_steps(a)); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t q = pos_mod(a.shift, a.p), steps = shift_steps(a), dir = q <= a.p - q ? 1 : -1;
    out.add_send(pos_mod(id + dir, a.p), round == 1 ? kData : kTransit, 0, a.m);
    out.add_recv(pos_mod(id - dir, a.p), round == steps ? kResult : kTransit, 0, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step && shift_steps(a) == 0)  // q = 0 (mod p): nothing moves
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][w];
  }
};

}  // namespace ppsim
