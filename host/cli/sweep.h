// `ppsim sweep` and its plot.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.h"

namespace ppsim::cli {

struct SweepOptions {
  RunOptions run;  // --p, --dims, --topology, --algo, --m and --ports may hold lists (see expand_counts)
  std::string lambdas = "1", ts = "1", tw = "1", th = "0";
  std::string csv, jsonl, plot, plot_y = "time";
  double tc = -1;        // Chapter 5: time per local combine (-1: off)
  int64_t problem = 0;   // Chapter 5: elements of the problem
  int jobs = 0;          // points run at once (0: every core)
  bool quiet = false;
};

struct SweepPoint {
  RunConfig config;
  Backend backend;
};

// "8,13,64", "2^4..2^20" (doubling), "10..100:10" (step 10).
std::vector<int64_t> expand_counts(const std::string& text, const char* option);
std::vector<double> expand_reals(const std::string& text, const char* option);

// Every runnable point; points a topology or algorithm cannot take are counted in `skipped`.
std::vector<SweepPoint> sweep_points(const SweepOptions& s, int64_t& skipped, std::string& last_reason);
nlohmann::json sweep_row(const SweepOptions& s, int64_t index, const SweepPoint& pt, const RunResult& r);
int run_sweep(const SweepOptions& s);

// Plots rows (time or steps against p, or against m when only m varies) with gnuplot: one curve per
// series, the closed form dashed in the same colour. Writes `path` (.svg or .png) atomically.
void plot_sweep(const std::vector<nlohmann::json>& rows, const std::string& path, const std::string& y);

}  // namespace ppsim::cli
