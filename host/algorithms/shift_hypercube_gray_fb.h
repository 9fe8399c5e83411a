// Circular q-shift on a Gray-code ring in a hypercube, forwards or backwards (textbook §4.6.2):
// shift_hypercube_gray's phases, but shifting by p - q backwards when that takes fewer steps.
// steps(x) = 2 popcount(x) - [x odd]; min(steps(q), steps(p - q)) <= log p, every step congestion-free.
// T = (t_s + t_w m) min(steps(q), steps(p - q)) <= (t_s + t_w m) log p.
#pragma once
#include "algorithms/shift_hypercube_gray.h"

namespace ppsim {

struct ShiftHypercubeGrayFb : ShiftHypercubeGrayT<true> {
  static constexpr const char* name = "shift_hypercube_gray_fb";
  static constexpr const char* description = "as shift_hypercube_gray, backwards by p - q when cheaper: at most log p steps";
  static constexpr const char* formula_text = "(t_s + t_w m) min(steps(q), steps(p - q)) <= (t_s + t_w m) log p";
};

}  // namespace ppsim
