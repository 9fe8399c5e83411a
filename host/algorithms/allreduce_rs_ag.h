// All-reduce by message splitting (textbook §4.7.1, eq. 4-14): the m words are p blocks of m/p;
// a hypercube reduce-scatter leaves block x complete on processor x, a hypercube all-gather spreads
// the blocks. 2 log p steps. T = 2 (t_s log p + t_w (m/p)(p - 1))  [eq. 4-14].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct AllreduceRsAg : AlgorithmDefaults, MessageSplitting {
  static constexpr const char* name = "allreduce_rs_ag";
  static constexpr const char* description = "reduce-scatter then all-gather of m/p-word blocks (eq. 4-14)";
  static constexpr const char* formula_text = "2 (t_s log p + t_w (m/p)(p - 1)) + gamma (m/p)(p - 1)  [eq. 4-14]";
  static constexpr Operation op = Operation::allreduce;
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
    else hypercube_ag_step(id, round - d, kData, b, out);
  }
};

}  // namespace ppsim
