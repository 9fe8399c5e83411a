// All-port hypercube scatter (textbook §4.7.2: the t_w term log p times smaller). Every
// m-word block is split into d = log p parts; part t of every block travels down binomial tree t,
// whose dimension order is rotated by t (t, t+1, ..., t+d-1 mod d), so in every step the d trees
// use d different links. In tree t's own order -- bit (t+j) mod d of the root-relative id becomes
// bit d-1-j -- every subtree is one contiguous range, so each tree's parts are kept in that order
// in a scratch buffer and every message is one slice. d steps:
// T = sum_j (t_s + t_w ceil(m/d) 2^(d-1-j)) = t_s log p + t_w m (p - 1) / log p when d divides m.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

// Tree t's index of relabelled id v, and back.
PPSIM_HD inline int64_t rotated_tree_index(int64_t v, int t, int d) {
  int64_t u = 0;
  for (int j = 0; j < d; ++j)
    if ((v >> ((t + j) % d)) & 1) u |= int64_t{1} << (d - 1 - j);
  return u;
}
PPSIM_HD inline int64_t rotated_tree_id(int64_t u, int t, int d) {
  int64_t v = 0;
  for (int j = 0; j < d; ++j)
    if ((u >> (d - 1 - j)) & 1) v |= int64_t{1} << ((t + j) % d);
  return v;
}

// kGather runs the same trees backwards (gather_hypercube_allport.h).
template <bool kGather>
struct PersonalizedAllportT : AlgorithmDefaults {
  static constexpr Operation op = kGather ? Operation::gather : Operation::scatter;
  static constexpr const char* formula_text = "t_s log p + t_w ceil(m / log p)(p - 1)";
  static constexpr uint32_t topologies = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::full);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsAllPort;
  static constexpr bool has_local = true;
  static constexpr int32_t kTrees = 1;  // scratch: tree t's parts at p*(t*m/d), in tree order

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int d = ceil_log2(a.p);
    if (d == 0) return 0.0;
    return c.ts * d + c.tw * double((a.m + d - 1) / d) * double(a.p - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int d = ceil_log2(a.p);
    const int j = kGather ? d - round : round - 1;  // the tree level this step works on
    const int64_t v = id ^ a.root, span = int64_t{1} << (d - 1 - j);
    for (int t = 0; t < d; ++t) {
      const int64_t off = t * a.m / d, len = (t + 1) * a.m / d - off;
      if (len == 0) continue;
      const int64_t u = rotated_tree_index(v, t, d), region = a.p * off, partner = id ^ (int64_t{1} << ((t + j) % d));
      const int64_t level = u & (2 * span - 1);
      const bool upper = level == 0, lower = level == span;  // holder side / child side of this level
      if (!upper && !lower) continue;
      const int64_t first = upper ? u + span : u;  // the child's subtree
      const bool sends = kGather ? lower : upper;
      if (sends) out.add_send(partner, kTrees, region + first * len, span * len);
      else out.add_recv(partner, kTrees, region + first * len, span * len, RecvMode::copy);
    }
  }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    const int d = ceil_log2(a.p);
    uint64_t *data = b.buf[kData], *trees = b.buf[kTrees];
    const bool all_blocks = (kGather ? phase == LocalPhase::after_last_step : phase == LocalPhase::before_first_step);
    if (all_blocks && id != a.root) return;
    if (d == 0) return;
    for (int t = 0; t < d; ++t) {
      const int64_t off = t * a.m / d, len = (t + 1) * a.m / d - off, region = a.p * off;
      for (int64_t x = 0; x < a.p; ++x) {
        if (!all_blocks && x != id) continue;  // a non-root touches only its own block
        const int64_t slot = region + rotated_tree_index(x ^ a.root, t, d) * len;
        for (int64_t w = 0; w < len; ++w) {
          if (phase == LocalPhase::before_first_step) trees[slot + w] = data[x * a.m + off + w];
          else data[x * a.m + off + w] = trees[slot + w];
        }
      }
    }
  }
};

struct ScatterHypercubeAllport : PersonalizedAllportT<false> {
  static constexpr const char* name = "scatter_hypercube_allport";
  static constexpr const char* description = "log p rotated binomial trees carry 1/log p of every block; needs all-port (§4.7.2)";
};

}  // namespace ppsim
