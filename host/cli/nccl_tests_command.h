// `ppsim nccl-tests`: nccl-tests' size sweep simulated on a machine, as options and a document (the
// CLI's and the Python module's).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "command_line.h"
#include "study/run_options.h"

namespace ppsim::cli {

struct NcclTestsOptions {
  std::string op, minbytes = "32M", maxbytes, factor = "2", type, redop = "sum", compare, measured = "lower";
  RunOptions run;
};

// Registers the options of `nccl-tests` (the collective is the first word) on a subcommand.
void add_nccl_tests_options(Command& command, NcclTestsOptions& o);
// Runs every size (each a verified run) and returns {collective, type, redop, root, rows: [...],
// compare: {...} with --compare}, as `ppsim nccl-tests --json` writes it; `command` says which
// options were given. Throws UsageError, ConfigError, ScheduleError.
nlohmann::json nccl_tests_json(const NcclTestsOptions& o, const Command& command);

}  // namespace ppsim::cli
