// Rabenseifner's reduce as Open MPI runs it (coll_tuned reduce algorithm 7,
// ompi_coll_base_reduce_intra_redscat_gather), message for message, with its fall-back:
//
//   m < p' = 2^floor(lg p): Open MPI's basic linear reduce instead: the root receives the m words of
//     every other processor, from p-1 down to 0 (p - 1 steps, one receive a step);
//   else, with r = p - p':
//     - the r pairs (2j, 2j+1) swap halves as in allreduce_rabenseifner_ompi (the even member keeps
//       the lower floor(m/2) words, the odd one the upper ceil(m/2)), and the odd member sends its
//       folded upper half to the even one, which goes on as virtual rank j (2 steps; processors 2r
//       and up are virtual ranks v = id - r; the odd members take no further part);
//     - the recursive-halving reduce-scatter of allreduce_rabenseifner_ompi over the p' virtual
//       ranks, lowest bit first, the lower rank keeping the floor(w/2) lower words of its window w;
//     - when the root is an odd member of a pair (it left after step 2), virtual rank 0 sends its
//       window to the root, which stands in for virtual rank 0 from then on (1 step);
//     - a binomial gather to the root's virtual rank, highest bit first: in gather step t (bit
//       s = d - t) every virtual rank whose bits above s agree with the root's and whose bit s does
//       not sends its window after s + 1 halvings to its partner, and leaves.
//   2 lg p' steps, + 2 when r > 0, + 1 when the root is odd and below 2r. (ppsim's
//   reduce_rabenseifner folds a whole vector into one member of each pair instead, in 1 step, and
//   cuts MPICH's blocks.)
//   T = [r > 0] (2 t_s + (2 t_w + gamma) ceil(m/2)) + sum_{k=1..d} (t_s + (t_w + gamma) h_k)
//       + [odd root] (t_s + t_w W(0, d)) + sum_{s=0..d-1} (t_s + t_w W(v_s, s + 1)),
//   h_k the largest half given in halving step k, W(v, k) the window of virtual rank v after k
//   halvings and v_s the sender of gather bit s with the largest window (bit s opposite the root's,
//   every lower bit 1: the ceil side each time); m < p': (p - 1)(t_s + (t_w + gamma) m).
// Open MPI folds with the received words on the left whatever the ranks: ⊕ must be commutative
// (Open MPI itself takes the linear reduce for a non-commutative operation).
#pragma once
#include "algorithms/ompi_halving.h"

