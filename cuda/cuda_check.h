// Every CUDA call and kernel launch goes through these: a failure becomes a CudaError naming the
// expression, the file and the line.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "ppsim/cuda_backend.h"

namespace ppsim {

inline void cuda_check(cudaError_t status, const char* expr, const char* file, int line) {
  if (status != cudaSuccess)
    throw CudaError(std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ") in " + expr +
                    " at " + file + ":" + std::to_string(line));
}

}  // namespace ppsim

#define PPSIM_CUDA_CHECK(expr) ::ppsim::cuda_check((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: launch errors now, execution errors at the next synchronizing call.
#define PPSIM_CUDA_CHECK_LAUNCH(name) ::ppsim::cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
