// Which algorithm wins where: every candidate of an operation run on one machine at every size,
// ranked by simulated time and by closed form, with the sizes where the winner changes (`ppsim
// best`, the Python module's best, and the crossover maps of tuning.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study/run_options.h"

namespace ppsim::study {

struct BestEntry {
  std::string name;
  double time, formula;  // simulated; closed form (NaN: none)
};
struct BestRow {
  int64_t m = 0;
  std::vector<BestEntry> entries;
  int best_sim = 0, best_formula = -1;
};
struct WinnerChange {
  int64_t m;
  std::string from, to;
};
// A candidate that could not run at some sizes (topology, p, m, port model): not ranked there.
struct BestRefusal {
  std::string name, reason;  // the reason at the first size it was refused
  std::vector<int64_t> ms;   // the sizes it was refused at
};
struct BestResult {
  std::vector<BestRow> rows;  // the sizes at which some candidate ran
  std::vector<WinnerChange> sim_changes, formula_changes;
  std::vector<BestRefusal> refused;  // in candidate order
  size_t sizes = 0;                  // sizes asked for
};

// The ranking as `ppsim best --json` prints it: rows, changes, formula_changes, refused.
nlohmann::json best_json(const BestResult& b);

// The options of a ranking (`best`'s, and the Python module's).
struct BestOptions {
  RunOptions run;
  std::string m = "1..1024", algos, plot;
  std::vector<std::string> emit;  // FORMAT FILE
  double time_limit = 60;         // minutes: a ranking whose least time is longer is refused
  bool json = false, quiet = false;
};

// Runs every algorithm of b.run.op (or those in b.algos, comma-separated) for each m of b.m on one
// machine, ranking those that run; those that cannot are listed in `refused`. Everything is
// planned, and its time checked against b.time_limit, before anything runs (ranking.cpp). Throws
// UsageError when no candidate runs at any size, or when one fails verification.
BestResult rank_algorithms(const BestOptions& b);

}  // namespace ppsim::study
