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
// Words in all the run's buffers on all processors.
uint64_t run_total_words(const RunConfig& c);

}  // namespace ppsim
