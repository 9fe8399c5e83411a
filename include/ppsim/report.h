// The JSON documents of runs (the contract of `ppsim run --json`, network and PRAM), shared by the
// CLI and tests.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ppsim/engine.h"
#include "ppsim/pram.h"

namespace ppsim {

// A word as the report prints it: interval words as "lo:hi" (or "i"), others as int64.
nlohmann::json word_json(OperatorKind k, uint64_t w);
std::string word_text(OperatorKind k, uint64_t w);

// A figure that may be missing (NaN) as a report writes it: the number, or null.
nlohmann::json number_or_null(double v);
// "cut-through" or "store-and-forward".
const char* routing_name(Routing r);

// Closed-form time of the algorithm for this configuration, or NaN where the seeds give none
// (e.g. under the postal model).
double formula_time(const RunConfig& c);

// Theorem 1 of seed 000 for this run: min{ i | G(i) >= p } with k from the port model (k-port K,
// otherwise 1) and the run's lambda. A lower bound on the steps of every operation in which one
// processor's data must reach all others or all data one processor (all but shift). -1: none.
int64_t postal_lower_bound_steps(const RunConfig& c);
// The same as a report writes it: the steps, or null where there is none.
nlohmann::json postal_lower_bound_json(const RunConfig& c);

// A lower bound on the time of any algorithm for the run's operation (textbook §4.2-§4.5):
// t_w m (p - 1) / ports for all-gather, reduce-scatter, scatter and gather (a processor must
// receive, or send, (p - 1) m words through the ports it may use at once: 1, k, or its degree); for all-to-all personalized the bisection bound
// t_w m (p/2)(p/2) / w with w the bisection width (p^2/4 messages of m words cross the cut each
// way over w links). NaN where no bound is stated.
double lower_bound_time(const RunConfig& c);

// Most words of final buffers a report lists (larger runs omit final.buffers).
inline constexpr uint64_t kReportFinalWords = 1u << 16;

nlohmann::json config_json(const RunConfig& c, Backend requested);
nlohmann::json run_json(const RunConfig& c, Backend requested, const RunResult& r);

// The report of `ppsim run --machine pram-* --json`; `machine` and `input` as the command line gave them.
nlohmann::json pram_json(const PramConfig& c, const PramResult& r, const std::string& machine, const std::string& input);

}  // namespace ppsim
