// Some processors' checked buffers (verify_rules.h's checked_buffer) against the sequential
// reference, one at a time, as `ppsim view` shows them (reference.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "ppsim/config.h"

namespace ppsim {

// A processor's words that differ from the reference, and the first `max_words` of those the
// reference says it must hold (for the rounded operators, the exactly rounded ones).
struct ProcessorCheck {
  int64_t proc = 0;
  int32_t buffer = 0;
  int64_t mismatches = 0;
  std::vector<uint64_t> expected;
};
std::vector<ProcessorCheck> check_processors(const RunConfig& c, const std::vector<std::vector<uint64_t>>& buffers,
                                             const std::vector<int64_t>& procs, int64_t max_words);

}  // namespace ppsim
