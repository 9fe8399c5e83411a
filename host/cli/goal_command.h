// `ppsim goal` (export) and `ppsim run --goal FILE` (import), goal_command.cpp.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "goal/goal.h"
#include "loggp/loggp.h"

#include "options.h"
#include "report/timeline.h"

namespace ppsim::cli {

// `run --goal FILE`: reads the schedule and times it under LogGP; exit 0, 1 when it cannot finish.
int run_goal_file(const RunOptions& o, const Command& run);

// The parts `run --goal` and the Python module share:
// the options of `run` that apply to --goal (UsageError for the others),
void check_goal_options(const RunOptions& o, const Command& run);
// the schedule o.goal read and timed (UsageError: not GOAL; ScheduleError: it cannot finish), with
// the JSON document `run --goal FILE --json` writes,
struct GoalTiming {
  LogGPParams params;
  goal::Schedule schedule;
  loggp::Result result;
  uint64_t count[3] = {0, 0, 0};  // sends, receives, calcs
  double read_seconds = 0, simulate_seconds = 0;
  nlohmann::json json;
  std::optional<Timeline> timeline;  // --timeline or --plot
};
GoalTiming time_goal_file(const RunOptions& o);
// and an algorithm's rounds as GOAL text (what `ppsim goal --out -` prints; at most 1 GiB), with
// the options `ppsim goal` takes.
std::string goal_text(const RunOptions& o);
void add_goal_options(Command& goal, RunOptions& o);

}  // namespace ppsim::cli
