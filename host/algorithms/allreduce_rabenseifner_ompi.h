// Rabenseifner's all-reduce as Open MPI runs it (coll_tuned algorithm 6,
// ompi_coll_base_allreduce_intra_redscat_allgather), message for message, with its fall-back:
//
//   m < p' = 2^floor(lg p): Open MPI's basic linear all-reduce instead: every processor sends its
//     m words to processor 0, which folds them in rank order (p - 1 steps, one receive a step), and
//     processor 0 sends the result to every other one (p - 1 steps);
//   else, with r = p - p':
//     - the r pairs (2j, 2j+1) swap halves (the even member sends the upper ceil(m/2) words and
//       keeps the lower floor(m/2), the odd one the other way round) and fold them, and the odd
//       member sends its folded upper half to the even one, which goes on as virtual rank j (2
//       steps; processors 2r and up are virtual ranks v = id - r);
//     - a recursive-halving reduce-scatter over the p' virtual ranks, lowest bit first: in step k
//       a window of w words splits into floor(w/2) kept by the lower rank and the rest by the upper;
//     - a recursive-doubling all-gather back, highest bit first;
//     - the even member of each pair sends the whole result to the odd one (1 step).
//   2 lg p' steps, + 3 when r > 0 (ppsim's allreduce_rabenseifner folds a whole vector into the odd
//   member instead, in 1 step, and hands back in 1).
// Open MPI folds with the received words on the left whatever the ranks: ⊕ must be commutative
// (Open MPI itself takes the linear algorithm for a non-commutative operation).
#pragma once
#include "algorithms/ompi_halving.h"

namespace ppsim {

struct AllreduceRabenseifnerOmpi : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_rabenseifner_ompi";
  static constexpr const char* description =
      "Open MPI's Rabenseifner (coll_tuned 6): pairs swap halves when p is no power of two, floor/ceil halving windows, and the "
      "linear all-reduce when m < 2^floor(lg p)";
  static constexpr const char* formula_text =
      "m >= p': [r > 0](3 t_s + (2 t_w + gamma) ceil(m/2) + t_w m) + sum_{k=1..lg p'} (2 t_s + (2 t_w + gamma) h_k), h_k the largest half "
      "in step k; m < p': (p-1)(2 t_s + (2 t_w + gamma) m)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  PPSIM_HD static bool linear(const AlgoParams& a) { return a.m < halving_group(a.p, -1).pp; }
  PPSIM_HD static int rounds(const AlgoParams& a) {
    if (a.p < 2) return 0;
    if (linear(a)) return int(2 * (a.p - 1));
    const HalvingGroup g = halving_group(a.p, -1);
    return 2 * g.d + (g.r > 0 ? 3 : 0);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.p < 2) return 0;
    if (linear(a)) return double(a.p - 1) * (largest_message_time(c, a.m, true) + largest_message_time(c, a.m, false));
    const HalvingGroup g = halving_group(a.p, -1);
    const int64_t upper = a.m - a.m / 2;  // the larger half
    double t = g.r > 0 ? largest_message_time(c, upper, true) + largest_message_time(c, upper, false) +
                             largest_message_time(c, a.m, false)
                       : 0.0;
    for (int k = 1; k <= g.d; ++k) {
      const int64_t largest = ompi_largest_half(a.m, k);
      t += largest_message_time(c, largest, true) + largest_message_time(c, largest, false);
    }
    return t;
  }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>
  // (inlined on the device, so that they stay in registers: called, they were a 544-byte frame).
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD PPSIM_DEVICE_INLINE static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    if (linear(a)) {  // basic linear: all to 0 in rank order, then 0 to all
      const int64_t sender = round;  // round j: processor j's vector to 0; round p - 1 + j: 0's result to j
      if (round <= a.p - 1) {
        if (id == sender) out.add_send(0, kData, 0, a.m);
        if (id == 0) out.add_recv(sender, kData, 0, a.m, RecvMode::slot_op_recv);
      } else {
        const int64_t to = round - (a.p - 1);
        if (id == 0) out.add_send(to, kData, 0, a.m);
        if (id == to) out.add_recv(0, kData, 0, a.m, RecvMode::copy);
      }
      return;
    }
    const HalvingGroup g = halving_group(a.p, -1);
    if (g.r > 0) {
      const bool paired = id < 2 * g.r, odd = id % 2 == 1;
      if (round <= 2) {  // the pairs swap halves and fold, the odd member's upper half to the even one
        ompi_pair_fold(g, a.m, id, round, out);
        return;
      }
      if (round == 2 * g.d + 3) {  // the even member's result to the odd one
        if (paired) {
          if (odd) out.add_recv(id - 1, kData, 0, a.m, RecvMode::copy);
          else out.add_send(id + 1, kData, 0, a.m);
        }
        return;
      }
      if (paired && odd) return;
      round -= 2;
    }
    const int64_t v = id < 2 * g.r ? id / 2 : id - g.r;
    auto real = [&](int64_t u) { return u < g.r ? 2 * u : u + g.r; };
    const bool halving = round <= g.d;
    const int k = halving ? round : g.d - (round - g.d) + 1;  // the halving step of the same bit
    const int64_t partner = real(v ^ (int64_t{1} << (k - 1)));
    const OmpiHalves h = ompi_halves(a.m, v, k);
    if (halving) {
      out.add_send(partner, kData, h.give.start, h.give.size);
      out.add_recv(partner, kData, h.keep.start, h.keep.size, RecvMode::recv_op_slot);
    } else {
      out.add_send(partner, kData, h.keep.start, h.keep.size);
      out.add_recv(partner, kData, h.give.start, h.give.size, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
