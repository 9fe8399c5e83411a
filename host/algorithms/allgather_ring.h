// Ring all-to-all broadcast (textbook Alg. 4-4, Fig. 4-9): p - 1 steps; in step j processor i
// passes block (i - j + 1) mod p, the one it received last, to its right neighbour and receives
// block (i - j) mod p from its left. T = (t_s + t_w m)(p - 1)  [eq. 4-2].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct AllgatherRing : AlgorithmDefaults {
  static constexpr const char* name = "allgather_ring";
  static constexpr const char* description = "pass blocks around a ring, p - 1 steps (Alg. 4-4)";
  static constexpr const char* formula_text = "(t_s + t_w m)(p - 1)  [eq. 4-2]";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native =
      topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear) | kSwitchedNetworks | kProcessorTrees;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * double(a.p - 1); }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    ring_allgather_step(a.p, id, round, kData, a.m, out);
  }
};

}  // namespace ppsim
