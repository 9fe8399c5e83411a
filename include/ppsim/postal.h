// The k-port postal model's lower bound (seed 000, Theorem 1). With latency lambda a message sent
// in step j is received in step j + lambda - 1; G(j) bounds how many processors can hold v(0)
// after step j:
//   G(j) = 1                           for 0 <= j < lambda
//   G(j) = G(j-1) + k G(j-lambda)      for j >= lambda
// and a prefix (or broadcast, or reduction) over n processors needs min{ i | G(i) >= n } steps.
#pragma once
#include "ppsim/hd.h"

namespace ppsim {

inline constexpr int64_t kPostalGCap = int64_t{1} << 62;  // G saturates here (no overflow)

// G(j) for j >= 0 (j < 0 gives 0: no processor can have received anything "before step 0").
PPSIM_HD inline int64_t postal_g(int j, int k, int lambda) {
  if (j < 0) return 0;
  if (j < lambda) return 1;
  // Rolling window of the last lambda values: window[x % lambda] = G(x).
  int64_t window[1024];
  for (int x = 0; x < lambda; ++x) window[x] = 1;
  int64_t g = 1;
  for (int x = lambda; x <= j; ++x) {
    int64_t prev = window[(x - 1) % lambda], back = window[x % lambda];  // G(x-1), G(x-lambda)
    g = (back > (kPostalGCap - prev) / (k > 0 ? k : 1)) ? kPostalGCap : prev + int64_t(k) * back;
    window[x % lambda] = g;
  }
  return g;
}

// min{ i | G(i) >= n }: the fewest steps in which n processors can all be reached. One pass of
// the recurrence (the algorithms call this per processor and step).
PPSIM_HD inline int postal_min_steps(int64_t n, int k, int lambda) {
  if (n <= 1) return 0;
  int64_t window[1024];  // window[x % lambda] = G(x), as in postal_g
  for (int x = 0; x < lambda; ++x) window[x] = 1;
  for (int x = lambda;; ++x) {  // G(x) = 1 below lambda, so the answer is at least lambda
    const int64_t prev = window[(x - 1) % lambda], back = window[x % lambda];
    const int64_t g = (back > (kPostalGCap - prev) / (k > 0 ? k : 1)) ? kPostalGCap : prev + int64_t(k) * back;
    if (g >= n) return x;
    window[x % lambda] = g;
  }
}

}  // namespace ppsim
