// The ring reduce-scatter as Open MPI runs it (coll_tuned reduce_scatter algorithm 3,
// ompi_coll_base_reduce_scatter_intra_ring): reduce_scatter_ring's ring turned round. In step
// i = 1 .. p-1 processor x sends its partial of block (x - i) mod p to x + 1 and folds the partial
// of block (x - i - 1) mod p that x - 1 sends (received words on the left, as Open MPI's
// rbuf[block] = inbuf op rbuf[block]); after step p - 1 block x holds every contribution.
// ppsim's reduce_scatter_ring (Alg. 4-5) passes the partials to x - 1 instead. Partials grow round
// the ring, so ⊕ must be commutative. T = (t_s + (t_w + gamma) m)(p - 1), as reduce_scatter_ring.
#pragma once
#include "algorithms/reduce_scatter_ring.h"

namespace ppsim {

struct ReduceScatterRingOmpi : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_ring_ompi";
  static constexpr const char* description = "Open MPI's ring (coll_tuned 3): partials passed to x + 1, p - 1 steps";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m)(p - 1)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ReduceScatterRing::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return ReduceScatterRing::formula(a, c); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    out.add_send(pos_mod(id + 1, a.p), kData, pos_mod(id - round, a.p) * a.m, a.m);
    out.add_recv(pos_mod(id - 1, a.p), kData, pos_mod(id - round - 1, a.p) * a.m, a.m, RecvMode::recv_op_slot);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind op_kind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    ReduceScatterRing::local(a, op_kind, id, phase, b);
  }
};

}  // namespace ppsim
