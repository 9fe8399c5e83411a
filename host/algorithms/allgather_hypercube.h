// Hypercube all-to-all broadcast (textbook Alg. 4-7, Fig. 4-11): log p steps; in step r processor
// i exchanges with i ^ 2^(r-1) everything it holds so far, the aligned block of 2^(r-1) blocks
// containing its own. Messages double each step. T = t_s log p + t_w m (p - 1)  [eq. 4-4].
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AllgatherHypercube : AlgorithmDefaults {
  static constexpr const char* name = "allgather_hypercube";
  static constexpr const char* description = "exchange the gathered half across each dimension, log p steps (Alg. 4-7)";
  static constexpr const char* formula_text = "t_s log p + t_w m (p - 1)  [eq. 4-4]";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return c.ts * rounds(a) + c.tw * double(a.m) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int64_t half = int64_t{1} << (round - 1);
    int64_t partner = id ^ half;
    out.add_send(partner, kData, (id & ~(half - 1)) * a.m, half * a.m);
    out.add_recv(partner, kData, (partner & ~(half - 1)) * a.m, half * a.m, RecvMode::copy);
  }
};

}  // namespace ppsim
