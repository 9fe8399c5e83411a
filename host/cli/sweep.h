// `ppsim sweep` and its plot.
#pragma once
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.h"

namespace ppsim::cli {

struct SweepOptions {
  RunOptions run;  // --p, --dims, --topology, --algo, --m and --ports may hold lists (see expand_counts)
  std::string lambdas = "1", ts = "1", tw = "1", th = "0";
  std::string csv, jsonl, plot, plot_y = "time";
  double tc = std::numeric_limits<double>::quiet_NaN();  // Chapter 5: time per local combine (NaN: not given)
  int64_t problem = 0;                                    // Chapter 5: elements of the problem (0: not given)
  int jobs = 0;         // points run at once (0: every core; with CUDA points, min(4, cores))
  double time_limit = 60;  // minutes: a sweep whose least time is longer is refused
  bool quiet = false;
};

// One point of the product. A point that cannot run (its algorithm not for this topology or p,
// sizes, memory...) is refused, not dropped: it becomes a row with status "refused" and the reason.
struct SweepPoint {
  RunConfig config;  // built only when `refused` is empty
  Backend backend = Backend::automatic;
  nlohmann::json columns;  // its configuration columns (from the options when no config was built)
  std::string refused;     // why it cannot run, one line ("": it can, as far as planning shows)
};

// What running a point gave: a result (status ok), or a refusal (result empty) with the reason.
// `reason` also explains an ok row that ran on the CPU because the GPU refused it.
struct PointOutcome {
  std::optional<RunResult> result;
  std::string backend, reason;
};

// "8,13,64", "2^4..2^20" (doubling), "10..100:10" (step 10).
// The columns of every row, in the CSV's order.
extern const std::vector<std::string> kSweepColumns;
// An error message on one line (a row's reason).
std::string one_line(std::string text);
// Whether a planned point runs on the GPU (device: a usable one is there).
bool runs_on_device(const SweepPoint& pt, bool device);

std::vector<int64_t> expand_counts(const std::string& text, const char* option);
std::vector<double> expand_reals(const std::string& text, const char* option);

// Throws UsageError for a name in a comma list that is no topology, or no port model: an error in
// the options themselves, whatever the point (`sweep` and `best`).
void check_names(const std::string& topologies, const std::string& ports);

// Every point, in order; those that cannot run are marked refused. Options that are wrong whatever
// the point (an unknown topology or port model in a list, a value below 1) throw UsageError.
// `device`: a usable GPU will run the auto points (host memory is then checked only on fallback).
std::vector<SweepPoint> sweep_points(const SweepOptions& s, bool device);
// Runs a point: on the GPU for cuda (and auto with `device`), falling back to the CPU for auto when
// the GPU refuses it. Refusals (ConfigError, ScheduleError) come back as an outcome; other errors throw.
PointOutcome run_point(const SweepPoint& pt, bool device);
nlohmann::json sweep_row(const SweepOptions& s, int64_t index, const SweepPoint& pt, const PointOutcome& out);
// Before any row is written: a sweep none of whose points can run, or that asks for a GPU that is
// not there, is a usage error. Returns whether any point will run on the GPU.
bool check_points(const std::vector<SweepPoint>& points, bool device);
int run_sweep(const SweepOptions& s);
// Registers the options of `sweep` on a subcommand (the CLI's and the Python module's).
void add_sweep_options(Command& sweep, SweepOptions& s);

// Refuses (UsageError) a --plot-y that is no column, or a Chapter 5 one without --tc and --problem.
void check_plot_y(const std::string& y, bool chapter5);
// Refuses (UsageError) a --plot file that cannot be drawn: not .svg or .png, or no gnuplot here.
void check_plot_file(const std::string& path);
// Plots rows (time or steps against p, or against m when only m varies) with gnuplot: one curve per
// series, the closed form dashed in the same colour. Writes `path` (.svg or .png) atomically.
void plot_sweep(const std::vector<nlohmann::json>& rows, const std::string& path, const std::string& y);
// gnuplot's terminal for `tmp` (.svg or .png, width x height pixels) and its output file.
std::string gnuplot_output(const std::string& tmp, int width, int height);
// Runs gnuplot on script(tmp), the script writing tmp; then renames tmp to `path` (no partial file).
// Throws UsageError when gnuplot fails.
void run_gnuplot(const std::string& path, const std::function<std::string(const std::string& tmp)>& script);

}  // namespace ppsim::cli
