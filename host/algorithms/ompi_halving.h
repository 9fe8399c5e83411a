// Open MPI's Rabenseifner halving (ompi_coll_base_allreduce_intra_redscat_allgather and
// ompi_coll_base_reduce_intra_redscat_gather), shared by allreduce_rabenseifner_ompi and
// reduce_rabenseifner_ompi. With p' = 2^floor(lg p) and r = p - p' (recursive_halving.h's
// HalvingGroup, no kept member):
//   - the r pairs (2j, 2j+1) first swap halves of the m words (the even member sends the upper
//     ceil(m/2) and folds the lower floor(m/2), the odd one the other way round), and the odd
//     member sends its folded upper half to the even one (rounds 1 and 2);
//   - the p' virtual ranks then halve lowest bit first: in step k virtual rank v's window of w
//     words splits at floor(w/2), the lower part kept by the rank whose bit k-1 is 0, the upper
//     ceil(w/2) by its partner v ^ 2^(k-1). The cut follows the words, not MPICH's p' blocks.
#pragma once
#include "algorithms/recursive_halving.h"

namespace ppsim {

// Words [start, start + size) of the vector.
struct OmpiWindow {
  int64_t start, size;
};

// The window virtual rank v keeps after k halvings of m words.
PPSIM_HD inline OmpiWindow ompi_window(int64_t m, int64_t v, int k) {
  OmpiWindow w{0, m};
  for (int j = 0; j < k; ++j) {
    const int64_t lower = w.size / 2;
    if ((v >> j) & 1) {
      w.start += lower;
      w.size -= lower;
    } else {
      w.size = lower;
    }
  }
  return w;
}

// Halving step k (1..d) of virtual rank v: the part of its window it keeps, and the part it gives
// its partner v ^ 2^(k-1) (the partner's keep).
struct OmpiHalves {
  OmpiWindow keep, give;
};
PPSIM_HD inline OmpiHalves ompi_halves(int64_t m, int64_t v, int k) {
  const OmpiWindow w = ompi_window(m, v, k - 1);
  const int64_t half = w.size / 2;
  const OmpiWindow lower{w.start, half}, upper{w.start + half, w.size - half};
  return ((v >> (k - 1)) & 1) == 0 ? OmpiHalves{lower, upper} : OmpiHalves{upper, lower};
}

// The largest part given in halving step k: the upper half of the largest window after k - 1
// halvings, the one that took the upper half every time.
PPSIM_HD inline int64_t ompi_largest_half(int64_t m, int k) {
  const int64_t size = ompi_window(m, (int64_t{1} << (k - 1)) - 1, k - 1).size;
  return size - size / 2;
}

// Rounds 1 and 2 when p is no power of two (g.r > 0): the pairs swap halves and fold them (the
// received words on the left), then the odd member hands its folded upper half to the even one.
template <class Ops>
PPSIM_HD PPSIM_DEVICE_INLINE void ompi_pair_fold(const HalvingGroup& g, int64_t m, int64_t id, int round, Ops& out) {
  const int64_t lower = m / 2, upper = m - lower;
  const bool odd = id % 2 == 1;
  if (id >= 2 * g.r) return;
  if (round == 1) {
    out.add_send(id ^ 1, kData, odd ? 0 : lower, odd ? lower : upper);
    out.add_recv(id ^ 1, kData, odd ? lower : 0, odd ? upper : lower, RecvMode::recv_op_slot);
  } else if (odd) {
    out.add_send(id - 1, kData, lower, upper);
  } else {
    out.add_recv(id + 1, kData, lower, upper, RecvMode::copy);
  }
}

}  // namespace ppsim
