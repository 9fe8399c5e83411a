// Dissemination barrier (Hensgen, Finkel and Manber 1988), k-port form: with d = (k+1)^(r-1), in
// round r processor i signals i + j d and hears from i - j d (mod p), j = 1 .. k (only the j with
// j d < p: the others would reach no one new). After round r processor i has heard, through chains
// of such signals, from i - (k+1)^r + 1 .. i, so after ceil(log_{k+1} p) rounds from everyone.
// Single-port (k = 1): round r, i -> i + 2^(r-1). The messages carry no data (their knowledge
// token is the simulator's and costs nothing), so T = t_s ceil(log_{k+1} p); the lower bound.
//
//   p = 5, k = 1:  round 1: i -> i+1   round 2: i -> i+2   round 3: i -> i+4
//                  knows:   2 ranks             4 ranks             all 5
#pragma once
#include "algorithms/algorithm_unit.h"
#include "ppsim/postal.h"

namespace ppsim {

struct BarrierDissemination : AlgorithmDefaults {
  static constexpr const char* name = "barrier_dissemination";
  static constexpr const char* description = "dissemination: round r, i signals i + j (k+1)^(r-1), j = 1..k (Hensgen-Finkel-Manber)";
  static constexpr const char* formula_text = "t_s ceil(log_{k+1} p), k = ports (single-port: t_s ceil(log2 p))";
  static constexpr Operation op = Operation::barrier;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kAllTopologies;
  static constexpr uint32_t flags = 0;

  // ceil(log_{k+1} p): Lin–Yeh's G with lambda = 1 is (k+1)^j.
  static int rounds(const AlgoParams& a) { return postal_min_steps(a.p, a.kports, 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return c.ts * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t k = a.kports;
    int64_t d = 1;  // (k+1)^(round-1) < p
    // (single-port: a shift; the loop's dependent multiplications were a third of the LogGP
    // timings' reading of this unit's rounds at 2^18 processors)
    if (k == 1) d = int64_t(1) << (round - 1);
    else
      for (int r = 1; r < round; ++r) d *= k + 1;
    for (int64_t j = 1; j <= k && j * d < a.p; ++j) out.add_send(pos_mod(id + j * d, a.p), kData, 0, 1);
    // Nearest first: each token received touches what is known already (barrier_token.h).
    for (int64_t j = 1; j <= k && j * d < a.p; ++j) out.add_recv(pos_mod(id - j * d, a.p), kData, 0, 1, RecvMode::recv_op_slot);
  }
};

}  // namespace ppsim
