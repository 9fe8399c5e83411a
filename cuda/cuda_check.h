// Every CUDA call and kernel launch goes through these: a failure becomes a CudaError naming the
// error and the expression (the file and line ride along in where(), out of the user's message),
// or, for device memory that ran out, a ConfigError.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "ppsim/cuda_backend.h"

namespace ppsim {

inline void cuda_check(cudaError_t status, const char* expr, const char* file, int line) {
  if (status == cudaSuccess) return;
  const std::string call = std::string(cudaGetErrorName(status)) + " in " + expr;
  // Out of memory is the one failure a user can act on (a smaller run, another process's memory):
  // a ConfigError like the check before the run, so sweeps record a refused point and `auto`
  // falls back to the CPU. It is not sticky: the device stays usable.
  if (status == cudaErrorMemoryAllocation) throw ConfigError("the device ran out of memory (" + call + ")");
  throw CudaError("CUDA error " + call + " (" + cudaGetErrorString(status) + ")", std::string(file) + ":" + std::to_string(line));
}

}  // namespace ppsim

#define PPSIM_CUDA_CHECK(expr) ::ppsim::cuda_check((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: launch errors now, execution errors at the next synchronizing call.
#define PPSIM_CUDA_CHECK_LAUNCH(name) ::ppsim::cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
