// The two ways a run refuses: a broken schedule rule, or a configuration that cannot run.
#pragma once
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace ppsim {

// A violated schedule or port rule: names the step and the processors involved.
class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A configuration that cannot run (memory, sizes, trace limits...).
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "1 word", "7 words": a count of words as messages write it.
inline std::string words_text(int64_t n) { return std::to_string(n) + (n == 1 ? " word" : " words"); }

// A real number as a message writes it: compact, %g-style ("0.5", "2", "1e+308"), never the 309
// digits std::to_string gives 1e308.
inline std::string real_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace ppsim
