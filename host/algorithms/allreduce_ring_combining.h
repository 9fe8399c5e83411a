// All-reduce with the ring all-to-all broadcast pattern, combining instead of concatenating
// (textbook exercise 4.6 strategy iii): each step every processor passes on the vector it received
// last and folds it into its sum. The folds go round the ring, so ⊕ must be commutative.
// p - 1 steps. T = (t_s + t_w m)(p - 1).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AllreduceRingCombining : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_ring_combining";
  static constexpr const char* description = "pass vectors round the ring, folding as they pass (exercise 4.6 iii)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m)(p - 1)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;
  static constexpr int32_t kPassing = 1;  // scratch: the vector being passed on

  static int64_t scratch_words(const AlgoParams& a) { return a.m; }
  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * double(a.p - 1); }

  // One send and one receive (of two actions) a round: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int, Ops& out) {
    int64_t right = id + 1 == a.p ? 0 : id + 1, left = id == 0 ? a.p - 1 : id - 1;
    out.add_send(right, kPassing, 0, a.m);
    out.add_recv(left, kPassing, 0, a.m, RecvMode::copy);
    out.add_action(kData, 0, RecvMode::recv_op_slot);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kPassing][w] = b.buf[kData][w];
  }
};

}  // namespace ppsim
