// The JSON documents of runs (the contract of `ppsim run --json`, network and PRAM), shared by the
// CLI and tests.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ppsim/bounds.h"
#include "ppsim/engine.h"
#include "ppsim/pram.h"

namespace ppsim {

// A word as the report prints it: interval words as "lo:hi" (or "i"), fsum and fsum32 words as
// their numbers (shortest text that reads back the same), others as int64. As text (the trace, ppsim
// view) a slot never written is "-" for every operator; the JSON keeps integer operators' words
// numbers.
nlohmann::json word_json(OperatorKind k, uint64_t w);
std::string word_text(OperatorKind k, uint64_t w);
// A word of a run's buffers: a barrier's knowledge token as the ranks it covers ("3..6", "all",
// "!" for no token), any other as word_text / word_json print it for the run's operator.
std::string run_word_text(const RunConfig& c, uint64_t w);
nlohmann::json run_word_json(const RunConfig& c, uint64_t w);

// --input as it reads back: "iota", "random:SEED", or "random:SEED:LO:HI" for another range.
std::string input_text(const InputSpec& in);

// The verification's figures beside "verified": "max_error_ulps" (null for the operators checked
// bit for bit) and "results_agree" (null where the operation has no words that must agree).
nlohmann::json rounding_json(const RunResult& r);

// A figure that may be missing (NaN) as a report writes it: the number, or null.
nlohmann::json number_or_null(double v);
// "cut-through" or "store-and-forward".
const char* routing_name(Routing r);

// The same as a report writes it: the steps, or null where there is none.
nlohmann::json postal_lower_bound_json(const RunConfig& c);

// Most words of final buffers a report lists (larger runs omit final.buffers).
inline constexpr uint64_t kReportFinalWords = 1u << 16;
// --model loggp: every processor's finishing time is reported up to this many processors.
inline constexpr uint64_t kReportFinishTimes = 4096;

// --fail: what was injected and the damage it did (null without failures); the damaged processors
// are listed up to kReportFinishTimes of them.
nlohmann::json failures_json(const RunConfig& c, const RunResult& r);
// Stragglers as a report writes them: null when none, else the factor, how they were chosen and
// how many of the p processors straggle (with their numbers up to kReportFinishTimes).
nlohmann::json stragglers_json(const Stragglers& s, int64_t p);
// OS noise as a report writes it: null when none, else its trace, phases and seed.
nlohmann::json noise_config_json(const NoiseSpec* n);
// What noise did to LogGP clocks: the time with and without it (the slowdown; both null where the
// noiseless time was not timed), the detours added (in all, and per processor up to
// kReportFinishTimes processors).
nlohmann::json noise_outcome_json(uint64_t time, std::optional<uint64_t> noiseless, uint64_t total, const std::vector<uint64_t>& per_processor);
// A run's noiseless time, where it was timed.
inline std::optional<uint64_t> noiseless_of(const RunResult& r) { return r.noiseless_timed ? std::optional<uint64_t>(r.noiseless_time) : std::nullopt; }
// The spread of LogGP finishing times: the last minus the first, null for no processors.
nlohmann::json finish_spread_json(const std::vector<uint64_t>& finish);

// The machine model of a run (ports, lambda, t_s, t_w, t_h, routing, operator): part of every
// report and of every sweep row.
nlohmann::json model_json(const RunConfig& c);
nlohmann::json config_json(const RunConfig& c, Backend requested);
nlohmann::json run_json(const RunConfig& c, Backend requested, const RunResult& r);

// The report of `ppsim run --machine pram-* --json`; `machine` and `input` as the command line gave them.
nlohmann::json pram_json(const PramConfig& c, const PramResult& r, const std::string& machine, const std::string& input);

}  // namespace ppsim
