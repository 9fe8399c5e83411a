// PAT reduce-scatter (Jeaugey 2025, NCCL's PatRSAlgorithm with full aggregation; pat_pattern.h), any
// p: PAT's all-gather run backwards. Before step 1 r copies its p blocks into a scratch buffer
// rotated by r (slot s holds block (r + s) mod p); step i = 1 .. k, k = ceil(log2 p), is dimension
// d = i - 1: r sends its partials of the slots s = 2^d (mod 2^(d+1)), s < p, to r + 2^d in one
// strided message (there they are slots s - 2^d) and folds r - 2^d's partials into its slots
// s = 0 (mod 2^(d+1)). Block (r + s)'s contributions come down the binomial tree of s's binary digits,
// the lowest first, so slot 0 ends with every rank's: it is the result. The ranks a partial covers
// are a cyclic interval, not a range in processor order: ⊕ must be commutative.
// ceil(log2 p) steps; step i moves (and folds) c_d = ceil((p - 2^d)/2^(d+1)) blocks:
//   T = sum_{d<k} (t_s + (t_w + gamma) m c_d) = t_s log p + (t_w + gamma) m (p - 1) at p = 2^k.
#pragma once
#include "algorithms/pat_pattern.h"

namespace ppsim {

struct ReduceScatterPat : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_pat";
  static constexpr const char* description =
      "PAT (Jeaugey 2025, NCCL): PAT's all-gather backwards, nearest dimension first, folding; any p, ceil(log2 p) steps";
  static constexpr const char* formula_text =
      "sum_{d < ceil(log2 p)} (t_s + (t_w + gamma) m ceil((p - 2^d)/2^(d+1))) = t_s log p + (t_w + gamma) m (p - 1) at p = 2^d";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;
  static constexpr int32_t kRotated = 2;  // scratch (after data and result): slot s holds block (r + s) mod p

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return pat_time(a, c, c.gamma); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    pat_step(a.p, a.m, id, round - 1, +1, kRotated, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step) {  // slot s is block (id + s) mod p
      for (int64_t s = 0; s < a.p; ++s)
        for (int64_t w = 0; w < a.m; ++w) b.buf[kRotated][s * a.m + w] = b.buf[kData][pos_mod(id + s, a.p) * a.m + w];
      return;
    }
    for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kRotated][w];  // slot 0: block id, complete
  }
};

}  // namespace ppsim
