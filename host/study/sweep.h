// A sweep: the product of lists of options, each point planned (its configuration built and
// admitted, or refused with the reason), run, and turned into a row of the sweep's columns; the
// points spread over threads and MPI ranks with their memory held within the machine's. `ppsim
// sweep` writes the rows (cli/sweep_command.cpp), the Python module hands them over one by one.
#pragma once
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppsim/engine.h"
#include "study/run_options.h"

namespace ppsim::study {

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
// Whether a planned point runs on the GPU (device: a usable one is there): under --backend cuda,
// or auto where the CPU backend's lower bound on the point is at least kDevicePointSeconds.
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

// Points at once (on each rank under mpirun): --jobs, or every core for CPU points; for GPU points
// a few, at most the cores.
int sweep_jobs(const SweepOptions& s, bool any_device);
// The least time the points that run on the CPU take on `jobs` threads in all
// (estimate_run_seconds), checked against --time-limit before any point runs. Throws UsageError.
void check_sweep_time(const SweepOptions& s, const std::vector<SweepPoint>& points, bool device, int jobs);
// Runs the points on `jobs` threads, and under mpirun on every rank's, each starting when its
// memory fits beside the running points'; done(i, row) gets each point's row on rank 0, one call
// at a time, in the order they finish. A genuine error (not a refusal) stops the sweep and is
// thrown on every rank. A row travels as CBOR (exact numbers), alone as under mpirun, so that both
// give the same rows.
void run_points(const SweepOptions& s, const std::vector<SweepPoint>& points, bool device, int jobs,
                const std::function<void(size_t, nlohmann::json)>& done);

}  // namespace ppsim::study
