// What a run's time and steps are compared with: the algorithm's closed form and the lower bounds
// of the sources (docs/DESIGN.md §3).
#pragma once
#include <cstdint>

#include "ppsim/engine.h"

namespace ppsim {

// Closed-form time of the algorithm for this configuration, or NaN where the sources give none
// (e.g. under the postal model).
double formula_time(const RunConfig& c);

// Lin–Yeh Theorem 1 for this run: min{ i | G(i) >= p } with k from the port model (k-port K,
// otherwise 1) and the run's lambda. A lower bound on the steps of every operation in which one
// processor's data must reach all others or all data one processor (all but shift). -1: none.
int64_t postal_lower_bound_steps(const RunConfig& c);

// A lower bound on the time of any algorithm for the run's operation, under the linear model with
// the run's ports (k: 1, K, or the degree under all-port): t_s ceil(log_{k+1} p) (knowledge must
// reach every processor, Lin–Yeh Theorem 1 at lambda = 1), plus (t_w W + gamma C) / k where W and C
// are the words the busiest processor must move and combine: m for broadcast and scan; m and
// m(p - 1)/p for reduce; 2m(p - 1)/p and m(p - 1)/p for all-reduce (Chan et al. 2007); (p - 1) m for
// all-gather, scatter and gather (textbook §4.2-§4.5); (p - 1) m and (p - 1) m for reduce-scatter;
// none for a barrier (its messages are charged no words: the steps alone);
// for all-to-all the larger of (p - 1) m and the bisection bound m (p/2)(p/2) k / w (p^2/4 messages
// cross the cut each way over its w links). NaN under the postal model and for shift, multicast,
// kbroadcast and kscatter.
double lower_bound_time(const RunConfig& c);

// Bandwidth as nccl-tests reports it, in words per time unit: algbw = n / time, with n the data the
// operation is about (Thakur et al.'s n: the vector of all-reduce, reduce, broadcast, scan and
// shift, m words; the p blocks of all-gather, reduce-scatter, all-to-all, scatter and gather, p m
// words); busbw = algbw times the operation's bus factor: 2(p - 1)/p for all-reduce, (p - 1)/p for
// all-gather, reduce-scatter, all-to-all, scatter and gather, 1 for the rest. NaN where the time
// is 0 (one processor) or the operation moves no data.
struct Bandwidth {
  double words;  // n
  double algbw, busbw;
};
Bandwidth bandwidth(const RunConfig& c, double time);

}  // namespace ppsim
