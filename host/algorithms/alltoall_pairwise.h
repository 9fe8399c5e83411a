// Pairwise-exchange all-to-all, any p (MPICH's MPIR_Alltoall_intra_pairwise; Thakur et al. 2005):
// p - 1 steps. When p = 2^d, step k exchanges one block with i XOR k (Alg. 4-10's pattern); else
// step k sends the block for (i + k) mod p there and receives the block from (i - k) mod p.
// Every message is one block: T = (p - 1)(t_s + t_w m) = (p - 1) α + n (p-1)/p β (n = p m), without
// congestion (a fully connected machine; E-cube routing on a hypercube when p = 2^d).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallPairwise : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_pairwise";
  static constexpr const char* description = "step k: one block to i XOR k (p = 2^d) or to i + k from i - k (any p), p - 1 steps";
  static constexpr const char* formula_text = "(t_s + t_w m)(p - 1)";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::full);
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * double(a.m)) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const bool pow2 = is_pow2(a.p);
    const int64_t to = pow2 ? id ^ int64_t(round) : pos_mod(id + round, a.p);
    const int64_t from = pow2 ? to : pos_mod(id - round, a.p);
    out.add_send(to, kData, to * a.m, a.m);
    out.add_recv(from, kResult, from * a.m, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][id * a.m + w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
