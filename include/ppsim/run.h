// Running a configuration on the requested backend.
#pragma once
#include <string>

#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace ppsim {

// Runs c on `requested` (auto: the GPU when one is usable, else the CPU, with a one-line notice
// written to *notice). Throws ConfigError / ScheduleError.
RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice = nullptr);

}  // namespace ppsim
