// Running a configuration on the requested backend.
#pragma once
#include <string>

#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace ppsim {

// Runs c on `requested` (auto: the GPU when one is usable, else the CPU, with a one-line notice
// written to *notice). Throws ConfigError / ScheduleError.
RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice = nullptr);

// Why --backend cuda cannot run where `s` says the CUDA backend is not usable, as one line:
// "--backend cuda: no usable CUDA device (WHY)", or the reason a build has no CUDA backend.
std::string cuda_backend_refusal(const CudaStatus& s);

// A memory size as the refusals of too large runs write it: "1.50 GiB".
std::string gib_text(uint64_t bytes);

}  // namespace ppsim
