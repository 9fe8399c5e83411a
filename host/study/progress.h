// Progress of long commands (sweep, best) on stderr, drawn only when stderr is a terminal, and the
// check of their estimated time before they start.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace ppsim::study {

// "[#######.......] 12/40 points, 3.1 s elapsed, ~7.2 s left", redrawn in place.
class ProgressBar {
 public:
  ProgressBar(size_t total, const char* unit, bool quiet);
  void advance();  // one more done
  void clear();    // erases the bar (before a line of output); the next advance draws it again
  void finish();   // ends the bar's line
  bool shown() const { return shown_; }

 private:
  size_t total_, done_ = 0;
  const char* unit_;
  bool shown_;
  std::chrono::steady_clock::time_point start_;
};

// Before a run, sweep or ranking runs: refuses (UsageError) work whose estimated time (a lower
// bound, estimate_run_seconds) exceeds `limit_minutes` (--time-limit, which must be positive),
// naming how to narrow it or raise the limit; notes on stderr (unless `quiet`) work that takes at
// least a minute. `what`: "this run", "this sweep", ...
void check_estimated_time(double seconds, double limit_minutes, const std::string& what, const std::string& largest, bool quiet);

}  // namespace ppsim::study
