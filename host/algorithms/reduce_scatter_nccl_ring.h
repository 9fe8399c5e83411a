// NCCL's ring reduce-scatter over C channels and S loops (nccl_rings.h): every rank's block j (the
// m words that rank j ends with) is cut into the S C pieces, and loop l runs the ring
// reduce-scatter on every channel's ring at once: in step i = 1..p-1 position x passes its partial
// of the block of the rank at position x - i to x + 1 and folds the partial of the block of the rank
// at position x - i - 1 from x - 1 into its own; after step p - 1 the block of x's own rank holds
// every contribution, and a local copy puts it in the result. Partials go round the ring: ⊕ must be
// commutative.
//   steps = (p - 1) S;  T = sum_l (p - 1)(t_s + (C t_w + gamma) w_l) = (p-1) S t_s + (p-1)(t_w + gamma/C) m  (S C | m),
// under C ports, the channels' messages sharing each link.
#pragma once
#include "algorithms/nccl_rings.h"

namespace ppsim {

struct ReduceScatterNcclRing : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_nccl_ring";
  static constexpr const char* description =
      "NCCL's ring reduce-scatter on each of --channels rings (their own order across a cluster's nodes), --segments loops; C "
      "ports";
  static constexpr const char* formula_text =
      "sum over loops (p-1)(t_s + (C t_w + gamma) w_l) = (p-1) S t_s + (p-1)(t_w + gamma/C) m (S C | m)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;
  static const char* rejects(const AlgoParams& a) { return channels_rejects(a, a.p - 1); }

  static int rounds(const AlgoParams& a) { return int((a.p - 1) * a.segments); }
  static double formula(const AlgoParams& a, const CostParams& c) { return channel_blocks_time(a, c, true); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    channel_blocks_step(a, id, round, 0, RecvMode::recv_op_slot, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
