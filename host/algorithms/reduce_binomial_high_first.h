// Binomial reduction in the farthest-first order (the dual of broadcast_binomial_low_first):
// in step r ranks 2^(d-r) .. 2^(d-r+1)-1 send to rank - 2^(d-r). A partial then covers ranks
// q, q + 2^k, ... (not a contiguous range), so ⊕ must be commutative.
// T = (t_s + t_w m) ceil(log2 p) without congestion  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct ReduceBinomialHighFirst : AlgorithmDefaults {
  static constexpr const char* name = "reduce_binomial_high_first";
  static constexpr const char* description = "binomial tree relative to the root, farthest first (dual of broadcast_binomial_low_first)";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m) ceil(log2 p) without congestion  [eq. 4-1]";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_reduce_ops(a, id, round, false, RankMap::relative, out);
  }
};

}  // namespace ppsim
