// Multicast (the group-operations slides: a broadcast to part of the machine): the farthest-first binomial tree over
// the members' ranks j (member j is processor root + j*stride mod p). Non-members take no part.
// ceil(log2 size) steps. T = (t_s + t_w m) ceil(log2 size).
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct MulticastBinomial : AlgorithmDefaults {
  static constexpr const char* name = "multicast_binomial";
  static constexpr const char* description = "binomial tree over the group's members, farthest first (the group-operations slides)";
  static constexpr const char* formula_text = "(t_s + t_w m) ceil(log2 size)";
  static constexpr Operation op = Operation::multicast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kAllTopologies;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return ceil_log2(multicast_size(a)); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t rank = multicast_rank(a, id);
    if (rank < 0) return;
    TreeStep s = tree_spread_step(rank, multicast_size(a), round, true);
    if (s.role == TreeRole::send) out.add_send(multicast_member(a, s.partner), kData, 0, a.m);
    if (s.role == TreeRole::recv) out.add_recv(multicast_member(a, s.partner), kData, 0, a.m, RecvMode::copy);
  }
};

}  // namespace ppsim
