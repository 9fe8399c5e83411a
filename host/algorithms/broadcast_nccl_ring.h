// NCCL's ring broadcast over C channels (nccl_rings.h): on every channel's ring the root's data
// runs down the chain root -> the next position -> ... -> the position before the root, pipelined
// in S segments (--segments): piece (s, c) is segment s of channel c. The rank j positions after the
// root receives segment s in step s + j and passes it on in step s + j + 1, so in one step it
// receives one segment and sends the previous one on every channel.
//   steps = p - 2 + S (p >= 2);  T = sum over steps t of (t_s + C t_w w(t)), w(t) the largest piece
//   in flight = (p - 2 + S)(t_s + t_w m/S)  (S C | m), under C ports, the channels sharing each link.
#pragma once
#include "algorithms/nccl_rings.h"

namespace ppsim {

// The largest piece moving in step t (1-based) of a chain of `hops` links: segments
// max(0, t - hops) .. t - 1, the first the largest.
inline int64_t chain_step_words(const AlgoParams& a, int64_t t, int64_t hops) {
  const int64_t s = t - hops > 0 ? t - hops : 0;
  return s < a.segments ? channel_pieces(a, a.m).words(s, 0) : 0;
}
inline double chain_pieces_time(const AlgoParams& a, const CostParams& c, bool combines) {
  double t = 0;
  const CostParams shared = channel_cost(a, c);
  for (int64_t step = 1; step <= a.p - 2 + a.segments; ++step)
    t += largest_message_time(shared, chain_step_words(a, step, a.p - 1), combines);
  return t;
}

struct BroadcastNcclRing : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_nccl_ring";
  static constexpr const char* description =
      "NCCL's ring broadcast: a chain from the root on each of --channels rings, pipelined in --segments segments; C ports";
  static constexpr const char* formula_text = "(p - 2 + S)(t_s + t_w m/S) (S C | m)";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) { return channels_rejects(a, a.p); }

  static int rounds(const AlgoParams& a) { return a.p < 2 ? 0 : int(a.p - 2 + a.segments); }
  static double formula(const AlgoParams& a, const CostParams& c) { return a.p < 2 ? 0.0 : chain_pieces_time(a, c, false); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ChannelPieces pieces = channel_pieces(a, a.m);
    for (int c = 0; c < a.channels; ++c) {
      const ChannelRing ring = channel_ring(a, c);
      const int64_t x0 = ring.position(a.root), j = pos_mod(ring.position(id) - x0, a.p);
      const int64_t out_seg = round - j - 1, in_seg = round - j;
      if (j + 1 < a.p && out_seg >= 0 && out_seg < a.segments && pieces.words(out_seg, c) > 0)
        out.add_send(ring.rank(x0 + j + 1), kData, pieces.offset(out_seg, c), pieces.words(out_seg, c));
      if (j > 0 && in_seg >= 0 && in_seg < a.segments && pieces.words(in_seg, c) > 0)
        out.add_recv(ring.rank(x0 + j - 1), kData, pieces.offset(in_seg, c), pieces.words(in_seg, c), RecvMode::copy);
    }
  }
};

}  // namespace ppsim
