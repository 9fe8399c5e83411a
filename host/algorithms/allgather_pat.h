// PAT all-gather (Jeaugey 2025, NCCL's PatAGAlgorithm with full aggregation; pat_pattern.h), any p:
// before step 1 r puts its block into slot 0 of a scratch buffer rotated by r; step i = 1 .. k,
// k = ceil(log2 p), is dimension d = k - i: r sends the slots s = 0 (mod 2^(d+1)) with s + 2^d < p to
// r - 2^d in one strided message and takes r + 2^d's into slots s + 2^d; after step k a rotation puts
// slot s into block (r + s) mod p. The first step sends one block to the farthest peer (2^(k-1)
// away), the last p/2 blocks to the next rank.
// ceil(log2 p) steps; step i moves c_d = ceil((p - 2^d)/2^(d+1)) blocks:
//   T = sum_{d<k} (t_s + t_w m c_d) = t_s log p + t_w m (p - 1) at p = 2^k.
#pragma once
#include "algorithms/pat_pattern.h"

namespace ppsim {

struct AllgatherPat : AlgorithmDefaults {
  static constexpr const char* name = "allgather_pat";
  static constexpr const char* description =
      "PAT (Jeaugey 2025, NCCL): Bruck's all-gather with the farthest dimension first, one strided message a step; any p, ceil(log2 p) "
      "steps";
  static constexpr const char* formula_text =
      "sum_{d < ceil(log2 p)} (t_s + t_w m ceil((p - 2^d)/2^(d+1))) = t_s log p + t_w m (p - 1) at p = 2^d";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kRotated = 1;  // scratch (after the all-gather's one buffer): slot s holds block (r + s) mod p

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return pat_time(a, c, 0.0); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    pat_step(a.p, a.m, id, ceil_log2(a.p) - round, -1, kRotated, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step) {  // own block into slot 0
      for (int64_t w = 0; w < a.m; ++w) b.buf[kRotated][w] = b.buf[kData][id * a.m + w];
      return;
    }
    for (int64_t s = 0; s < a.p; ++s)  // undo the rotation: slot s is block (id + s) mod p
      for (int64_t w = 0; w < a.m; ++w) b.buf[kData][pos_mod(id + s, a.p) * a.m + w] = b.buf[kRotated][s * a.m + w];
  }
};

}  // namespace ppsim
