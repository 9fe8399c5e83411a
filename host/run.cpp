// Choosing the backend for a run.
#include "ppsim/run.h"

#include "ppsim/cuda_backend.h"

namespace ppsim {

#if !defined(PPSIM_HAVE_CUDA)
// A build without nvcc: the CUDA backend is absent.
CudaStatus cuda_status() {
  CudaStatus s;
  s.why = "this ppsim was built without CUDA (nvcc was not found at configure time)";
  return s;
}
double cuda_copy_bandwidth(uint64_t) { return 0; }
RunResult run_cuda(const RunConfig&) { throw ConfigError("--backend cuda: " + cuda_status().why); }
#endif

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
