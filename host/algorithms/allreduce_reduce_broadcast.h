// All-reduce as an all-to-one reduction to processor 0 followed by a one-to-all broadcast
// (textbook §4.3; exercise 4.6 strategy ii). Both use the binomial tree on any p; the reduction
// keeps processor order. 2 ceil(log2 p) steps. T = 2 (t_s + t_w m) ceil(log2 p).
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

struct AllreduceReduceBroadcast : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_reduce_broadcast";
  static constexpr const char* description = "binomial reduction to 0, then binomial broadcast (exercise 4.6 ii)";
  static constexpr const char* formula_text = "2 (t_s + t_w m) ceil(log2 p) + gamma m ceil(log2 p)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  PPSIM_HD static int rounds(const AlgoParams& a) { return 2 * ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return (c.ts + c.tw * a.m) * rounds(a) + c.gamma * double(a.m) * ceil_log2(a.p);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    AlgoParams at_zero = a;
    at_zero.root = 0;
    const int half = ceil_log2(a.p);
    if (round <= half) tree_reduce_ops(at_zero, id, round, true, RankMap::relative, out);
    else tree_broadcast_ops(at_zero, id, round - half, true, RankMap::relative, out);
  }
};

}  // namespace ppsim
