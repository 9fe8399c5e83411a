// The two ways a run refuses: a broken schedule rule, or a configuration that cannot run.
#pragma once
#include <stdexcept>

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

}  // namespace ppsim
