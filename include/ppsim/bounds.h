// What a run's time and steps are compared with: the algorithm's closed form and the lower bounds
// of the seeds (docs/DESIGN.md §3).
#pragma once
#include <cstdint>

#include "ppsim/engine.h"

namespace ppsim {

// Closed-form time of the algorithm for this configuration, or NaN where the seeds give none
// (e.g. under the postal model).
double formula_time(const RunConfig& c);

// Theorem 1 of seed 000 for this run: min{ i | G(i) >= p } with k from the port model (k-port K,
// otherwise 1) and the run's lambda. A lower bound on the steps of every operation in which one
// processor's data must reach all others or all data one processor (all but shift). -1: none.
int64_t postal_lower_bound_steps(const RunConfig& c);

// A lower bound on the time of any algorithm for the run's operation (textbook §4.2-§4.5):
// t_w m (p - 1) / ports for all-gather, reduce-scatter, scatter and gather (a processor must
// receive, or send, (p - 1) m words through the ports it may use at once: 1, k, or its degree); for all-to-all personalized the bisection
// bound t_w m (p/2)(p/2) / w with w the bisection width (p^2/4 messages of m words cross the cut each way over w links). NaN where no bound
// is stated. For a barrier: ceil(log_{ports+1} p) (t_s + t_h), knowledge growing at most
// (ports + 1)-fold per step.
double lower_bound_time(const RunConfig& c);

}  // namespace ppsim
