// Hypercube reduction folding the highest dimension first (the dual of broadcast_hypercube_low_first).
// Partials are then strided sets of ids, so ⊕ must be commutative. log p steps, p = 2^d.
// T = (t_s + t_w m) log p without congestion  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct ReduceHypercubeHighFirst : AlgorithmDefaults {
  static constexpr const char* name = "reduce_hypercube_high_first";
  static constexpr const char* description = "hypercube reduction to any root, highest dimension first (dual of exercise 4.2)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m) log p without congestion  [eq. 4-1]";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kCommutativeOnly;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_reduce_ops(a, id, round, false, RankMap::xor_root, out);
  }
};

}  // namespace ppsim
