// k-to-all broadcast on a hypercube (textbook exercise 4.16): the k sources j*(p/k) form a subcube
// in the top log k dimensions. First they all-gather their k messages (log k steps, messages of
// 1, 2, ..., k/2 blocks), then each broadcasts the k*m words down its own (p/k)-node subcube, highest
// dimension first (log(p/k) steps). T = t_s log p + t_w m (k log(p/k) + k - 1).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct KbroadcastHypercube : AlgorithmDefaults {
  static constexpr const char* name = "kbroadcast_hypercube";
  static constexpr const char* description = "all-gather among the k sources, then broadcast in each subcube (exercise 4.16)";
  static constexpr const char* formula_text = "t_s log p + t_w m (k log(p/k) + k - 1)  [exercise 4.16]";
  static constexpr Operation op = Operation::kbroadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | kSwitchedNetworks | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;
  static const char* rejects(const AlgoParams& a) {
    return is_pow2(a.sources) ? nullptr : "kbroadcast_hypercube needs --sources a power of two";
  }

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const double k = double(a.sources), low = ceil_log2(a.p / a.sources);
    return c.ts * ceil_log2(a.p) + c.tw * double(a.m) * (k * low + k - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int low = ceil_log2(kbroadcast_spacing(a)), high = ceil_log2(a.sources);
    if (round <= high) {  // all-gather among the sources, lowest of the top dimensions first
      if (id % kbroadcast_spacing(a) != 0) return;
      const int64_t j = id >> low, half = int64_t{1} << (round - 1), partner = (j ^ half) << low;
      out.add_send(partner, kData, (j & ~(half - 1)) * a.m, half * a.m);
      out.add_recv(partner, kData, ((j ^ half) & ~(half - 1)) * a.m, half * a.m, RecvMode::copy);
      return;
    }
    const int64_t bit = int64_t{1} << (low - (round - high));  // broadcast in the subcube, highest first
    const int64_t below = id & (2 * bit - 1);
    if (below == 0) out.add_send(id ^ bit, kData, 0, a.sources * a.m);
    else if (below == bit) out.add_recv(id ^ bit, kData, 0, a.sources * a.m, RecvMode::copy);
  }
};

}  // namespace ppsim
