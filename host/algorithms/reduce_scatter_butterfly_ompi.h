// Open MPI's butterfly reduce-scatter (coll_tuned reduce_scatter algorithm 4,
// ompi_coll_base_reduce_scatter_intra_butterfly), message for message. P = 2^floor(lg p),
// r = p - P, virtual ranks and blocks as reduce_scatter_recursive_halving_ompi (OmpiPow2Fold):
//  - when r > 0, each even rank x < 2r sends its whole vector to x + 1, which folds it;
//  - the P virtual ranks halve lowest bit first: in step s (mask 2^(s-1), n = P/2^s blocks) virtual
//    rank v sends v ^ mask the aligned n virtual blocks that do not hold rev(v), its bit-reversed rank
//    (the "mirror permutation", ompi_mirror_perm), and folds in the n that do; v ends with virtual
//    block rev(v). The partials cover aligned ranges of virtual ranks, which map in order onto ranges
//    of processors, and each fold keeps that order: any associative ⊕ works.
//  - when r > 0, the holder of virtual block u < r sends real block 2u to the folded-away rank 2u;
//  - when P >= 4, v and rev(v) != v swap their blocks: v sends real block real(rev(v)) to real(rev(v)).
// Open MPI posts the send to the folded-away rank before the swap; here it is a step of its own.
//   T = [r > 0] (t_s + (t_w + gamma) p m) + sum_{n = P/2 .. 1} (t_s + (t_w + gamma) m (n + min(n, r)))
//       + [r > 0] (t_s + t_w m) + [P >= 4] (t_s + t_w m).
#pragma once
#include "algorithms/reduce_scatter_recursive_halving_ompi.h"

namespace ppsim {

struct ReduceScatterButterflyOmpi : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_butterfly_ompi";
  static constexpr const char* description =
      "Open MPI's butterfly (coll_tuned 4): pairs folded to 2^floor(lg p), halving lowest bit first, mirror exchange, any p";
  static constexpr const char* formula_text =
      "[r>0](t_s + (t_w+gamma) p m) + sum_{n=P/2..1} (t_s + (t_w+gamma) m (n + min(n, r))) + ([r>0] + [P>=4])(t_s + t_w m), P = 2^floor(lg p), r = p - P";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;

  PPSIM_HD static int64_t mirror(int64_t v, int bits) {
    int64_t r = 0;
    for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
  }
  static int rounds(const AlgoParams& a) {
    const OmpiPow2Fold f(a);
    return floor_log2(a.p) + (f.rem > 0 ? 2 : 0) + (f.pow2 >= 4 ? 1 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const OmpiPow2Fold f(a);
    const double fold = f.rem > 0 ? c.ts + (c.tw + c.gamma) * double(a.p * a.m) + c.ts + c.tw * double(a.m) : 0;
    const double swap = f.pow2 >= 4 ? c.ts + c.tw * double(a.m) : 0;
    return fold + f.halving_time(c) + swap;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const OmpiPow2Fold f(a);
    const int pre = f.rem > 0 ? 1 : 0, bits = floor_log2(a.p);
    const int64_t t = f.virt(id);
    if (pre && round == 1) {  // the pairs fold: 2t -> 2t + 1, the whole vector
      if (id < 2 * f.rem) {
        if (id % 2 == 0) out.add_send(id + 1, kData, 0, a.p * a.m);
        else out.add_recv(id - 1, kData, 0, a.p * a.m, RecvMode::recv_op_slot);
      }
      return;
    }
    const int step = round - pre;
    if (step <= bits) {
      if (t < 0) return;
      const int64_t mask = int64_t{1} << (step - 1), n = f.pow2 >> step, v = t ^ mask;
      const int64_t lo = mirror(t, bits) & ~(2 * n - 1);
      const int64_t give = (t & mask) ? lo : lo + n, keep = (t & mask) ? lo + n : lo, peer = f.real(v);
      out.add_send(peer, kData, f.word(give), f.words(give, n));
      out.add_recv(peer, kData, f.word(keep), f.words(keep, n), fold_mode(t, v));
      return;
    }
    if (f.rem > 0 && step == bits + 1) {  // the holders of merged blocks serve the folded-away ranks
      if (t >= 0 && mirror(t, bits) < f.rem) out.add_send(2 * mirror(t, bits), kData, 2 * mirror(t, bits) * a.m, a.m);
      if (id < 2 * f.rem && id % 2 == 0) out.add_recv(f.real(mirror(id / 2, bits)), kData, id * a.m, a.m, RecvMode::copy);
      return;
    }
    if (t < 0) return;  // the mirror exchange
    const int64_t u = mirror(t, bits);
    if (u == t) return;
    out.add_send(f.real(u), kData, f.real(u) * a.m, a.m);
    out.add_recv(f.real(u), kData, id * a.m, a.m, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
