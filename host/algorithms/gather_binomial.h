// Gather (all-to-one personalized) over the binomial tree: scatter_binomial run backwards. Blocks
// travel in root-relative rank order (scratch), nearest subtrees first; the root finally puts each
// block at its processor's place. Any p, any root. ceil(log2 p) steps.
// T = t_s log p + t_w m (p - 1) for p = 2^d  [eq. 4-6].
#pragma once
#include "algorithms/scatter_binomial.h"

namespace ppsim {

struct GatherBinomial : AlgorithmDefaults {
  static constexpr const char* name = "gather_binomial";
  static constexpr const char* description = "binomial-tree gather on root-relative ranks, any p (dual of Fig. 4-15)";
  static constexpr const char* formula_text = "t_s log p + t_w m (p - 1)  [eq. 4-6]";
  static constexpr Operation op = Operation::gather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kAllTopologies;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kByRank = 1;

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return binomial_scatter_time(a, c, a.m); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t rank = pos_mod(id - a.root, a.p), span = int64_t{1} << (round - 1);
    TreeStep s = tree_collect_step(rank, a.p, round, true);
    if (s.role == TreeRole::idle) return;
    const int64_t first = s.role == TreeRole::send ? rank : s.partner;  // the subtree that moves
    const int64_t count = (first + span < a.p ? span : a.p - first) * a.m;
    if (s.role == TreeRole::send) out.add_send(pos_mod(s.partner + a.root, a.p), kByRank, first * a.m, count);
    else out.add_recv(pos_mod(s.partner + a.root, a.p), kByRank, first * a.m, count, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    uint64_t *data = b.buf[kData], *ranked = b.buf[kByRank];
    const int64_t rank = pos_mod(id - a.root, a.p);
    if (phase == LocalPhase::before_first_step) {
      for (int64_t w = 0; w < a.m; ++w) ranked[rank * a.m + w] = data[id * a.m + w];
    } else if (id == a.root) {
      for (int64_t q = 0; q < a.p; ++q)
        for (int64_t w = 0; w < a.m; ++w) data[pos_mod(q + a.root, a.p) * a.m + w] = ranked[q * a.m + w];
    }
  }
};

}  // namespace ppsim
