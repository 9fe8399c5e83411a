// Verification (docs/DESIGN.md §6): final buffers against the sequential reference of the operation.
#pragma once
#include <cstdint>
#include <vector>

#include "ppsim/config.h"
#include "ppsim/result.h"

namespace ppsim {

// Fills in the run's verification against the reference (both backends call it).
void finish_verification(const RunConfig& c, RunResult& r);

// Compares final buffers with the sequential reference of the operation (docs/DESIGN.md §6).
struct Verification {
  int64_t mismatches = 0;
  std::vector<Mismatch> first;  // up to 10 (the device's count leaves it empty)
  uint64_t max_ulps = 0;        // rounded operators: the largest distance from the exactly rounded reference
  int64_t disagreements = 0;    // words that differ from the word the operation says they agree with
  std::vector<Damage> damage;   // with failures (RunConfig::failures): every processor with mismatches
};
Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& buffers);

// The same for a run split across ranks (docs/DESIGN.md §8): buffers holds this rank's block of
// processors; the reference's folds of the other blocks are exchanged in rank order. Every rank
// returns the figures of the whole run. Collective.
Verification verify_block(const RunConfig& c, const std::vector<std::vector<uint64_t>>& buffers, Collectives& comm);

// The run's verdict from a verification, wherever it was made (both backends call it).
void record_verification(const RunConfig& c, Verification v, RunResult& r);

}  // namespace ppsim
