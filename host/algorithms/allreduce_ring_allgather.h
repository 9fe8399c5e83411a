// All-reduce by a ring all-to-all broadcast of every processor's m words into a p*m-word scratch
// buffer, then a local fold of the p vectors in processor order (textbook exercise 4.6 strategy i).
// p - 1 steps. T = (t_s + t_w m)(p - 1) (plus the local fold, not modelled).
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"

namespace ppsim {

struct AllreduceRingAllgather : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_ring_allgather";
  static constexpr const char* description = "ring all-gather of all vectors, then a local fold (exercise 4.6 i)";
  static constexpr const char* formula_text = "(t_s + t_w m)(p - 1) + gamma m (p - 1)  (the local fold)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kGathered = 1;  // scratch: p blocks of m words

  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static int64_t local_combined_words(const AlgoParams& a) { return a.m * (a.p - 1); }  // the final fold
  static double formula(const AlgoParams& a, const CostParams& c) {
    return (c.ts + c.tw * a.m) * double(a.p - 1) + c.gamma * double(local_combined_words(a));
  }

  // At most one send and one receive a round: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    ring_allgather_step(a.p, id, round, kGathered, a.m, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind k, int64_t id, LocalPhase phase, ProcBuffers& b) {
    uint64_t *data = b.buf[kData], *all = b.buf[kGathered];
    for (int64_t w = 0; w < a.m; ++w) {
      if (phase == LocalPhase::before_first_step) {
        all[id * a.m + w] = data[w];
      } else {
        uint64_t fold = all[w];
        for (int64_t j = 1; j < a.p; ++j) fold = combine_dyn(k, fold, all[j * a.m + w]);
        data[w] = fold;
      }
    }
  }
};

}  // namespace ppsim
