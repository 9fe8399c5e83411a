// All-to-all personalized on a hypercube (textbook §4.5.3, eq. 4-9): log p steps; in step r
// processor x exchanges with x ^ 2^(r-1) the p/2 blocks that must cross that dimension. Kept in
// place: a block from s to d sits at the index made of s's bits below the current dimension and
// d's bits from it up, so the blocks that cross are those whose index has bit r-1 opposite to
// x's (runs of 2^(r-1) blocks every 2^r), and the partner's arrive in the same places.
// T = (t_s + t_w m p/2) log p  [eq. 4-9].
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallHypercube : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_hypercube";
  static constexpr const char* description = "exchange the p/2 blocks crossing each dimension, log p steps (eq. 4-9)";
  static constexpr const char* formula_text = "(t_s + t_w m p/2) log p  [eq. 4-9]";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * double(a.m) * double(a.p) / 2) * ceil_log2(a.p); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t bit = int64_t{1} << (round - 1), partner = id ^ bit;
    const int64_t off = (bit - (id & bit)) * a.m, run = bit * a.m, stride = 2 * bit * a.m, count = a.p / (2 * bit);
    out.add_send_strided(partner, kResult, off, run, stride, count);
    out.add_recv_strided(partner, kResult, off, run, stride, count, RecvMode::copy);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)
      for (int64_t w = 0; w < a.p * a.m; ++w) b.buf[kResult][w] = b.buf[kData][w];
  }
};

}  // namespace ppsim
