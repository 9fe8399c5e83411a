// Van de Geijn's broadcast as Open MPI runs it (coll_tuned bcast algorithm 9,
// ompi_coll_base_bcast_intra_scatter_allgather_ring): broadcast_van_de_geijn's binomial scatter
// and ring all-gather, with Open MPI's blocks: every block ceil(m/p) words but the last ones,
// block q from word min(q ceil(m/p), m) (so the tail is short, and blocks past m are empty and not
// sent), where ppsim's MPICH-style unit makes the first m mod p blocks one word longer.
//   T = sum_{s=1..D} (t_s + t_w W(2^(D-s), min(2^(D-s+1), p))) + (p - 1)(t_s + t_w ceil(m/p)),
//   W(a, b) = min(b c, m) - min(a c, m) with c = ceil(m/p); D = ceil(lg p).
#pragma once
#include "algorithms/broadcast_van_de_geijn.h"

namespace ppsim {

// Blocks of ceil(n/parts) words, the last ones short or empty.
struct CeilSplit {
  int64_t n, parts;
  PPSIM_HD int64_t offset(int64_t i) const {
    const int64_t at = i * ((n + parts - 1) / parts);
    return at < n ? at : n;
  }
};

struct BroadcastVanDeGeijnOmpi : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_van_de_geijn_ompi";
  static constexpr const char* description =
      "Open MPI's scatter + ring all-gather broadcast (coll_tuned 9): blocks of ceil(m/p) words, the last short; any p, m, root";
  static constexpr const char* formula_text =
      "sum_{k < ceil(lg p)} (t_s + t_w n_k) + (p - 1)(t_s + t_w ceil(m/p)), n_k = words of blocks [2^k, min(2^(k+1), p)) of ceil(m/p)";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return BroadcastVanDeGeijn::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return BroadcastVanDeGeijn::formula_of(a, c, CeilSplit{a.m, a.p}); }
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    BroadcastVanDeGeijn::ops_of(a, id, round, CeilSplit{a.m, a.p}, out);
  }
};

}  // namespace ppsim
