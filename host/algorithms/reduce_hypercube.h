// Hypercube reduction to any root (textbook Alg. 4-3 with the relabelling of Alg. 4-2): step r
// folds across dimension r - 1 (lowest first). Every partial is an aligned block of ids, so the
// fold keeps processor order and any associative ⊕ works. log p steps, p = 2^d.
// T = (t_s + t_w m) log p  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct ReduceHypercube : AlgorithmDefaults {
  static constexpr const char* name = "reduce_hypercube";
  static constexpr const char* description = "hypercube all-to-one reduction to any root, lowest dimension first (Alg. 4-3)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m) log p  [eq. 4-1]";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_reduce_ops(a, id, round, true, RankMap::xor_root, out);
  }
};

}  // namespace ppsim
