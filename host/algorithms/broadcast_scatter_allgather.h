// Broadcast by message splitting (textbook §4.7.1, eq. 4-13): the source scatters its m words as p
// blocks of m/p over the hypercube (Fig. 4-15), then an all-gather gives everyone all blocks.
// 2 log p steps. T = 2 (t_s log p + t_w (m/p)(p - 1))  [eq. 4-13].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct BroadcastScatterAllgather : AlgorithmDefaults, MessageSplitting {
  static constexpr const char* name = "broadcast_scatter_allgather";
  static constexpr const char* description = "scatter m/p-word blocks, then all-gather them (eq. 4-13)";
  static constexpr const char* formula_text = "2 (t_s log p + t_w (m/p)(p - 1))  [eq. 4-13]";
  static constexpr Operation op = Operation::broadcast;
  using MessageSplitting::flags;
  using MessageSplitting::formula;
  using MessageSplitting::native;
  using MessageSplitting::rounds;
  using MessageSplitting::topologies;

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int d = ceil_log2(a.p);
    const int64_t b = a.m / a.p;
    if (round <= d) hypercube_scatter_step(a.p, a.root, id, round, kData, b, out);
    else hypercube_ag_step(id, round - d, kData, b, out);
  }
};

}  // namespace ppsim
