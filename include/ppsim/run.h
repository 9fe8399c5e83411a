// Running a configuration on the requested backend.
#pragma once
#include <string>

#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace ppsim {

// Runs c on `requested` (auto: the GPU when one is usable, else the CPU; a one-line notice is
// written to *notice when a GPU is there but cannot be used, none when the machine has no GPU). Throws ConfigError / ScheduleError.
RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice = nullptr);

// Under --model loggp: replaces r's time by the LogGP time of c's rounds and fills r's per-processor
// finishing times (host code on either backend: the same rounds give the same times). Throws ScheduleError.
void add_loggp_times(const RunConfig& c, RunResult& r);

}  // namespace ppsim
