// Binomial broadcast, farthest first (textbook Fig. 4-2 on a ring / linear array; exercise 4.1 for
// any p). Ranks are relative to the root: rank = (id - root) mod p. ceil(log2 p) steps; in step r
// every rank holding the message sends it 2^(d-r) ranks ahead. On a ring no two messages of a
// step share a link. T = (t_s + t_w m) ceil(log2 p)  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BroadcastBinomial : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_binomial";
  static constexpr const char* description = "binomial tree on ranks relative to the root, farthest first (Fig. 4-2)";
  static constexpr const char* formula_text = "(t_s + t_w m) ceil(log2 p)  [eq. 4-1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native =
      topo_bit(TopologyKind::linear) | topo_bit(TopologyKind::ring) | kSwitchedNetworks | kProcessorTrees;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    tree_broadcast_ops(a, id, round, true, RankMap::relative, out);
  }
};

}  // namespace ppsim
