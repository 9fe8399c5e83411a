// Open MPI 4.1's nonoverlapping all-reduce (coll_tuned allreduce algorithm 2,
// ompi_coll_base_allreduce_intra_nonoverlapping): a reduce to rank 0, then a broadcast from rank 0,
// each the one that the communicator's own coll_tuned module picks. Where the rules (or an MCA
// setting) name allreduce 2 and leave reduce and bcast to Open MPI, those are the fixed decisions of
// coll_tuned_decision_fixed.c (for a commutative operator), by p and the bytes B = 8m:
//   reduce  p < 4:  B < 16 binary (4), B < 32 pipeline (3), more linear (1) ...
//           p < 8:  B < 4096 binary, B < 65536 chain (2), B < 262144 binomial (5), ...
//           p < 16: B < 8192 binary, else binomial;  p < 32: B < 4096 binary, else binomial;
//           p < 256 binomial;  larger p: binomial but for some sizes the in-order binary tree (6).
//   bcast   p < 4:  B < 32 pipeline (3), B < 256 binary (5), B < 512 pipeline, B < 1024 k-nomial (7), more linear ...
//           p < 8:  B < 64 binary, B < 128 binomial (6), B < 2048 binary, B < 8192 binomial, more linear (1) ...
//           p < 16: B < 8 k-nomial, B < 64 binary, B < 4096 k-nomial, B < 16384 binary, B < 32768 binomial, more linear;
//           p < 32: B < 4096 k-nomial, B < 2^20 binomial, more scatter + recursive doubling (8);
//           p < 64: B < 2048 binomial, else k-nomial;  p < 128: k-nomial;
//           p < 256: B < 16384 binary, B < 32768 linear, B < 65536 binary, else k-nomial;
//           p < 1024: B < 16384 k-nomial, B < 32768 split binary tree (4), else k-nomial;
//           p < 2048: B < 2^19 k-nomial, else (8);  p < 4096: B < 2^18 k-nomial, else (8);
//           more: B < 8192 k-nomial, B < 16384 binary, B < 2^18 k-nomial, else (8).
// Each part runs unsegmented (the decision passes segment size 0). This unit runs the two with ppsim's
// units that send what Open MPI's do: reduce 4 on Open MPI's binary tree (broadcast_bintree_ompi's
// tree with one segment, run backwards: a rank receives from its right child, then its left one, then
// sends to its parent), reduce 5 as reduce_binomial; bcast 3 as broadcast_chain, 5 as
// broadcast_bintree_ompi, 6 as broadcast_binomial_low_first, 7 as broadcast_knomial (--radix, which
// must be Open MPI's coll_tuned_bcast_knomial_radix, 4 unless set), 8 as
// broadcast_scatter_allgather_ompi. Where Open MPI picks a part ppsim has no unit for (the linear,
// chain or pipeline reduce, the in-order binary reduce, the linear or split-binary bcast) the unit
// refuses the configuration, so no rules file names 2 there. Only for a commutative ⊕ (Open MPI
// decides otherwise for the others).
//   T = R (t_s + (t_w + gamma) m) + T_bcast,  R = the binary tree's depth + right turns
//       (broadcast_bintree_ompi's steps at S = 1) for reduce 4, ceil(lg p) for reduce 5;
//       T_bcast the chosen broadcast's closed form at S = 1.
#pragma once
#include "algorithms/broadcast_binomial_low_first.h"
#include "algorithms/broadcast_bintree_ompi.h"
#include "algorithms/broadcast_chain.h"
#include "algorithms/broadcast_knomial.h"
#include "algorithms/broadcast_scatter_allgather_ompi.h"
#include "algorithms/reduce_binomial.h"

namespace ppsim {

struct AllreduceNonoverlappingOmpi : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_nonoverlapping_ompi";
  static constexpr const char* description =
      "Open MPI's nonoverlapping all-reduce (coll_tuned 2): reduce to 0, then bcast from 0, each as Open MPI 4.1's fixed decision picks it by p and m";
  static constexpr const char* formula_text =
      "R (t_s + (t_w + gamma) m) + T_bcast: R = binary-tree steps (reduce 4) or ceil(lg p) (reduce 5), T_bcast the broadcast Open MPI picks (3, 5, 6, 7 or 8) at one segment";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  // Open MPI 4.1's fixed reduce decision for a commutative operator; 0 where it picks one ppsim lacks.
  PPSIM_HD static int reduce_algorithm(int64_t p, int64_t m) {
    const int64_t b = 8 * m;
    if (p < 4) return b < 16 ? 4 : 0;  // B < 8 (Rabenseifner) cannot happen
    if (p < 8) return b < 4096 ? 4 : b < 65536 ? 0 : b < 262144 ? 5 : b < 524288 ? 0 : b < 1048576 ? 5 : 0;
    if (p < 16) return b < 8192 ? 4 : 5;
    if (p < 32) return b < 4096 ? 4 : 5;
    if (p < 256) return 5;
    if (p < 512) return b < 8192 ? 5 : b < 16384 ? 0 : 5;
    if (p < 2048) return 5;
    if (p < 4096) return b < 512 ? 5 : b < 1024 ? 0 : b < 8192 ? 5 : b < 16384 ? 0 : 5;
    return b < 16 ? 5 : b < 32 ? 0 : b < 1024 ? 5 : b < 2048 ? 0 : b < 8192 ? 5 : b < 16384 ? 0 : 5;
  }
  // Open MPI 4.1's fixed bcast decision; 0 where it picks one ppsim lacks (1 linear, 2 chain, 4 split binary).
  PPSIM_HD static int bcast_algorithm(int64_t p, int64_t m) {
    const int64_t b = 8 * m;
    if (p < 4) return b < 32 ? 3 : b < 256 ? 5 : b < 512 ? 3 : b < 1024 ? 7 : 0;  // then linear, binary, chain, ... (not past B = 32768 here)
    if (p < 8) return b < 64 ? 5 : b < 128 ? 6 : b < 2048 ? 5 : b < 8192 ? 6 : 0;
    if (p < 16) return b < 8 ? 7 : b < 64 ? 5 : b < 4096 ? 7 : b < 16384 ? 5 : b < 32768 ? 6 : 0;
    if (p < 32) return b < 4096 ? 7 : b < 1048576 ? 6 : 8;
    if (p < 64) return b < 2048 ? 6 : 7;
    if (p < 128) return 7;
    if (p < 256) return b < 2 ? 6 : b < 16384 ? 5 : b < 32768 ? 0 : b < 65536 ? 5 : 7;
    if (p < 1024) return b < 16384 ? 7 : b < 32768 ? 0 : 7;
    if (p < 2048) return b < 524288 ? 7 : 8;
    if (p < 4096) return b < 262144 ? 7 : 8;
    return b < 8192 ? 7 : b < 16384 ? 5 : b < 262144 ? 7 : 8;
  }

