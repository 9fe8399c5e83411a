// The linear model's time of a run computed from its rounds alone, without moving data
// (docs/DESIGN.md §3, "Dataflow timing"): the same per-message costs as the step model
// (rules::route_parts_with: startups and per-word times per link class, congestion as the loads of
// one round), composed in two ways.
//
//   lockstep: every step costs its slowest message; the run costs the sum (what the backends report).
//   dataflow: processor i's sends of round r leave when its receives of the rounds before have
//             arrived, its sends of round r − 1 have left (its port) and every link of the route is
//             free of the messages before; a message arrives its time (t_s + l·t_h + t_w·m·c, and
//             γ per word combined) after it leaves, and holds its links and its sender's port for its
//             per-word term. The run ends when the last message arrives. A latency is thus paid
//             where a chain of messages passes it, not by every processor at every step: a
//             pipelined ring across nodes pays the network's startup where its data crosses.
//
// Both add the base latency of NCCL's protocol and the local folds' γ once. The rounds are read at
// the configuration's own sizes, so a run's time at a size too large to carry is this timing of
// that size's rounds (the segment and chunk counts are those of that size).
#pragma once
#include <cstdint>
#include <string>

#include "ppsim/config.h"

namespace ppsim {

struct RoundTimes {
  double lockstep = 0, dataflow = 0;
  int64_t rounds = 0;
};

// Why c cannot be timed from its rounds (empty: it can): another model, postal λ > 1, failures,
// or a run split across ranks.
std::string dataflow_refusal(const RunConfig& c);

// Both timings of c's rounds. Throws ConfigError (dataflow_refusal) or ScheduleError (a round with
// more ops than a processor may hold).
RoundTimes time_rounds(const RunConfig& c);

}  // namespace ppsim
