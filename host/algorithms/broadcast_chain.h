// Pipelined chain broadcast: the m words in S segments (--segments) flow along the chain root,
// root+1, ..., root+p-1 (ranks relative to the root). Rank i receives segment s in step s + i and
// passes it on in step s + i + 1, so in one step it receives segment s while it sends segment
// s - 1: one send and one receive with different partners, which single-port allows (DESIGN.md §2
// ports; half-duplex and telephone do not). p - 2 + S steps (p >= 2); segments as in
// pipeline_segments.h (S <= m; r = m mod S segments of ceil(m/S) words first).
//   T = (p - 2 + S)(t_s + t_w n/S)                                  when S divides n = m,
//   T = (p - 2 + r)(t_s + t_w ceil(n/S)) + (S - r)(t_s + t_w floor(n/S))  otherwise
// (a step carries a large segment until the last large one reaches rank p - 1).
#pragma once
#include "algorithms/pipeline_segments.h"

namespace ppsim {

struct BroadcastChain : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_chain";
  static constexpr const char* description = "S segments pipelined along the chain root, root+1, ... (--segments S)";
  static constexpr const char* formula_text = "(p - 2 + S)(t_s + t_w m/S); S not dividing m: ceil(m/S)-word segments first";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) {
    return segments_fit(a) ? nullptr : "broadcast_chain needs 1 <= --segments <= --m (a segment carries at least one word)";
  }

  static int rounds(const AlgoParams& a) { return chain_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return pipelined_time(a, c, rounds(a), a.p < 2 ? 0 : a.segments - a.m % a.segments);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) { chain_segments_ops(a, id, round, out); }
};

}  // namespace ppsim
