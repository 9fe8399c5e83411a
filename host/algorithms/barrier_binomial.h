// Binomial barrier: the arrivals gathered up a binomial tree to processor 0 (reduce_binomial's
// pattern, root 0: every partial is a block of consecutive ids), then the release sent down the
// same tree (broadcast_binomial's). 2 ceil(log2 p) rounds of messages without data (their
// knowledge token is the simulator's and costs nothing): T = 2 t_s ceil(log2 p), twice the
// dissemination barrier's rounds, but p - 1 messages per phase instead of p per round.
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct BarrierBinomial : AlgorithmDefaults {
  static constexpr const char* name = "barrier_binomial";
  static constexpr const char* description = "gather the arrivals to 0 up a binomial tree, then release down it";
  static constexpr const char* formula_text = "2 t_s ceil(log2 p)";
  static constexpr Operation op = Operation::barrier;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return 2 * ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return c.ts * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int half = ceil_log2(a.p);
    // Ranks are ids (root 0): up the tree in rounds 1..half, down it in the rest.
    const TreeStep s = round <= half ? tree_collect_step(id, a.p, round, true) : tree_spread_step(id, a.p, round - half, true);
    if (s.role == TreeRole::send) out.add_send(s.partner, kData, 0, 1);
    else if (s.role == TreeRole::recv) out.add_recv(s.partner, kData, 0, 1, RecvMode::recv_op_slot);
  }
};

}  // namespace ppsim
