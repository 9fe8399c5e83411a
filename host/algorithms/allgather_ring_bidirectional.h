// Bidirectional ring all-to-all broadcast: every step each processor passes one block to the right
// and another to the left, so blocks travel both ways and ceil((p-1)/2) steps suffice. Two sends
// and two receives per step: it needs the 2-port (or all-port) model. With p even the last step
// only goes right (the block opposite arrives once). T = (t_s + t_w m) ceil((p-1)/2).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AllgatherRingBidirectional : AlgorithmDefaults {
  static constexpr const char* name = "allgather_ring_bidirectional";
  static constexpr const char* description = "blocks travel both ways round a ring, ceil((p-1)/2) steps; needs 2 ports";
  static constexpr const char* formula_text = "(t_s + t_w m) ceil((p - 1) / 2)";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr int sends_per_step = 2;  // ports it needs (k-port, k >= this)

  static int rounds(const AlgoParams& a) { return int(a.p / 2); }  // = ceil((p-1)/2)
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int64_t right = id + 1 == a.p ? 0 : id + 1, left = id == 0 ? a.p - 1 : id - 1;
    out.add_send(right, kData, pos_mod(id - round + 1, a.p) * a.m, a.m);
    out.add_recv(left, kData, pos_mod(id - round, a.p) * a.m, a.m, RecvMode::copy);
    bool last_even = a.p % 2 == 0 && round == a.p / 2;
    if (a.p > 2 && !last_even) {
      out.add_send(left, kData, pos_mod(id + round - 1, a.p) * a.m, a.m);
      out.add_recv(right, kData, pos_mod(id + round, a.p) * a.m, a.m, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
