// Running a configuration on the requested backend.
#pragma once
#include <string>

#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace ppsim {

// Runs c on `requested` (auto: the GPU when one is usable and the run is not one the CPU finishes
// sooner than a process starts its device, auto_prefers_cpu; else the CPU; a one-line notice is
// written to *notice when a GPU is there but cannot be used, none when the machine has no GPU).
// Throws ConfigError / ScheduleError.
RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice = nullptr);

// Seconds a process spends starting its device before a run's first kernel (the CUDA context and
// the run's first allocations): a whole `ppsim run` of allreduce over 2^20 processors took 0.44 s
// on an NVIDIA H200 with the CUDA backend and 0.2 s with the CPU backend on its 16 cores
// (bench/RESULTS.md). An estimate: to be measured again with the pull step.
inline constexpr double kDeviceStartSeconds = 0.25;

// Whether --backend auto runs c on the CPU although a GPU is usable: where the CPU backend's own
// lower bound on its time on one thread (estimate_run_seconds) is under kDeviceStartSeconds.
bool auto_prefers_cpu(const RunConfig& c);

// What one more run costs a process whose device has started: its launches, its one read back and
// its kernels' least time, about 2 ms by the launches counted on the host executor (an estimate, to
// be measured on a card). A sweep's points under it by the CPU backend's lower bound go to CPU
// threads under --backend auto while the GPU takes the rest.
inline constexpr double kDevicePointSeconds = 0.002;

// Under --model loggp: replaces r's time by the LogGP time of c's rounds and fills r's per-processor
// finishing times (host code on either backend: the same rounds give the same times). Throws ScheduleError.
void add_loggp_times(const RunConfig& c, RunResult& r);

}  // namespace ppsim
