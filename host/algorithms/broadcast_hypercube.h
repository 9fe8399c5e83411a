// Hypercube broadcast from any source (textbook Algs. 4-1 and 4-2): ids are relabelled id ^ source,
// then in step r the holders send across dimension d - r (highest first). log p steps, p = 2^d;
// congestion-free on a hypercube and, mapped as in Fig. 4-7, on a balanced binary tree.
// T = (t_s + t_w m) log p  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BroadcastHypercube : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_hypercube";
  static constexpr const char* description = "hypercube one-to-all broadcast from any source, highest dimension first (Algs. 4-1, 4-2)";
  static constexpr const char* formula_text = "(t_s + t_w m) log p  [eq. 4-1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    tree_broadcast_ops(a, id, round, true, RankMap::xor_root, out);
  }
};

}  // namespace ppsim
