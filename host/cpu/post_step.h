// Pass 1 of a send step on the CPU backend: every processor asks the algorithm for its sends and
// receives of the round, checks them against the port rules (step_rules.h, check_ops), and copies
// each payload into its chunk's pool, so that sends read the buffers as they were when the step
// began (docs/DESIGN.md §2).
#pragma once
#include <cstdint>

#include "cpu/cpu_rules.h"
#include "cpu/processor_buffers.h"
#include "cpu/step_store.h"

namespace ppsim::cpu {

// Posts the ops of `round` (sent in step t) of the processors of chunk ch into store s; the first
// broken rule is reported through ch.fail.
void post_chunk(const CpuRules& rules, const ProcessorBuffers& bufs, StepStore& s, Chunk& ch, int round, int64_t t);

}  // namespace ppsim::cpu
