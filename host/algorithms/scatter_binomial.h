// Scatter (one-to-all personalized) over the binomial tree (textbook Fig. 4-15, eq. 4-6; on a
// ring or linear array it answers exercise 4.7): the source's blocks are first laid out by rank
// relative to it (scratch block q = block for processor (q + root) mod p), so every subtree's blocks
// are one contiguous run; in the step with distance 2^k each holder q passes the run of ranks
// [q + 2^k, q + 2^(k+1)) to q + 2^k. Any p, any root. ceil(log2 p) steps. On a mesh in row-major
// order its first steps split the rows down the root's column and the rest split each row: the
// two-phase mesh scatter of exercise 4.7, congestion-free.
// T = sum_k (t_s + t_w m min(2^k, p - 2^k)) = t_s log p + t_w m (p - 1) for p = 2^d  [eq. 4-6].
#pragma once
#include "algorithms/tree_pattern.h"

namespace ppsim {

// Rank-ordered scratch shared with gather_binomial.
inline double binomial_scatter_time(const AlgoParams& a, const CostParams& c, int64_t unit_words) {
  double t = 0;
  const int d = ceil_log2(a.p);
  for (int k = 0; k < d; ++k) {
    int64_t span = int64_t{1} << k;
    t += c.ts + c.tw * double(unit_words) * double(span < a.p - span ? span : a.p - span);
  }
  return t;
}

struct ScatterBinomial : AlgorithmDefaults {
  static constexpr const char* name = "scatter_binomial";
  static constexpr const char* description = "binomial-tree scatter on root-relative ranks, any p (Fig. 4-15, exercise 4.7)";
  static constexpr const char* formula_text = "sum_k (t_s + t_w m min(2^k, p - 2^k)) = t_s log p + t_w m (p - 1)  [eq. 4-6]";
  static constexpr Operation op = Operation::scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kAllTopologies;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kByRank = 1;  // scratch: p blocks in root-relative rank order

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return binomial_scatter_time(a, c, a.m); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t rank = pos_mod(id - a.root, a.p), span = int64_t{1} << (ceil_log2(a.p) - round);
    TreeStep s = tree_spread_step(rank, a.p, round, true);
    if (s.role == TreeRole::idle) return;
    const int64_t first = s.role == TreeRole::send ? s.partner : rank;  // the subtree that moves
    const int64_t count = (first + span < a.p ? span : a.p - first) * a.m;
    if (s.role == TreeRole::send) out.add_send(pos_mod(s.partner + a.root, a.p), kByRank, first * a.m, count);
    else out.add_recv(pos_mod(s.partner + a.root, a.p), kByRank, first * a.m, count, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    uint64_t *data = b.buf[kData], *ranked = b.buf[kByRank];
    const int64_t rank = pos_mod(id - a.root, a.p);
    if (phase == LocalPhase::before_first_step) {
      if (id != a.root) return;
      for (int64_t q = 0; q < a.p; ++q)
        for (int64_t w = 0; w < a.m; ++w) ranked[q * a.m + w] = data[pos_mod(q + a.root, a.p) * a.m + w];
    } else {
      for (int64_t w = 0; w < a.m; ++w) data[id * a.m + w] = ranked[rank * a.m + w];
    }
  }
};

}  // namespace ppsim
