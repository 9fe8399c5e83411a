// Choosing the backend for a run.
#include "ppsim/run.h"

namespace ppsim {

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (notice) notice->clear();
  if (requested == Backend::cpu) return run_cpu(c);
  CudaStatus status = cuda_status();
  if (requested == Backend::cuda) {
    if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    return run_cuda(c);
  }
  if (status.usable) return run_cuda(c);
  // A machine without a GPU runs quietly on the CPU (the report says which backend ran); a GPU that
  // is there but cannot be used is worth a line.
  if (notice && status.device_present) *notice = "ppsim: " + no_usable_cuda_device(status) + "; running on the CPU";
  return run_cpu(c);
}

}  // namespace ppsim
