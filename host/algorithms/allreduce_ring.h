// NCCL's ring all-reduce: the n = m words are p chunks (the first n mod p of ceil(n/p) words, the
// rest floor(n/p); empty chunks, when n < p, are not sent), then
//   reduce-scatter ring, steps i = 1..p-1: processor x passes its partial of chunk (x - i + 1) mod p
//     to x + 1 and folds x - 1's partial of chunk (x - i) mod p in; after it x holds chunk x + 1;
//   all-gather ring, steps i = 1..p-1: x passes the complete chunk (x - i + 2) mod p to x + 1 and
//     takes chunk (x - i + 1) mod p from x - 1.
// A chunk's partial goes round the ring from the processor after it, so ⊕ must be commutative.
// 2 (p - 1) steps; chunk 0, the largest, moves in every step:
//   T = 2 (p-1) t_s + (p-1) ceil(n/p) (2 t_w + gamma)  = 2 (p-1) t_s + 2 n (p-1)/p t_w + n (p-1)/p gamma  (p | n).
#pragma once
#include "algorithms/recursive_halving.h"

namespace ppsim {

struct AllreduceRing : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_ring";
  static constexpr const char* description = "ring reduce-scatter then ring all-gather of p chunks (NCCL's ring)";
  static constexpr const char* formula_text =
      "2 (p-1) t_s + (p-1) ceil(n/p) (2 t_w + gamma) = 2 (p-1) t_s + (2 t_w + gamma) n (p-1)/p (p | n)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  PPSIM_HD static int rounds(const AlgoParams& a) { return int(2 * (a.p - 1)); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int64_t chunk = (a.m + a.p - 1) / a.p;
    return double(a.p - 1) * (largest_message_time(c, chunk, true) + largest_message_time(c, chunk, false));
  }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    const EvenSplit chunks{a.m, a.p};
    const bool reducing = round < a.p;
    const int i = reducing ? round : round - int(a.p - 1);
    // The chunk x passes on in step i of either ring: (x - i + 1) mod p, one further on in the all-gather.
    const int64_t shift = reducing ? 1 : 2, out_chunk = pos_mod(id - i + shift, a.p), in_chunk = pos_mod(id - i + shift - 1, a.p);
    const int64_t out_words = chunks.offset(out_chunk + 1) - chunks.offset(out_chunk);
    const int64_t in_words = chunks.offset(in_chunk + 1) - chunks.offset(in_chunk);
    if (out_words > 0) out.add_send(pos_mod(id + 1, a.p), kData, chunks.offset(out_chunk), out_words);
    if (in_words > 0)
      out.add_recv(pos_mod(id - 1, a.p), kData, chunks.offset(in_chunk), in_words, reducing ? RecvMode::recv_op_slot : RecvMode::copy);
  }
};

}  // namespace ppsim
