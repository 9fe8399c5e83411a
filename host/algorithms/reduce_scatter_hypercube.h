// Hypercube all-to-all reduction (textbook Alg. 4-8), lowest dimension first: in round r processor
// x sends x ^ 2^(r-1) the half of its remaining blocks that belongs to the partner's side and folds
// the partner's half of its own side in; messages shrink p/2, p/4, ..., 1 blocks. Every partial
// covers an aligned group of processors, so any associative ⊕ works.
// T = t_s log p + t_w m (p - 1).
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct ReduceScatterHypercube : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_hypercube";
  static constexpr const char* description = "halve the blocks across each dimension, log p steps (Alg. 4-8)";
  static constexpr const char* formula_text = "t_s log p + (t_w + gamma) m (p - 1)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return c.ts * rounds(a) + (c.tw + c.gamma) * double(a.m) * double(a.p - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) { hypercube_rs_step(a.p, id, round, kData, a.m, out); }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
