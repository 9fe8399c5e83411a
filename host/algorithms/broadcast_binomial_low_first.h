// Binomial broadcast, nearest first (textbook exercise 4.2): in step r the 2^(r-1) ranks holding
// the message send it 2^(r-1) ranks ahead. Same step count as broadcast_binomial, but on a ring
// or linear array the long late messages overlap: congestion up to p/4 on one link.
// T on a hypercube = (t_s + t_w m) log p; on a ring the simulated congestion adds to it.
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BroadcastBinomialLowFirst : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_binomial_low_first";
  static constexpr const char* description = "binomial tree relative to the root, nearest first (exercise 4.2)";
  static constexpr const char* formula_text = "(t_s + t_w m) ceil(log2 p) without congestion  [eq. 4-1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_broadcast_ops(a, id, round, false, RankMap::relative, out);
  }
};

}  // namespace ppsim
