// Ring all-to-all reduction (textbook Alg. 4-5): p - 1 steps; in step i processor x passes its
// partial of block (x+i) mod p to the left and folds the right neighbour's partial of block
// (x+i+1) mod p into its own; after step p - 1 block x holds every processor's contribution, which
// becomes the result. Partials grow round the ring, so ⊕ must be commutative.
// T = (t_s + t_w m)(p - 1).
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct ReduceScatterRing : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_ring";
  static constexpr const char* description = "pass partial sums round a ring, p - 1 steps (Alg. 4-5)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m)(p - 1)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native =
      topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear) | kSwitchedNetworks | kProcessorTrees;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    line_rs_step(a.p, id, pos_mod(id - 1, a.p), pos_mod(id + 1, a.p), kData, 0, a.m, round, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
