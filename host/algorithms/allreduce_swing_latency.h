// Swing all-reduce, latency-optimal variant (De Sensi et al., NSDI'24; swing_pattern.h): in step s
// (0 .. S-1, S = log2 p) every rank exchanges its whole m-word partial with its Swing peer pi(r, s)
// and folds it in - recursive doubling with peers at |rho(j)| = 1, 1, 3, 5, 11, ... links instead of
// 2^j, rotating over the torus dimensions (the ring: one dimension of p). The ranks a partial covers
// after step s form a cyclic interval per dimension, not a range in processor order, so the fold
// needs a commutative ⊕. Every extent a power of two (so p = 2^S).
// S = log2 p steps; step s works on dimension k at its step j, every message crosses |rho(j)| links
// and meets congestion c_s = (|rho(j)| + 1) / 2 (swing_congestion). Cut-through, t_h = 0:
//   T = sum_{s<S} (t_s + (c_s t_w + gamma) m);  on a ring of p = 2^L: sum_{j<L} (t_s + ((|rho(j)|+1)/2 t_w + gamma) m).
// The paper's multi-port form (one collective per dimension order, at once) is not modelled: single port.
#pragma once
#include "algorithms/swing_pattern.h"

namespace ppsim {

struct AllreduceSwingLatency : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_swing_latency";
  static constexpr const char* description =
      "Swing (De Sensi et al. 2024): recursive doubling with peers r +- rho(s) = 1, -1, 3, -5, 11, ..., rotating over torus dimensions; "
      "log2 p steps of m words";
  static constexpr const char* formula_text =
      "sum_{s < log2 p} (t_s + (c_s t_w + gamma) m), c_s = (|rho(j)| + 1)/2 the congestion of step s (j: its step in its dimension), "
      "rho(j) = (1 - (-2)^(j+1))/3";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::torus);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kCommutativeOnly;

  static int rounds(const AlgoParams& a) { return swing_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    double t = 0;
    for (int s = 0; s < swing_steps(a); ++s) t += c.ts + (double(swing_congestion(a, s)) * c.tw + c.gamma) * double(a.m);
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t peer = swing_peer(a, id, round - 1);
    out.add_send(peer, kData, 0, a.m);
    out.add_recv(peer, kData, 0, a.m, RecvMode::recv_op_slot);
  }
};

}  // namespace ppsim
