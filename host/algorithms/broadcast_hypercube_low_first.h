// Hypercube broadcast, lowest dimension first (textbook exercise 4.2): in step r the holders send
// across dimension r - 1. Same log p steps on a hypercube; mapped onto a ring the later, longer
// messages share links. T on a hypercube = (t_s + t_w m) log p  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BroadcastHypercubeLowFirst : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_hypercube_low_first";
  static constexpr const char* description = "hypercube broadcast from any source, lowest dimension first (exercise 4.2)";
  static constexpr const char* formula_text = "(t_s + t_w m) log p without congestion  [eq. 4-1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_broadcast_ops(a, id, round, false, RankMap::xor_root, out);
  }
};

}  // namespace ppsim
