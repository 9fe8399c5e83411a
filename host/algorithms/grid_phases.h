// Helpers for algorithms that work one mesh dimension at a time (textbook §4.1.2, §4.2.2):
// phases go X first (the fastest-varying coordinate, i.e. along a row), then Y, then Z.
#pragma once
#include "ppsim/schedule.h"

namespace ppsim {

PPSIM_HD inline int64_t grid_stride(const AlgoParams& a, int k) { return row_major_stride(a.dims, a.ndims, k); }
PPSIM_HD inline int64_t grid_coord(const AlgoParams& a, int64_t id, int k) { return (id / grid_stride(a, k)) % a.dims[k]; }
PPSIM_HD inline int64_t grid_with_coord(const AlgoParams& a, int64_t id, int k, int64_t c) {
  return id + (c - grid_coord(a, id, k)) * grid_stride(a, k);
}

// Finds which dimension a global round belongs to when dimension k takes rounds_of(k) rounds and
// phases run k = ndims-1 down to 0. Returns the dimension (or -1) and the round inside it.
template <class RoundsOf>
PPSIM_HD inline int grid_phase(const AlgoParams& a, int round, int& local_round, RoundsOf&& rounds_of) {
  for (int k = a.ndims - 1; k >= 0; --k) {
    int r = rounds_of(k);
    if (round <= r) {
      local_round = round;
      return k;
    }
    round -= r;
  }
  return -1;
}

}  // namespace ppsim
