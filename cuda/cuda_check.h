// Every CUDA call and kernel launch goes through these: a failure becomes a CudaError naming the
// error and the expression (the file and line ride along in where(), out of the user's message),
// or, for device memory that ran out, a ConfigError (PPSIM_CUDA_MALLOC: one naming the size asked for).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
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

// A size as a user reads it: bytes, MiB or GiB.
inline std::string allocation_size_text(uint64_t bytes) {
  char text[64];
  if (bytes < (uint64_t{1} << 20)) std::snprintf(text, sizeof text, "%llu bytes", (unsigned long long)bytes);
  else if (bytes < (uint64_t{1} << 30)) std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(uint64_t{1} << 20));
  else std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(uint64_t{1} << 30));
  return text;
}

// The status of a cudaMalloc of `bytes`: out of memory names the size the run asked for rather
// than the call's code, which means nothing to a user; any other failure is cuda_check's.
inline void cuda_check_malloc(cudaError_t status, uint64_t bytes, const char* file, int line) {
  if (status == cudaErrorMemoryAllocation)
    throw ConfigError("the device ran out of memory (cudaMalloc of " + allocation_size_text(bytes) + ")");
  cuda_check(status, "cudaMalloc", file, line);
}

template <class T>
void cuda_malloc(T** ptr, uint64_t bytes, const char* file, int line) {
  cuda_check_malloc(cudaMalloc(reinterpret_cast<void**>(ptr), bytes), bytes, file, line);
}

}  // namespace ppsim

#define PPSIM_CUDA_CHECK(expr) ::ppsim::cuda_check((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: launch errors now, execution errors at the next synchronizing call.
#define PPSIM_CUDA_CHECK_LAUNCH(name) ::ppsim::cuda_check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
// Device memory for *ptr, `bytes` of it (a function, so bytes is evaluated once).
#define PPSIM_CUDA_MALLOC(ptr, bytes) ::ppsim::cuda_malloc((ptr), (bytes), __FILE__, __LINE__)
