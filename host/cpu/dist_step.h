// A send step of a run split across ranks (docs/DESIGN.md §8, "Past one process"): what crosses
// from one rank's block of processors to another's. The sender's rank ships each crossing message
// with what only it knows (its occurrence among the sender's sends to that processor, and its
// congestion on direct links); the receiver's rank matches, counts and costs it under the same
// rules as a local one (match_step.cpp, step_cost.h). Routed links are owned by ranks in
// contiguous shares of the link ids; each rank sends the counts of the other ranks' links its
// messages crossed to their owners and gets back the step's total load of each.
#pragma once
#include <cstdint>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/step_cost.h"
#include "cpu/step_store.h"
#include "ppsim/partition.h"

namespace ppsim::cpu {

// What a rank sent the others in one step: its crossing messages, their payload words, and the
// words of the link loads it asked for (ids and counts).
struct Traffic {
  int64_t messages = 0, payload = 0, link_words = 0;
};

// Ships the crossing messages of store s (sent in its step) to their receivers' ranks and lays
// the messages other ranks sent to this one's processors into s's import chunks.
Traffic exchange_crossing(Collectives& comm, const CpuRules& rules, const ChunkPlan& plan, StepStore& s);

// Sums the loads of the links that this step's messages crossed over every rank: afterwards
// loads.load(id) is the step's total for every link a message counted here crosses. Returns the
// words it sent to the other ranks (their links' ids and counts).
int64_t combine_link_loads(Collectives& comm, LinkLoads& loads, StepStore& s, uint32_t stamp);

// The step's figures summed (messages, words, link-hops) and maximized (link load, time) over the ranks.
StepStats combine_step_totals(Collectives& comm, StepStats local);

}  // namespace ppsim::cpu
