// NCCL's ring all-gather over C channels and S loops (nccl_rings.h): every rank's block of m words
// is cut into the S C pieces, and loop l runs the ring all-gather (Alg. 4-4) on every channel's
// ring at once for its pieces: in step i = 1..p-1 position x passes on the piece of the rank at
// position x - i + 1 (its own in step 1, then the one it received last) and takes the piece of the
// rank at position x - i from x - 1.
//   steps = (p - 1) S;  T = sum_l (p - 1)(t_s + C t_w w_l) = (p - 1) S t_s + (p - 1) t_w m  (S C | m),
// w_l the words of piece (l, 0), under C ports, the channels' messages sharing each link.
#pragma once
#include "algorithms/nccl_rings.h"

namespace ppsim {

struct AllgatherNcclRing : AlgorithmDefaults {
  static constexpr const char* name = "allgather_nccl_ring";
  static constexpr const char* description =
      "NCCL's ring all-gather on each of --channels rings (their own order across a cluster's nodes), --segments loops; C ports";
  static constexpr const char* formula_text = "sum over loops (p-1)(t_s + C t_w w_l) = (p-1) S t_s + (p-1) t_w m (S C | m)";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) { return channels_rejects(a, a.p - 1); }

  static int rounds(const AlgoParams& a) { return int((a.p - 1) * a.segments); }
  static double formula(const AlgoParams& a, const CostParams& c) { return channel_blocks_time(a, c, false); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    channel_blocks_step(a, id, round, 1, RecvMode::copy, out);
  }
};

}  // namespace ppsim
