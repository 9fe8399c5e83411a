// Reduction by message splitting (textbook §4.7.1): a hypercube reduce-scatter of m/p-word blocks
// leaves block x complete on x, then a gather brings the p blocks to the root. Folds cover aligned
// groups, so any associative ⊕ works. 2 log p steps. T = 2 (t_s log p + t_w (m/p)(p - 1)).
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct ReduceRsGather : AlgorithmDefaults, MessageSplitting {
  static constexpr const char* name = "reduce_rs_gather";
  static constexpr const char* description = "reduce-scatter m/p-word blocks, then gather them to the root (§4.7.1)";
  static constexpr const char* formula_text = "2 (t_s log p + t_w (m/p)(p - 1)) + gamma (m/p)(p - 1)";
  static constexpr Operation op = Operation::reduce;
  using MessageSplitting::flags;
  // the reduce-scatter half combines (m/p)(p - 1) words on the slowest path
  static double formula(const AlgoParams& a, const CostParams& c) {
    return message_splitting_time(a, c) + c.gamma * double(a.m / a.p) * double(a.p - 1);
  }
  using MessageSplitting::native;
  using MessageSplitting::rounds;
  using MessageSplitting::topologies;

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int d = ceil_log2(a.p);
    const int64_t b = a.m / a.p;
    if (round <= d) hypercube_rs_step(a.p, id, round, kData, b, out);
    else hypercube_gather_step(a.root, id, round - d, kData, b, out);
  }
};

}  // namespace ppsim
