// `ppsim best`: which algorithm wins where.
#pragma once
#include <string>
#include <vector>

#include "cli/options.h"

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
struct BestResult {
  std::vector<BestRow> rows;
  std::vector<WinnerChange> sim_changes, formula_changes;
};

// Runs every applicable algorithm (or those in `algos`, comma-separated) for each m of `m_range`.
BestResult rank_algorithms(const RunOptions& base, const std::string& m_range, const std::string& algos);
int run_best(const RunOptions& base, const std::string& m_range, const std::string& algos, bool as_json);

}  // namespace ppsim::cli
