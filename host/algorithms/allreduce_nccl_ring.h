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

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t per_loop = 2 * (a.p - 1), loop = (round - 1) / per_loop;
    const int step = int((round - 1) % per_loop) + 1;
    const bool reducing = step < a.p;
    const int i = reducing ? step : step - int(a.p - 1);
    const ChannelPieces pieces = channel_pieces(a, a.m);
    for (int c = 0; c < a.channels; ++c) {
      const ChannelRing ring = channel_ring(a, c);
      const int64_t x = ring.position(id), base = pieces.offset(loop, c);
      const EvenSplit chunks{pieces.words(loop, c), a.p};
      const int64_t shift = reducing ? 1 : 2, out_chunk = pos_mod(x - i + shift, a.p), in_chunk = pos_mod(x - i + shift - 1, a.p);
      const int64_t out_words = chunks.offset(out_chunk + 1) - chunks.offset(out_chunk);
      const int64_t in_words = chunks.offset(in_chunk + 1) - chunks.offset(in_chunk);
      if (out_words > 0) out.add_send(ring.rank(x + 1), kData, base + chunks.offset(out_chunk), out_words);
      if (in_words > 0)
        out.add_recv(ring.rank(x - 1), kData, base + chunks.offset(in_chunk), in_words, reducing ? RecvMode::recv_op_slot : RecvMode::copy);
    }
  }
};

}  // namespace ppsim
