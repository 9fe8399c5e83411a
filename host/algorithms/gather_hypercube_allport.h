// All-port hypercube gather (textbook §4.7.2): scatter_hypercube_allport run backwards. Every
// processor splits its block into d = log p parts; part t climbs rotated binomial tree t, so in every
// step the d trees use d different links; the root puts the parts back in place after the last step.
// d steps: T = sum_j (t_s + t_w ceil(m/d) 2^(d-1-j)) = t_s log p + t_w m (p - 1) / log p when d divides m.
#pragma once
#include "algorithms/scatter_hypercube_allport.h"

namespace ppsim {

struct GatherHypercubeAllport : PersonalizedAllportT<true> {
  static constexpr const char* name = "gather_hypercube_allport";
  static constexpr const char* description = "all-port gather: scatter_hypercube_allport run backwards (§4.7.2)";
};

}  // namespace ppsim
