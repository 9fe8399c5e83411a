// PAT, "Parallel Aggregated Trees" (Jeaugey 2025; NCCL 2.23+'s PatAGAlgorithm/PatRSAlgorithm),
// shared by allgather_pat and reduce_scatter_pat. PAT is Bruck's all-gather with the dimensions
// taken in the reverse order, so that the far peers get little data and the near ones much:
// rank r holds the blocks of ranks r + s, s an offset, in a scratch buffer rotated by r (slot s holds
// block (r + s) mod p). With k = ceil(log2 p), all-gather step for dimension d = k-1, ..., 0: r sends
// to r - 2^d every slot s = 0 (mod 2^(d+1)) with s + 2^d < p, which the peer stores at s + 2^d. A
// block thus travels down a binomial tree, its offset gaining its binary digits from the highest
// to the lowest; an offset s >= p is skipped, which makes it work for any p. The reduce-scatter
// runs the same tree backwards, d = 0 .. k-1, folding.
//
// NCCL sends these trees in chunks through a fixed buffer: with room to aggregate every block of
// a dimension in one message (small operations), a step per dimension, as here; with less room
// the same trees go in more, smaller steps (up to p - 1), which this unit does not model.
//
// Dimension d moves c_d = ceil((p - 2^d) / 2^(d+1)) blocks per rank (p/2^(d+1) at p = 2^k): slots
// j 2^(d+1), j < c_d, one strided message of c_d runs of m words. sum_d c_d = p - 1.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

// Blocks a rank sends along dimension d: the offsets j 2^(d+1) with j 2^(d+1) + 2^d < p.
PPSIM_HD inline int64_t pat_blocks(int64_t p, int d) {
  const int64_t half = int64_t{1} << d;
  return (p - half + 2 * half - 1) / (2 * half);
}

// Dimension d's step: `dir` = -1 sends slots j 2^(d+1) to r - 2^d and receives slots j 2^(d+1) + 2^d
// from r + 2^d (the all-gather); +1 sends slots j 2^(d+1) + 2^d to r + 2^d and folds r - 2^d's into
// slots j 2^(d+1) (the reduce-scatter).
PPSIM_HD inline void pat_step(int64_t p, int64_t m, int64_t id, int d, int dir, int32_t buf, StepOps& out) {
  const int64_t half = int64_t{1} << d, count = pat_blocks(p, d), stride = 2 * half * m;
  const bool gathering = dir < 0;
  out.add_send_strided(pos_mod(id + dir * half, p), buf, gathering ? 0 : half * m, m, stride, count);
  out.add_recv_strided(pos_mod(id - dir * half, p), buf, gathering ? half * m : 0, m, stride, count,
                       gathering ? RecvMode::copy : RecvMode::recv_op_slot);
}

// T of either: sum_d (t_s + (t_w + combine) m c_d), combine = gamma for the reduce-scatter.
inline double pat_time(const AlgoParams& a, const CostParams& c, double combine) {
  double t = 0;
  for (int d = 0; d < ceil_log2(a.p); ++d) t += c.ts + (c.tw + combine) * double(a.m) * double(pat_blocks(a.p, d));
  return t;
}

}  // namespace ppsim
