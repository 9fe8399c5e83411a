// Linear all-to-all (MPICH's MPIR_Alltoall_intra_scattered with every send posted at once), any p:
// each processor sends its p - 1 blocks straight to their owners, as many a round as its ports
// allow: W = K under --ports K, W = kMaxOps (32) under all-port, 1 otherwise. Round t sends the
// block for (i + o) mod p there and receives the block from (i - o) mod p, for the offsets
// o = (t-1) W + 1 .. t W below p. ceil((p - 1) / W) rounds.
// T = ceil((p - 1) / W)(t_s + t_w m) where no two messages of a round share a link: on a fully
// connected machine (every message its own link). Elsewhere the W messages leaving a processor
// share links (the run shows the congestion; all-port refuses them, one message a link) and the
// formula is not the time.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallLinear : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_linear";
  static constexpr const char* description = "every block straight to its owner, as many a round as the ports allow (k-port, all-port)";
  static constexpr const char* formula_text = "ceil((p - 1) / W)(t_s + t_w m), W = k (k-port), 32 (all-port), 1; fully connected";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;

  // Sends per round.
  PPSIM_HD static int64_t width(const AlgoParams& a) { return a.all_port || a.kports > kMaxOps ? kMaxOps : a.kports; }
  static int rounds(const AlgoParams& a) { return int((a.p - 1 + width(a) - 1) / width(a)); }
  static double formula(const AlgoParams& a, const CostParams& c) { return rounds(a) * (c.ts + c.tw * double(a.m)); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t w = width(a);
    for (int64_t o = (round - 1) * w + 1; o <= round * w && o < a.p; ++o) {  // offsets of this round
      const int64_t to = pos_mod(id + o, a.p), from = pos_mod(id - o, a.p);
      out.add_send(to, kData, to * a.m, a.m);
      out.add_recv(from, kResult, from * a.m, a.m, RecvMode::copy);
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][id * a.m + w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
