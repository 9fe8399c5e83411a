// All-to-all personalized on a ring (textbook §4.5.1, eq. 4-7): each processor sends all its
// p - 1 outgoing blocks to the right in one message; every step a processor keeps the block meant
// for it and passes the rest on, so messages shrink by one block per step. Blocks in transit sit
// in a scratch buffer ordered by destination relative to the holder (slot k: for holder + k).
// p - 1 steps. T = sum_i (t_s + t_w m (p - i)) = (t_s + t_w m p/2)(p - 1)  [eq. 4-7].
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallRing : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_ring";
  static constexpr const char* description = "one shrinking message round the ring, keep yours and pass the rest (eq. 4-7)";
  static constexpr const char* formula_text = "(t_s + t_w m p/2)(p - 1)  [eq. 4-7]";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear) | kProcessorTrees;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kTransit = 2;  // scratch: slot k holds the block for (holder + k) mod p

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return (c.ts + c.tw * double(a.m) * double(a.p) / 2) * double(a.p - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t blocks = a.p - round;  // blocks in this step's messages
    out.add_send(pos_mod(id + 1, a.p), kTransit, a.m, blocks * a.m);
    // The first block of the message is mine (it came from id - round); the rest travel on.
    out.add_recv(pos_mod(id - 1, a.p), kResult, pos_mod(id - round, a.p) * a.m, blocks * a.m, RecvMode::copy);
    out.restrict_last_action(0, a.m);
    if (blocks > 1) {
      out.add_action(kTransit, a.m, RecvMode::copy);
      out.restrict_last_action(a.m, (blocks - 1) * a.m);
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase != LocalPhase::before_first_step) return;
    for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][id * a.m + w] = b.buf[kData][id * a.m + w];
    for (int64_t k = 1; k < a.p; ++k)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kTransit][k * a.m + w] = b.buf[kData][pos_mod(id + k, a.p) * a.m + w];
  }
};

}  // namespace ppsim