  static const char* rejects(const AlgoParams& a) {
    if (reduce_algorithm(a.p, a.m) == 0 || bcast_algorithm(a.p, a.m) == 0) return refusal();
    if (bcast_algorithm(a.p, a.m) == 7) return knomial_limit(a);
    return nullptr;
  }
  static const char* refusal() {
    return "allreduce_nonoverlapping_ompi: at this p and m Open MPI 4.1 reduces or broadcasts with an algorithm ppsim has no unit for "
           "(linear, chain, pipeline reduce, in-order binary reduce, split binary bcast)";
  }

  // The parts' parameters: root 0, one segment.
  PPSIM_HD static AlgoParams part(const AlgoParams& a) {
    AlgoParams b = a;
    b.root = 0;
    b.segments = 1;
    return b;
  }
  // Steps of Open MPI's binary tree at one segment (broadcast_bintree_ompi's): the largest lag.
  PPSIM_HD static int bintree_steps(int64_t p) {
    if (p < 2) return 0;
    if (p == 2) return 1;
    const int h = floor_log2(p);
    int64_t best = 2 * h - 1 > h + popcount64(p) ? 2 * h - 1 : h + popcount64(p);
    for (int j = 0; j < h; ++j)
      if ((p >> j) & 1) {
        const int64_t x = h + popcount64(p >> (j + 1)) + j;
        if (x > best) best = x;
      }
    return int(best - 1);
  }
  PPSIM_HD static int reduce_steps(const AlgoParams& a) {
    return reduce_algorithm(a.p, a.m) == 4 ? bintree_steps(a.p) : ceil_log2(a.p);
  }

  // The bcast's steps at one segment (its unit's rounds, written for the device too: an all-reduce
  // may run between the nodes of a composite).
  PPSIM_HD static int bcast_steps(const AlgoParams& a) {
    const AlgoParams b = part(a);
    switch (bcast_algorithm(a.p, a.m)) {
      case 3: return a.p < 2 ? 0 : int(a.p - 1);  // broadcast_chain, one segment
      case 5: return bintree_steps(a.p);
      case 6: return ceil_log2(a.p);
      case 7: {
        const int d = knomial_depth(b.p, b.radix);
        int64_t steps = 0;
        for (int r = 1; r <= d; ++r) steps += knomial_round_steps(b, d, r);
        return int(steps);
      }
      case 8: return BroadcastScatterAllgatherOmpi::rounds(b);
      default: return 0;
    }
  }
  PPSIM_HD static int rounds(const AlgoParams& a) { return reduce_steps(a) + bcast_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const AlgoParams b = part(a);
    double t = double(reduce_steps(a)) * (c.ts + (c.tw + c.gamma) * double(a.m));
    switch (bcast_algorithm(a.p, a.m)) {
      case 3: return t + BroadcastChain::formula(b, c);
      case 5: return t + BroadcastBintreeOmpi::formula(b, c);
      case 6: return t + BroadcastBinomialLowFirst::formula(b, c);
      case 7: return t + BroadcastKnomial::formula(b, c);
      case 8: return t + BroadcastScatterAllgatherOmpi::formula(b, c);
      default: return no_formula();
    }
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const AlgoParams b = part(a);
    const int r = reduce_steps(a);
    if (round <= r) {
      if (reduce_algorithm(a.p, a.m) != 4) {
        ReduceBinomial::ops(b, id, round, out);
        return;
      }
      // Open MPI's binary tree backwards: the broadcast's send to a child is a receive from it,
      // its receive from the parent a send to it.
      StepOps down;
      BroadcastBintreeOmpi::ops(b, id, r + 1 - round, down);
      for (int i = 0; i < down.nsend; ++i)
        out.add_recv(down.send[i].to, kData, 0, a.m, RecvMode::slot_op_recv);
      for (int i = 0; i < down.nrecv; ++i) out.add_send(down.recv[i].from, kData, 0, a.m);
      return;
    }
    switch (bcast_algorithm(a.p, a.m)) {
      case 3: BroadcastChain::ops(b, id, round - r, out); break;
      case 5: BroadcastBintreeOmpi::ops(b, id, round - r, out); break;
      case 6: BroadcastBinomialLowFirst::ops(b, id, round - r, out); break;
      case 7: BroadcastKnomial::ops(b, id, round - r, out); break;
      case 8: BroadcastScatterAllgatherOmpi::ops(b, id, round - r, out); break;
      default: break;
    }
  }
};

}  // namespace ppsim
