// k-to-all personalized communication on a hypercube (textbook exercise 4.20): the k sources
// j*(p/k) differ only in the top log k dimensions. First every source scatters within its own
// (p/k)-node subcube, highest dimension first, handing each node the k blocks meant for the nodes
// with its low bits in every subcube (runs of blocks at a stride of p/k blocks); then the k nodes
// sharing low bits exchange pairwise (step s: partner x XOR s*(p/k)), one block per step.
// T = t_s (log(p/k) + k - 1) + t_w m (p - 1)  [exercise 4.20].
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct KscatterHypercube : AlgorithmDefaults {
  static constexpr const char* name = "kscatter_hypercube";
  static constexpr const char* description = "scatter within each source's subcube, then pairwise exchange across subcubes (exercise 4.20)";
  static constexpr const char* formula_text = "t_s (log(p/k) + k - 1) + t_w m (p - 1)  [exercise 4.20]";
  static constexpr Operation op = Operation::kscatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::hypercube) | kSwitchedNetworks | topo_bit(TopologyKind::tree);
  static constexpr uint32_t flags = kNeedsPow2;
  static constexpr bool has_local = true;
  static const char* rejects(const AlgoParams& a) {
    return is_pow2(a.sources) ? nullptr : "kscatter_hypercube needs --sources a power of two";
  }

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p / a.sources) + int(a.sources - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return c.ts * double(ceil_log2(a.p / a.sources) + a.sources - 1) + c.tw * double(a.m) * double(a.p - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int low = ceil_log2(kbroadcast_spacing(a));
    const int64_t spacing = kbroadcast_spacing(a), k = a.sources;
    if (round <= low) {  // scatter inside the subcube: blocks for the far half of my range, in every subcube
      const int64_t bit = int64_t{1} << (low - round), mine = id & (spacing - 1), below = mine & (2 * bit - 1);
      if (below == 0) {
        const int64_t far = (mine + bit);
        out.add_send_strided(id ^ bit, kData, far * a.m, bit * a.m, spacing * a.m, k);
      } else if (below == bit) {
        out.add_recv_strided(id ^ bit, kData, mine * a.m, bit * a.m, spacing * a.m, k, RecvMode::copy);
      }
      return;
    }
    const int64_t s = round - low, partner = id ^ (s << low), j = id >> low;  // pairwise exchange across subcubes
    out.add_send(partner, kData, partner * a.m, a.m);
    out.add_recv(partner, kResult, (j ^ s) * a.m, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)  // the block from my own subcube's source was scattered to me
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][(id / kbroadcast_spacing(a)) * a.m + w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
