// The ring all-reduce as Open MPI runs it (coll_tuned algorithm 4, ompi_coll_base_allreduce_intra_ring):
// the ring of allreduce_ring (p chunks, the first m mod p one word longer; processor x passes chunk
// x - i + 1 in step i of the reduce-scatter and x - i + 2 in the all-gather) when m >= p, and
// Open MPI's fall-back when m < p, recursive doubling, which is allreduce_hypercube message for
// message (the pairs (2j, 2j+1) fold into the odd member when p is no power of two, which hands the
// result back at the end).
//   m >= p: 2 (p-1) steps, T = 2 (p-1) t_s + (p-1) ceil(m/p) (2 t_w + gamma);
//   m < p:  floor(lg p) (+ 2) steps, T = allreduce_hypercube's.
#pragma once
#include "algorithms/allreduce_hypercube.h"
#include "algorithms/allreduce_ring.h"

namespace ppsim {

struct AllreduceRingOmpi : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_ring_ompi";
  static constexpr const char* description =
      "Open MPI's ring (coll_tuned 4): the ring reduce-scatter and all-gather when m >= p, recursive doubling when m < p";
  static constexpr const char* formula_text =
      "m >= p: 2 (p-1) t_s + (p-1) ceil(m/p) (2 t_w + gamma); m < p: (t_s + t_w m) log p + gamma m log p (+2 steps if p is not 2^d)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  PPSIM_HD static bool doubling(const AlgoParams& a) { return a.m < a.p; }
  PPSIM_HD static int rounds(const AlgoParams& a) { return doubling(a) ? AllreduceHypercube::rounds(a) : AllreduceRing::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return doubling(a) ? AllreduceHypercube::formula(a, c) : AllreduceRing::formula(a, c);
  }
  // At most one send and one receive a round, as the two it is made of.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    if (doubling(a)) AllreduceHypercube::ops(a, id, round, out);
    else AllreduceRing::ops(a, id, round, out);
  }
};

}  // namespace ppsim
