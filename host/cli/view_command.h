// `ppsim view`: one run written as a self-contained HTML page that replays it step by step on its
// topology (the data: report/replay.h; the page: view_page.html, built into the program).
#pragma once
#include <string>

#include "options.h"

namespace ppsim::cli {

struct ViewOptions {
  RunOptions run;
  std::string html;
  bool aggregate = false;
};

// Refuses (UsageError, naming `command`) what a step-by-step picture cannot show: runs that are not
// steps of the network model (--goal, --msccl, --machine pram-*, --model loggp, mpirun).
void check_step_run(const RunOptions& o, const std::string& command);

// Registers the options of `run` (less the timeline's) and --html, --aggregate.
void add_view_options(Command& command, ViewOptions& v);

// The page of a run: checks the options (the step model on a network: no --goal, --msccl,
// --machine pram-*, --model loggp or mpirun), runs it and builds the page. Throws UsageError,
// ConfigError, ScheduleError.
struct ViewPage {
  std::string html;
  bool detail = false, verified = false, failures = false;
  int64_t mismatches = 0, steps = 0;
};
ViewPage make_view(const ViewOptions& v, const Command& parsed);

// The page around its data (a replay_json document and the run's summary).
std::string view_html(const nlohmann::json& data);

}  // namespace ppsim::cli
