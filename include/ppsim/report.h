// The JSON document of a run (the contract of `ppsim run --json`), shared by the CLI and tests.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ppsim/engine.h"

namespace ppsim {

// A word as the report prints it: interval words as "lo:hi" (or "i"), others as int64.
nlohmann::json word_json(OperatorKind k, uint64_t w);
std::string word_text(OperatorKind k, uint64_t w);

// Closed-form time of the algorithm for this configuration, or NaN where the seeds give none
// (e.g. under the postal model).
double formula_time(const RunConfig& c);

// Theorem 1 of seed 000 for this run: min{ i | G(i) >= p } with k from the port model (k-port K,
// otherwise 1) and the run's lambda. A lower bound on the steps of every operation in which one
// processor's data must reach all others or all data one processor (all but shift). -1: none.
int64_t postal_lower_bound_steps(const RunConfig& c);

// Most words of final buffers a report lists (larger runs omit final.buffers).
inline constexpr uint64_t kReportFinalWords = 1u << 16;

nlohmann::json config_json(const RunConfig& c, Backend requested);
nlohmann::json run_json(const RunConfig& c, Backend requested, const RunResult& r);

}  // namespace ppsim
