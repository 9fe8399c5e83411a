// Broadcast by message splitting (textbook §4.7.1, eq. 4-13): the source scatters its m words as p
// blocks of m/p over the hypercube (Fig. 4-15), then an all-gather gives everyone all blocks.
// 2 log p steps. T = 2 (t_s log p + t_w (m/p)(p - 1))  [eq. 4-13].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct BroadcastScatterAllgather : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_scatter_allgather";
  static constexpr const char* description = "scatter m/p-word blocks, then all-gather them (eq. 4-13)";
  static constexpr const char* formula_text = "2 (t_s log p + t_w (m/p)(p - 1))  [eq. 4-13]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsMDivisibleByP;

  static int rounds(const AlgoParams& a) { return 2 * ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return message_splitting_time(a, c); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int d = ceil_log2(a.p);
    const int64_t b = a.m / a.p;
    if (round <= d) hypercube_scatter_step(a.p, a.root, id, round, kData, b, out);
    else hypercube_ag_step(id, round - d, kData, b, out);
  }
};

}  // namespace ppsim
