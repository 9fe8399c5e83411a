// The buffers of a run: which ones an operation and its algorithm use, their sizes and names.
#pragma once
#include <cstdint>

#include "ppsim/config.h"

namespace ppsim {

// Buffer names of an operation, for reports (the buffer after the operation's is "scratch").
const char* buffer_name(Operation op, int32_t b);
// Buffers of a run: the operation's, then the algorithm's scratch buffer if it has one.
int run_buffer_count(const RunConfig& c);
int64_t run_buffer_words(const RunConfig& c, int32_t b);
// The processors a run executes: p, and with switch agents (kSwitchAgents) every switch of the
// machine after them (topology nodes p .. nodes - 1). Only 0 .. p-1 hold data and are verified.
int64_t run_processors(const RunConfig& c);
// Words in all the run's buffers on all processors (switch agents included).
uint64_t run_total_words(const RunConfig& c);

}  // namespace ppsim
