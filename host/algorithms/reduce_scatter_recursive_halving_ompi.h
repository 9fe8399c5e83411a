// Open MPI's recursive-halving reduce-scatter (coll_tuned reduce_scatter algorithm 2,
// ompi_coll_base_reduce_scatter_intra_basic_recursivehalving), message for message. With
// P = 2^floor(lg p) and r = p - P:
//  - when r > 0, each even rank x < 2r sends its whole vector (p m words) to x + 1, which folds it
//    (received words first) and, as virtual rank x/2, holds the merged blocks x, x + 1 from then on;
//    ranks x >= 2r are virtual rank x - r. Virtual block t is real blocks 2t, 2t + 1 when t < r, else
//    real block t + r: the virtual blocks are consecutive runs of the vector.
//  - the P virtual ranks halve highest bit first: with n = P/2, P/4, .., 1, virtual rank t sends
//    t ^ n the aligned n virtual blocks that hold t ^ n's final block and folds in the n that hold its
//    own (received words first, as Open MPI's ompi_op_reduce(op, recv, result)); t ends with block t.
//  - when r > 0, each odd rank x < 2r sends x - 1 its block (m words).
// The partials of one step cover processors {t, t ^ P/2, ..}, not a range, so ⊕ must be commutative.
// W(a, n) = m (n + |[a, a + n) ∩ [0, r)|), the words of virtual blocks [a, a + n); the largest of a
// step is the one at a = 0:
//   T = [r > 0] (t_s + (t_w + gamma) p m) + sum_{n = P/2 .. 1} (t_s + (t_w + gamma) m (n + min(n, r)))
//       + [r > 0] (t_s + t_w m).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

// The virtual ranks and blocks of Open MPI's power-of-two reduce-scatters (recursive halving,
// butterfly): P = 2^floor(lg p), r = p - P merged pairs (2t, 2t + 1) at the front.
struct OmpiPow2Fold {
  int64_t p, m, pow2, rem;
  PPSIM_HD explicit OmpiPow2Fold(const AlgoParams& a)
      : p(a.p), m(a.m), pow2(int64_t{1} << floor_log2(a.p)), rem(a.p - (int64_t{1} << floor_log2(a.p))) {}
  PPSIM_HD int64_t real(int64_t t) const { return t < rem ? 2 * t + 1 : t + rem; }                   // rank of virtual t
  PPSIM_HD int64_t virt(int64_t x) const { return x < 2 * rem ? (x % 2 ? x / 2 : -1) : x - rem; }  // -1: folded away
  PPSIM_HD int64_t word(int64_t t) const { return (t < rem ? 2 * t : t + rem) * m; }  // first word of virtual block t
  // Virtual blocks [lo, lo + n) as one slice of the vector, words [word(lo), word(lo + n)).
  PPSIM_HD int64_t words(int64_t lo, int64_t n) const { return (lo + n == pow2 ? p * m : word(lo + n)) - word(lo); }
  // The largest slice of n aligned virtual blocks: the first, m (n + min(n, r)) words.
  int64_t largest(int64_t n) const { return m * (n + (n < rem ? n : rem)); }
  // The halving steps' cost, highest or lowest bit first alike: one step per n = P/2 .. 1.
  double halving_time(const CostParams& c) const {
    double t = 0;
    for (int64_t n = pow2 / 2; n >= 1; n /= 2) t += c.ts + (c.tw + c.gamma) * double(largest(n));
    return t;
  }
};

struct ReduceScatterRecursiveHalvingOmpi : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_recursive_halving_ompi";
  static constexpr const char* description =
      "Open MPI's recursive halving (coll_tuned 2): pairs folded to 2^floor(lg p), halving highest bit first, any p";
  static constexpr const char* formula_text =
      "[r>0](t_s + (t_w+gamma) p m) + sum_{n=P/2..1} (t_s + (t_w+gamma) m (n + min(n, r))) + [r>0](t_s + t_w m), P = 2^floor(lg p), r = p - P";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) {
    const OmpiPow2Fold f(a);
    return floor_log2(a.p) + (f.rem > 0 ? 2 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const OmpiPow2Fold f(a);
    const double fold = f.rem > 0 ? c.ts + (c.tw + c.gamma) * double(a.p * a.m) + c.ts + c.tw * double(a.m) : 0;
    return fold + f.halving_time(c);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const OmpiPow2Fold f(a);
    const int pre = f.rem > 0 ? 1 : 0, halvings = floor_log2(a.p);
    if (pre && round == 1) {  // the pairs fold: 2t -> 2t + 1, the whole vector
      if (id < 2 * f.rem) {
        if (id % 2 == 0) out.add_send(id + 1, kData, 0, a.p * a.m);
        else out.add_recv(id - 1, kData, 0, a.p * a.m, RecvMode::recv_op_slot);
      }
      return;
    }
    const int step = round - pre;
    if (step > halvings) {  // the odd member hands the even one its block
      if (id < 2 * f.rem) {
        if (id % 2) out.add_send(id - 1, kData, (id - 1) * a.m, a.m);
        else out.add_recv(id + 1, kData, id * a.m, a.m, RecvMode::copy);
      }
      return;
    }
    const int64_t t = f.virt(id);
    if (t < 0) return;
    const int64_t n = f.pow2 >> step, lo = t & ~(2 * n - 1);
    const int64_t give = (t & n) ? lo : lo + n, keep = (t & n) ? lo + n : lo, peer = f.real(t ^ n);
    out.add_send(peer, kData, f.word(give), f.words(give, n));
    out.add_recv(peer, kData, f.word(keep), f.words(keep, n), RecvMode::recv_op_slot);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
