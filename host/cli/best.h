// `ppsim best`: which algorithm wins where.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.h"

namespace ppsim::cli {

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

// Runs every algorithm of the operation (or those in `algos`, comma-separated) for each m of
// `m_range`, ranking those that run; those that cannot are listed in `refused`. Throws UsageError
// when no candidate runs at any size, or when one fails verification.
BestResult rank_algorithms(const RunOptions& base, const std::string& m_range, const std::string& algos);
// The same without the error: `rows` is empty when no candidate runs at any size.
BestResult rank_candidates(const RunOptions& base, const std::string& m_range, const std::string& algos);
int run_best(const RunOptions& base, const std::string& m_range, const std::string& algos, bool as_json);
// The ranking as `ppsim best --json` prints it: rows, changes, formula_changes, refused.
nlohmann::json best_json(const BestResult& b);

// The options of `best` (the CLI's and the Python module's).
struct BestOptions {
  RunOptions run;
  std::string m = "1..1024", algos, plot;
  std::vector<std::string> emit;  // FORMAT FILE
  bool json = false;
};
void add_best_options(Command& best, BestOptions& b);

}  // namespace ppsim::cli
