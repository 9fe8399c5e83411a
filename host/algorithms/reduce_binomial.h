// Binomial reduction: broadcast_binomial run backwards (nearest first). In step r, rank
// q = 2^(r-1) mod 2^r sends its partial result to q - 2^(r-1), which folds it in on the right;
// every partial covers a contiguous range of ranks. Ranks are relative to the root, so a
// non-commutative ⊕ needs root 0. T = (t_s + t_w m) ceil(log2 p)  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct ReduceBinomial : AlgorithmDefaults {
  static constexpr const char* name = "reduce_binomial";
  static constexpr const char* description = "binomial tree relative to the root, nearest first (dual of broadcast_binomial)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m) ceil(log2 p)  [eq. 4-1]";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native =
      topo_bit(TopologyKind::linear) | topo_bit(TopologyKind::ring) | kSwitchedNetworks | kProcessorTrees;
  static constexpr uint32_t flags = kRootZeroIfNoncommutative;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_reduce_ops(a, id, round, true, RankMap::relative, out);
  }
};

}  // namespace ppsim
