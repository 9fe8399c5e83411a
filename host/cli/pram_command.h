// `ppsim run --machine pram-*`: the shared-memory machine of the group-operations slides.
#pragma once
#include "options.h"
#include "ppsim/pram.h"

namespace ppsim::cli {

// --machine pram-*: its rule, or a UsageError.
PramRule parse_pram_machine_option(const std::string& machine);
// Builds and checks the PRAM configuration of o under `rule` (`run`: the parsed subcommand, whose
// options of the network machine are refused). Throws UsageError.
PramConfig build_pram_config(const RunOptions& o, PramRule rule, const Command& run);
// Runs o on a PRAM under `rule`. `run` is the parsed subcommand: an option of the network machine
// it was given is refused.
int run_pram_machine(const RunOptions& o, PramRule rule, const Command& run);

}  // namespace ppsim::cli
