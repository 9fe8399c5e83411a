// The options of `run` as the command line registers them (each bound once to a field of
// study::RunOptions, which turns them into a RunConfig), shared by the subcommands that run
// configurations (run, sweep, best, draw, view) and the Python module, and the text a run's report
// prints.
#pragma once
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>

#include "command_line.h"
#include "ppsim/engine.h"
#include "study/run_options.h"

#include <nlohmann/json.hpp>

namespace ppsim::cli {

// Registers --timeline, --timeline-processors and --plot (`run`, and the Python module's run).
void add_timeline_options(Command& command, RunOptions& o);
// Registers --time-limit (`run`, and the Python module's run; check_run_time applies it).
void add_time_limit_option(Command& command, RunOptions& o);

// Registers the options of `run` on a subcommand.
void add_run_options(Command& command, RunOptions& o);
// Registers some of those options (each bound to the same field of `o`), in the order given, with
// descriptions of another subcommand: {name, description}.
struct DescribedOption {
  const char* name;
  const char* description;
};
void add_run_options(Command& command, RunOptions& o, std::initializer_list<DescribedOption> options);

// Registers --model and --L --o --g --G --O --S (sweep and best: every point or cell).
void add_loggp_options(Command& command, RunOptions& o);

// The lines a text report gives the noise (its config and outcome as the JSON report writes them,
// report.h) and the stragglers.
void print_noise_text(std::ostream& out, const nlohmann::json& config, const nlohmann::json& outcome);
void print_stragglers_text(std::ostream& out, const nlohmann::json& stragglers);
// The lines a text report gives the failures and their damage (failures_json).
void print_failures_text(std::ostream& out, const nlohmann::json& failures);

// The text report of a network run, as `ppsim run` prints it (with its trace when c.trace).
void print_run_text(std::ostream& out, const RunConfig& c, const RunResult& r);

// "verified: yes (0 mismatching words against the sequential reference)", as a run's text ends.
std::string verified_text(bool verified, int64_t mismatches);
// A completed run's exit code: 0, or 1 with one line on stderr when it failed verification.
int verification_exit_code(bool verified, int64_t mismatches);

}  // namespace ppsim::cli
