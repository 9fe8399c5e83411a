// NCCL's ring reduce over C channels (nccl_rings.h): on every channel's ring the partials run down
// the chain that starts at the position after the root and ends at the root, pipelined in S
// segments (--segments): the rank u + 1 positions after the root (u = 0 .. p - 2; the root is
// u = p - 1) sends its partial of segment s in step s + u + 1, after folding in the partial that
// arrived in step s + u. Partials go round the ring: ⊕ must be commutative.
//   steps = p - 2 + S (p >= 2);  T = (p - 2 + S)(t_s + (C t_w + gamma) m/(S C))  (S C | m), under C
//   ports, the channels sharing each link.
#pragma once
#include "algorithms/broadcast_nccl_ring.h"

namespace ppsim {

struct ReduceNcclRing : AlgorithmDefaults {
  static constexpr const char* name = "reduce_nccl_ring";
  static constexpr const char* description =
      "NCCL's ring reduce: a chain ending at the root on each of --channels rings, pipelined in --segments segments; C ports";
  static constexpr const char* formula_text = "(p - 2 + S)(t_s + (C t_w + gamma) m/(S C)) (S C | m)";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static const char* rejects(const AlgoParams& a) { return channels_rejects(a, a.p); }

  static int rounds(const AlgoParams& a) { return a.p < 2 ? 0 : int(a.p - 2 + a.segments); }
  static double formula(const AlgoParams& a, const CostParams& c) { return a.p < 2 ? 0.0 : chain_pieces_time(a, c, true); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ChannelPieces pieces = channel_pieces(a, a.m);
    for (int c = 0; c < a.channels; ++c) {
      const ChannelRing ring = channel_ring(a, c);
      const int64_t start = ring.position(a.root) + 1, u = pos_mod(ring.position(id) - start, a.p);
      const int64_t out_seg = round - u - 1, in_seg = round - u;
      if (u + 1 < a.p && out_seg >= 0 && out_seg < a.segments && pieces.words(out_seg, c) > 0)
        out.add_send(ring.rank(start + u + 1), kData, pieces.offset(out_seg, c), pieces.words(out_seg, c));
      if (u > 0 && in_seg >= 0 && in_seg < a.segments && pieces.words(in_seg, c) > 0)
        out.add_recv(ring.rank(start + u - 1), kData, pieces.offset(in_seg, c), pieces.words(in_seg, c), RecvMode::recv_op_slot);
    }
  }
};

}  // namespace ppsim
