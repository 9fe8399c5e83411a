// Van de Geijn's broadcast as Open MPI runs it (coll_tuned bcast algorithm 9,
// ompi_coll_base_bcast_intra_scatter_allgather_ring): broadcast_van_de_geijn's binomial scatter
// and ring all-gather, with Open MPI's blocks: every block ceil(m/p) words but the last ones,
// block q from word min(q ceil(m/p), m) (so the tail is short), where ppsim's MPICH-style unit
// makes the first m mod p blocks one word longer. When m < p Open MPI runs its basic linear
// broadcast instead: the root sends the m words to every other rank, root + 1 .. root + p - 1, one
// a step here.
// Empty blocks: the scatter does not send them, the ring does (0-byte messages). ppsim's messages
// carry at least one word (step_rules.h, slice_ok), so this unit leaves the ring's empty blocks out
// and sends everything else as Open MPI does; the fingerprint test ignores 0-byte messages for this
// unit and broadcast_scatter_allgather_ompi, and for no other, for that reason. An empty message costs Open MPI a start-up t_s, which the
// cost here leaves out where a whole ring step moves empty blocks only (never: every step moves block
// 0 or the ones next to it, which hold words when m >= p).
//   m >= p: T = sum_{s=1..D} (t_s + t_w W(2^(D-s), min(2^(D-s+1), p))) + (p - 1)(t_s + t_w ceil(m/p)),
//           W(a, b) = min(b c, m) - min(a c, m) with c = ceil(m/p); D = ceil(lg p).
//   m < p:  T = (p - 1)(t_s + t_w m).
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
      "Open MPI's scatter + ring all-gather broadcast (coll_tuned 9): blocks of ceil(m/p) words, the last short; linear when m < p";
  static constexpr const char* formula_text =
      "m >= p: sum_{k < ceil(lg p)} (t_s + t_w n_k) + (p - 1)(t_s + t_w ceil(m/p)), n_k = words of blocks [2^k, min(2^(k+1), p)) of ceil(m/p); m < p: (p - 1)(t_s + t_w m)";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  PPSIM_HD static bool linear(const AlgoParams& a) { return a.m < a.p; }  // Open MPI: count < comm size
  static int rounds(const AlgoParams& a) { return linear(a) ? int(a.p - 1) : BroadcastVanDeGeijn::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (linear(a)) return double(a.p - 1) * (c.ts + c.tw * double(a.m));
    return BroadcastVanDeGeijn::formula_of(a, c, CeilSplit{a.m, a.p});
  }
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (linear(a)) {  // basic linear: the root sends to root + round
      const int64_t to = pos_mod(a.root + round, a.p);
      if (id == a.root) out.add_send(to, kData, 0, a.m);
      else if (id == to) out.add_recv(a.root, kData, 0, a.m, RecvMode::copy);
      return;
    }
    BroadcastVanDeGeijn::ops_of(a, id, round, CeilSplit{a.m, a.p}, out);
  }
};

}  // namespace ppsim
