// The subcommands of ppsim. Each registers its options on the app and returns what runs it once the
// command line is parsed; main only dispatches.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace ppsim::cli {

struct Subcommand {
  CLI::App* app;             // chosen when *app is true after parsing
  std::function<int()> run;  // its exit code; throws UsageError, ConfigError, ScheduleError
};

Subcommand add_list_command(CLI::App& app);    // list.cpp
Subcommand add_run_command(CLI::App& app);     // run.cpp (network) and pram.cpp (--machine pram-*)
Subcommand add_sweep_command(CLI::App& app);   // sweep.cpp
Subcommand add_best_command(CLI::App& app);    // best.cpp
Subcommand add_draw_command(CLI::App& app);    // draw.cpp
Subcommand add_bounds_command(CLI::App& app);  // bounds.cpp
Subcommand add_goal_command(CLI::App& app);    // goal.cpp (export; run --goal imports)

}  // namespace ppsim::cli
