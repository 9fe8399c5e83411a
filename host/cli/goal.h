// `ppsim goal` (export) and `ppsim run --goal FILE` (import), goal.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include "options.h"

namespace ppsim::cli {

// `run --goal FILE`: reads the schedule and times it under LogGP; exit 0, 1 when it cannot finish.
int run_goal_file(const RunOptions& o, const CLI::App& run);

}  // namespace ppsim::cli
