// A send step of a run split across ranks (docs/DESIGN.md §8, "Past one process"): what crosses
// from one rank's block of processors to another's. The sender's rank counts every message its
// processors send (figures, and loads on the links of its route); routed links are owned by ranks
// in contiguous shares of the link ids, and each rank sends the counts of other ranks' links to
// their owners and gets back the step's total load of each. The sender's rank then ships each
// crossing message with what only it knows (its occurrence among its sender's sends to that
// receiver, its congestion, startup and per-word cost); the receiver's rank matches it and adds
// the words its receive combines, under the same rules as a local message (step_rules.h).
#pragma once
#include <cstdint>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/step_cost.h"
#include "cpu/step_store.h"
#include "ppsim/partition.h"
#include "rules/crossing.h"

namespace ppsim::cpu {

// What a rank sent the others in one step (rules/crossing.h).
using Traffic = rules::SplitTraffic;

// Sums the loads of the links that this step's messages crossed over every rank: afterwards
// loads.load(id) is the step's total for every link a message counted here crosses. Returns the
// words it sent to the other ranks (their links' ids and counts, and the totals it answered).
int64_t combine_link_loads(Collectives& comm, LinkLoads& loads, StepStore& s, uint32_t stamp);

// Ships the crossing messages of store s (sent in step t, their loads on the links summed) to
// their receivers' ranks, each with the parts of its cost its sender's rank knows, and lays what
// other ranks sent to this one's processors into s's import chunks.
Traffic exchange_crossing(Collectives& comm, const CpuRules& rules, const ChunkPlan& plan, const LinkLoads& loads, StepStore& s, int64_t t);

// Matches the messages of import chunk k (step t) with their receives (step_rules.h's rule, with
// the occurrence the sender's rank reckoned) and costs them: the parts their sender's rank sent,
// and the words their receive combines.
void match_imports(const CpuRules& rules, const ChunkPlan& plan, StepStore& s, int k, int64_t t);

// The step's figures summed (messages, words, link-hops) and maximized (link load, time) over the ranks.
StepStats combine_step_totals(Collectives& comm, StepStats local);

}  // namespace ppsim::cpu
