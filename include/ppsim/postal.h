// The k-port postal model's lower bound (Lin–Yeh Theorem 1). With latency lambda a message sent
// in step j is received in step j + lambda - 1; G(j) bounds how many processors can hold v(0)
// after step j:
//   G(j) = 1                           for 0 <= j < lambda
//   G(j) = G(j-1) + k G(j-lambda)      for j >= lambda
// and a prefix (or broadcast, or reduction) over n processors needs min{ i | G(i) >= n } steps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ppsim/hd.h"
#include "ppsim/schedule.h"

namespace ppsim {

inline constexpr int64_t kPostalGCap = int64_t{1} << 62;  // G saturates here (no overflow)

// G(x) from G(x-1) and G(x-lambda): prev + k back, saturated at the cap.
PPSIM_HD inline int64_t postal_next(int64_t prev, int64_t back, int k) {
  return (back > (kPostalGCap - prev) / (k > 0 ? k : 1)) ? kPostalGCap : prev + int64_t(k) * back;
}

// G(j) for j >= 0 (j < 0 gives 0: no processor can have received anything "before step 0").
PPSIM_HD inline int64_t postal_g(int j, int k, int lambda) {
  if (j < 0) return 0;
  if (j < lambda) return 1;
  // Rolling window of the last lambda values: window[x % lambda] = G(x).
  int64_t window[1024];
  for (int x = 0; x < lambda; ++x) window[x] = 1;
  int64_t g = 1;
  for (int x = lambda; x <= j; ++x) {
    g = postal_next(window[(x - 1) % lambda], window[x % lambda], k);  // G(x-1), G(x-lambda)
    window[x % lambda] = g;
  }
  return g;
}

// min{ i | G(i) >= n }: the fewest steps in which n processors can all be reached, for n up to the
// cap (G saturates there, so a larger n gets the cap's answer instead of a search without end).
PPSIM_HD inline int postal_min_steps(int64_t n, int k, int lambda) {
  if (n > kPostalGCap) n = kPostalGCap;
  if (n <= 1 || lambda < 1 || lambda > 1024) return 0;  // lambda is checked by the callers (1..1024)
  int64_t window[1024];                                 // window[x % lambda] = G(x), as in postal_g
  for (int x = 0; x < lambda; ++x) window[x] = 1;
  for (int x = lambda;; ++x) {  // G(x) = 1 below lambda, so the answer is at least lambda
    const int64_t g = postal_next(window[(x - 1) % lambda], window[x % lambda], k);
    if (g >= n) return x;
    window[x % lambda] = g;
  }
}

// G(j) of a run: from the run's table when the engine attached one, else the recurrence. The table
// holds every index a step of the postal algorithms asks for (up to min_steps + lambda - 2); past its
// end G(j) >= G(min_steps) >= p, and the cap stands for it: the algorithms only compare such G with
// ranks below p, where every value >= p acts alike (tests compare runs with and without a table).
// A device run always has the table (run_rounds attaches it), so the device code has no recurrence
// and no 8 KB window per thread; without a table it stops the kernel (__trap), and the next checked
// CUDA call of the run fails with its expression, file and line.
PPSIM_HD inline int64_t run_postal_g(const AlgoParams& a, int j) {
  if (a.postal_g_tab == nullptr) {
#if defined(__CUDA_ARCH__)
    __trap();
#else
    return postal_g(j, a.kports, a.lambda);
#endif
  }
  if (j < 0) return 0;
  return j < a.postal_g_len ? a.postal_g_tab[j] : kPostalGCap;
}

// min{ j | G(j) >= p } of a run.
PPSIM_HD inline int run_postal_steps(const AlgoParams& a) {
  if (a.postal_g_tab == nullptr) {
#if defined(__CUDA_ARCH__)
    __trap();
#else
    return postal_min_steps(a.p, a.kports, a.lambda);
#endif
  }
  return a.postal_steps;
}

// G(0 .. min_steps(p) + lambda - 1) for one run's (p, k, lambda): computed once on the host, then
// attached to the run's parameters (the CUDA backend copies it to the device first).
class PostalTable {
 public:
  explicit PostalTable(const AlgoParams& a) : steps_(postal_min_steps(a.p, a.kports, a.lambda)) {
    const int lambda = a.lambda < 1 ? 1 : a.lambda, k = a.kports;
    g_.assign(std::size_t(steps_) + std::size_t(lambda), 1);
    for (std::size_t x = std::size_t(lambda); x < g_.size(); ++x) g_[x] = postal_next(g_[x - 1], g_[x - std::size_t(lambda)], k);
  }
  const std::vector<int64_t>& values() const { return g_; }
  int steps() const { return steps_; }
  // Points a's table at `where` (a copy of values(), on the host or the device).
  void attach(AlgoParams& a, const int64_t* where) const {
    a.postal_g_tab = where;
    a.postal_g_len = int32_t(g_.size());
    a.postal_steps = steps_;
  }
  // A copy of a reading this (host) table.
  AlgoParams attached(AlgoParams a) const {
    attach(a, g_.data());
    return a;
  }

 private:
  int steps_;
  std::vector<int64_t> g_;
};

}  // namespace ppsim
