// Progress bars and the estimated-time check of long commands (progress.h).
#include "study/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "study/usage.h"
#include "ppsim/errors.h"

namespace ppsim::study {

ProgressBar::ProgressBar(size_t total, const char* unit, bool quiet)
    : total_(total), unit_(unit), shown_(!quiet && total > 1 && isatty(2)), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::advance() {
  ++done_;
  if (!shown_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double left = elapsed / double(done_) * double(total_ - done_);
  constexpr int kWidth = 30;
  const int filled = int(double(kWidth) * double(done_) / double(total_));
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %s, %.1f s elapsed, ~%.1f s left ", std::string(size_t(filled), '#').c_str(),
               std::string(size_t(kWidth - filled), '.').c_str(), done_, total_, unit_, elapsed, left);
}

void ProgressBar::clear() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::finish() {
  if (shown_ && done_ > 0) std::fprintf(stderr, "\n");
  shown_ = false;
}

namespace {

std::string duration_text(double seconds) {
  char text[64];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f seconds", seconds);
  else if (seconds < 7200) std::snprintf(text, sizeof text, "%.0f minutes", seconds / 60);
  else if (seconds < 48 * 3600) std::snprintf(text, sizeof text, "%.1f hours", seconds / 3600);
  else if (seconds < 1e6 * 86400) std::snprintf(text, sizeof text, "%.0f days", seconds / 86400);
  else std::snprintf(text, sizeof text, "%.1e days", seconds / 86400);
  return text;
}

}  // namespace

void check_estimated_time(double seconds, double limit_minutes, const std::string& what, const std::string& largest, bool quiet) {
  if (!(limit_minutes > 0)) throw UsageError("--time-limit must be a positive number of minutes");
  if (seconds > limit_minutes * 60 || !std::isfinite(seconds))
    throw UsageError(what + " would take at least " + duration_text(seconds) + " on this machine's cores (" + largest +
                     "); make it smaller, or raise --time-limit (minutes, now " + real_text(limit_minutes) + ")");
  if (seconds >= 60 && !quiet)
    std::fprintf(stderr, "ppsim: %s takes at least %s (%s)\n", what.c_str(), duration_text(seconds).c_str(), largest.c_str());
}

}  // namespace ppsim::study
