// All-port hypercube broadcast (textbook §4.7.2): the m words are split into d = log p parts and
// part t goes down its own binomial tree whose dimension order is rotated by t (t, t+1, ..., t+d-1
// mod d). In every step the d trees use d different dimensions, so a processor sends at most one
// message per link: it needs the all-port model. d steps of m/d words:
// T = d (t_s + t_w ceil(m/d)) = t_s log p + t_w m when d divides m -- the t_w term log p times
// smaller than eq. 4-1's.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct BroadcastHypercubeAllport : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_hypercube_allport";
  static constexpr const char* description = "log p rotated binomial trees, one part of m/log p words each; needs all-port (§4.7.2)";
  static constexpr const char* formula_text = "log p (t_s + t_w ceil(m / log p)) = t_s log p + t_w m";
  static constexpr Operation op = Operation::broadcast;
  // Every processor needs log p distinct links: a hypercube (or a fully connected machine).
  static constexpr uint32_t topologies = topo_bit(TopologyKind::hypercube) | topo_bit(TopologyKind::full);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kNeedsAllPort;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int d = ceil_log2(a.p);
    return d == 0 ? 0.0 : d * (c.ts + c.tw * double((a.m + d - 1) / d));
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int d = ceil_log2(a.p), j = round - 1;
    const int64_t v = id ^ a.root;
    for (int t = 0; t < d; ++t) {
      const int64_t off = t * a.m / d, len = (t + 1) * a.m / d - off;
      if (len == 0) continue;
      int64_t reached = 0;  // dimensions tree t has spread over before this step
      for (int i = 0; i < j; ++i) reached |= int64_t{1} << ((t + i) % d);
      const int64_t dim = int64_t{1} << ((t + j) % d);
      if ((v & ~reached) == 0) out.add_send(id ^ dim, kData, off, len);
      else if ((v & ~(reached | dim)) == 0) out.add_recv(id ^ dim, kData, off, len, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
