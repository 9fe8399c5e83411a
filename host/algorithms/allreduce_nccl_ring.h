// NCCL's ring all-reduce over C channels and S loops (nccl_rings.h). Each piece (l, c) of the m
// words is cut into p chunks by ring position (EvenSplit), and loop l runs allreduce_ring's
// 2 (p - 1) steps on every channel's ring at once: reduce-scatter steps i = 1..p-1, position x
// passes its partial of chunk (x - i + 1) mod p to position x + 1 and folds the partial of chunk
// (x - i) mod p from x - 1 in; all-gather steps i = 1..p-1, x passes the complete chunk
// (x - i + 2) mod p on and takes chunk (x - i + 1) mod p. Partials go round the ring: ⊕ must be
// commutative. Every rank sends 2 (p - 1)/p m words in all (nccl-tests' bus factor).
//   steps = 2 (p - 1) S;  with b_l = ceil(w_l / p), w_l the words of piece (l, 0), the largest of loop l:
//   T = sum_l (p - 1)(2 t_s + (2 C t_w + gamma) b_l)  = 2 (p-1) S t_s + (2 C t_w + gamma) m/C (p-1)/p  (S C p | m),
// under C ports, the C channels' messages sharing each link (nccl_rings.h). On a cluster the
// channels share an accelerator's link to its switch but not its NICs: with a slow network
// (--tw-class) C channels move C times the words between nodes in a step that one channel does.
#pragma once
#include "algorithms/nccl_rings.h"

namespace ppsim {

struct AllreduceNcclRing : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_nccl_ring";
  static constexpr const char* description =
      "NCCL's ring: reduce-scatter then all-gather of p chunks on each of --channels rings (their own order across a "
      "cluster's nodes), --segments loops; C ports";
  static constexpr const char* formula_text =
      "sum over loops (p-1)(2 t_s + (2 C t_w + gamma) b_l) = 2 (p-1) S t_s + (2 C t_w + gamma) (m/C)(p-1)/p (S C p | m)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static const char* rejects(const AlgoParams& a) { return channels_rejects(a, 2 * (a.p - 1)); }

  PPSIM_HD static int rounds(const AlgoParams& a) { return int(2 * (a.p - 1) * a.segments); }
  static double formula(const AlgoParams& a, const CostParams& cost) {
    const CostParams c = channel_cost(a, cost);
    const ChannelPieces pieces = channel_pieces(a, a.m);
    double t = 0;
    for (int64_t l = 0; l < a.segments; ++l) {
      const int64_t b = (pieces.words(l, 0) + a.p - 1) / a.p;
      t += double(a.p - 1) * (largest_message_time(c, b, true) + largest_message_time(c, b, false));
    }
    return t;
  }

  // (ChannelPlace and SplitOnce: ChannelRing's positions and EvenSplit's chunks, without a division
  // per channel.)
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t per_loop = 2 * (a.p - 1), loop = (round - 1) / per_loop;
    const int step = int((round - 1) % per_loop) + 1;
    const bool reducing = step < a.p;
    const int i = reducing ? step : step - int(a.p - 1);
    const int64_t shift = reducing ? 1 : 2;
    const RecvMode mode = reducing ? RecvMode::recv_op_slot : RecvMode::copy;
    const SplitOnce pieces = split_once(a.m, a.segments * a.channels);
    ChannelPlace place = channel_place(a, id);
    // Where no piece has as many words as the ring has positions (m < S C p), every chunk is one
    // word or none, and only chunks 0 .. widest - 1 hold one: a node none of whose positions sends
    // or receives such a chunk in this step (its positions' chunks, position - i + shift, lie in
    // (widest, p) without wrapping) posts nothing on any channel. Most nodes, for m much below p.
    const int64_t widest = pieces.words(0), first = ChannelPlace::wrap(place.base - i + shift, a.p);
    if (widest < a.p && first > widest && first <= a.p - place.g) return;
    for (int64_t piece = loop * a.channels, end = piece + a.channels; piece < end; ++piece, place.next_channel()) {
      const SplitOnce chunks = split_once(pieces.words(piece), a.p);
      const int64_t out_chunk = ChannelPlace::wrap(place.position() - i + shift, a.p), in_chunk = out_chunk == 0 ? a.p - 1 : out_chunk - 1;
      const int64_t out_words = chunks.words(out_chunk), in_words = chunks.words(in_chunk);
      if (out_words > 0) out.add_send(place.next(), kData, pieces.offset(piece) + chunks.offset(out_chunk), out_words);
      if (in_words > 0) out.add_recv(place.prev(), kData, pieces.offset(piece) + chunks.offset(in_chunk), in_words, mode);
    }
  }
};

}  // namespace ppsim
