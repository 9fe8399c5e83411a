// All-to-all personalized by pairwise exchange (textbook Alg. 4-10, eq. 4-10): p - 1 steps; in
// step j processor x exchanges one block with x XOR j. With E-cube routing on a hypercube no link
// carries two messages in any step. T = (t_s + t_w m)(p - 1)  [eq. 4-10] (plus t_h per hop).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallXorEcube : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_xor_ecube";
  static constexpr const char* description = "step j: exchange one block with x XOR j; congestion-free with E-cube routing (Alg. 4-10)";
  static constexpr const char* formula_text = "(t_s + t_w m)(p - 1)  [eq. 4-10]";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | kSwitchedNetworks | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * double(a.p - 1); }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    const int64_t partner = id ^ int64_t(round);
    out.add_send(partner, kData, partner * a.m, a.m);
    out.add_recv(partner, kResult, partner * a.m, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][id * a.m + w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
