// The k-nomial tree shared by broadcast_knomial and reduce_knomial (radix k = AlgoParams::radix),
// on ranks relative to the root, d = ceil(log_k p) rounds. In spread round r (1..d) the unit is
// u = k^(d-r): the ranks that are multiples of k u hold the data and send it to their children
// x + j u, j = 1..k-1 (those < p). k = 2 is broadcast_binomial's farthest-first tree.
//
//   k = 3, p = 9:   round 1 (u = 3): 0->3, 0->6
//                   round 2 (u = 1): 0->1, 0->2, 3->4, 3->5, 6->7, 6->8
//
// Ports: a round's k - 1 sends go out K = AlgoParams::kports (--ports K) at a time, children in
// ascending j, so round r takes ceil(c_r / K) steps, c_r = min(k - 1, floor((p - 1)/u)) being the
// most children a sender has in it (rank 0's). Only round 1 can have c_r < k - 1, so
//   steps = (d - 1) ceil((k - 1)/K) + ceil(c_1 / K),   = d when K >= k - 1.
// Under single-port, half-duplex, telephone and all-port (which carry no port count) K = 1.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

PPSIM_HD inline int knomial_depth(int64_t p, int64_t k) {  // ceil(log_k p)
  int d = 0;
  for (int64_t span = 1; span < p; span *= k) ++d;
  return d;
}
PPSIM_HD inline int64_t knomial_unit(int64_t k, int e) {  // k^e
  int64_t u = 1;
  for (int i = 0; i < e; ++i) u *= k;
  return u;
}
PPSIM_HD inline int64_t knomial_ports(const AlgoParams& a) { return a.kports > 1 ? a.kports : 1; }
// Steps of spread round r (the children of rank 0 in it, K at a time).
PPSIM_HD inline int64_t knomial_round_steps(const AlgoParams& a, int d, int r) {
  const int64_t k = a.radix, u = knomial_unit(k, d - r), kp = knomial_ports(a);
  const int64_t children = (a.p - 1) / u < k - 1 ? (a.p - 1) / u : k - 1;
  return (children + kp - 1) / kp;
}

// One step of the tree: its unit u and the children j in [first, last] served in it.
struct KnomialStep {
  int64_t unit = 0;
  int64_t first = 0, last = -1;
};

// Step `step` (1-based) of the spread (collect = false: rounds 1..d) or of the collect (collect =
// true: the spread's rounds d..1, each again with its children in ascending j, so a reduction folds
// them in rank order). False past the last step.
PPSIM_HD inline bool knomial_locate(const AlgoParams& a, int step, bool collect, KnomialStep& out) {
  const int d = knomial_depth(a.p, a.radix);
  const int64_t kp = knomial_ports(a);
  int64_t left = step - 1;
  for (int i = 1; i <= d; ++i) {
    const int r = collect ? d + 1 - i : i;
    const int64_t steps = knomial_round_steps(a, d, r);
    if (left < steps) {
      out.unit = knomial_unit(a.radix, d - r);
      out.first = left * kp + 1;
      out.last = out.first + kp - 1 < a.radix - 1 ? out.first + kp - 1 : a.radix - 1;
      return true;
    }
    left -= steps;
  }
  return false;
}

inline int knomial_steps(const AlgoParams& a) {
  const int d = knomial_depth(a.p, a.radix);
  int64_t steps = 0;
  for (int r = 1; r <= d; ++r) steps += knomial_round_steps(a, d, r);
  return int(steps);
}

inline const char* knomial_limit(const AlgoParams& a) {
  return a.radix >= 2 && a.radix <= kMaxOps + 1 ? nullptr : "the k-nomial trees need 2 <= --radix <= 33";
}

}  // namespace ppsim