namespace ppsim {

struct ReduceRabenseifnerOmpi : AlgorithmDefaults {
  static constexpr const char* name = "reduce_rabenseifner_ompi";
  static constexpr const char* description =
      "Open MPI's Rabenseifner reduce (coll_tuned 7): pairs swap halves when p is no power of two, floor/ceil halving windows, "
      "binomial gather; the linear reduce when m < 2^floor(lg p); any root";
  static constexpr const char* formula_text =
      "m >= p': [r > 0](2 t_s + (2 t_w + gamma) ceil(m/2)) + sum_k (t_s + (t_w + gamma) h_k) + sum_s (t_s + t_w W_s) "
      "(+ t_s + t_w floor(m/p') for an odd root < 2r); m < p': (p-1)(t_s + (t_w + gamma) m)";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  PPSIM_HD static bool linear(const AlgoParams& a) { return a.m < halving_group(a.p, -1).pp || a.p < 2; }
  // The root left with its pair's odd members: virtual rank 0 hands it its window first.
  PPSIM_HD static bool odd_root(const AlgoParams& a) {
    const HalvingGroup g = halving_group(a.p, -1);
    return a.root < 2 * g.r && a.root % 2 == 1;
  }
  PPSIM_HD static int64_t virtual_root(const AlgoParams& a) {
    const HalvingGroup g = halving_group(a.p, -1);
    return odd_root(a) ? 0 : (a.root < 2 * g.r ? a.root / 2 : a.root - g.r);
  }
  PPSIM_HD static int rounds(const AlgoParams& a) {
    if (a.p < 2) return 0;
    if (linear(a)) return int(a.p - 1);
    const HalvingGroup g = halving_group(a.p, -1);
    return 2 * g.d + (g.r > 0 ? 2 : 0) + (odd_root(a) ? 1 : 0);
  }

  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.p < 2) return 0;
    if (linear(a)) return double(a.p - 1) * largest_message_time(c, a.m, true);
    const HalvingGroup g = halving_group(a.p, -1);
    const int64_t upper = a.m - a.m / 2;
    double t = g.r > 0 ? largest_message_time(c, upper, true) + largest_message_time(c, upper, false) : 0.0;
    for (int k = 1; k <= g.d; ++k) t += largest_message_time(c, ompi_largest_half(a.m, k), true);
    if (odd_root(a)) t += largest_message_time(c, ompi_window(a.m, 0, g.d).size, false);
    const int64_t vroot = virtual_root(a);
    for (int s = 0; s < g.d; ++s) {
      const int64_t sender = ((1 - ((vroot >> s) & 1)) << s) | ((int64_t{1} << s) - 1);
      t += largest_message_time(c, ompi_window(a.m, sender, s + 1).size, false);
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (linear(a)) {  // basic linear: the root receives from p-1, p-2, ..., 0, skipping itself
      const int64_t sender = a.p - round > a.root ? a.p - round : a.p - round - 1;
      if (id == sender) out.add_send(a.root, kData, 0, a.m);
      if (id == a.root) out.add_recv(sender, kData, 0, a.m, RecvMode::recv_op_slot);
      return;
    }
    const HalvingGroup g = halving_group(a.p, -1);
    const bool paired = id < 2 * g.r, odd = id % 2 == 1;
    if (g.r > 0) {
      if (round <= 2) {  // the pairs swap halves and fold, the odd member's upper half to the even one
        ompi_pair_fold(g, a.m, id, round, out);
        return;
      }
      round -= 2;
    }
    const bool swapped = odd_root(a);
    // Real processor of virtual rank u; after the hand-over the root stands in for virtual rank 0.
    auto real = [&](int64_t u, bool gathering) { return gathering && swapped && u == 0 ? a.root : u < g.r ? 2 * u : u + g.r; };
    if (round <= g.d) {  // halving step `round`, bit round - 1
      if (paired && odd) return;
      const int64_t v = id < 2 * g.r ? id / 2 : id - g.r;
      const int k = round;
      const int64_t partner = real(v ^ (int64_t{1} << (k - 1)), false);
      const OmpiHalves h = ompi_halves(a.m, v, k);
      out.add_send(partner, kData, h.give.start, h.give.size);
      out.add_recv(partner, kData, h.keep.start, h.keep.size, RecvMode::recv_op_slot);
      return;
    }
    round -= g.d;
    if (swapped) {
      if (round == 1) {  // virtual rank 0 (processor 0) hands its window to the root
        const int64_t w = ompi_window(a.m, 0, g.d).size;
        if (id == 0) out.add_send(a.root, kData, 0, w);
        if (id == a.root) out.add_recv(0, kData, 0, w, RecvMode::copy);
        return;
      }
      round -= 1;
    }
    // Gather step `round`, bit s = d - round. Who plays virtual rank v now.
    int64_t v;
    if (swapped && id == a.root) v = 0;
    else if (swapped && id == 0) return;
    else if (paired && odd) return;
    else v = id < 2 * g.r ? id / 2 : id - g.r;
    const int s = g.d - round;
    const int64_t vroot = virtual_root(a), bit = int64_t{1} << s;
    if (((v ^ vroot) >> (s + 1)) != 0) return;  // left in an earlier step
    const int64_t partner = real(v ^ bit, true);
    // Halving step s + 1, undone.
    const OmpiHalves h = ompi_halves(a.m, v, s + 1);
    if (((v ^ vroot) & bit) != 0) out.add_send(partner, kData, h.keep.start, h.keep.size);  // its window after s + 1 halvings
    else out.add_recv(partner, kData, h.give.start, h.give.size, RecvMode::copy);           // what it gave in that step
  }
};

}  // namespace ppsim
