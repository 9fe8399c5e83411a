// Choosing the backend for a run.
#include "ppsim/run.h"

#include "ppsim/cuda_backend.h"

namespace ppsim {

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (notice) notice->clear();
  if (requested == Backend::cpu) return run_cpu(c);
  CudaStatus status = cuda_status();
  if (requested == Backend::cuda) {
    if (!status.usable) throw ConfigError("--backend cuda: " + (status.built ? "no usable CUDA device (" + status.why + ")" : status.why));
    return run_cuda(c);
  }
  if (status.usable) return run_cuda(c);
  if (notice) *notice = "ppsim: no usable CUDA device (" + status.why + "); running on the CPU";
  return run_cpu(c);
}

}  // namespace ppsim
