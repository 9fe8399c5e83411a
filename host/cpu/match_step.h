// Pass 2 of a send step on the CPU backend: every send meets its receive at the destination
// (step_rules.h: occurrence + matching_receive) and tells it where its payload is; anything that
// does not pair up one to one is a schedule error (docs/DESIGN.md §2).
#pragma once
#include <cstdint>

#include "cpu/cpu_rules.h"
#include "cpu/step_cost.h"
#include "cpu/step_store.h"

namespace ppsim::cpu {

// Matches the sends of chunk ch (chunk k of store s, sent in step t) with their receives, and
// counts each matched message (counter).
void match_chunk(const ChunkPlan& plan, const MessageCounter& counter, StepStore& s, Chunk& ch, int k, int64_t t);

// Whether every receive posted in store s found its send (then no chunk need be searched).
bool all_receives_matched(const StepStore& s);

// Reports the receives of chunk ch that no send of step t matched.
void report_unmatched_receives(const CpuRules& rules, Chunk& ch, int64_t t);

}  // namespace ppsim::cpu
