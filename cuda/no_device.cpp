// A build without nvcc: the CUDA backend is absent, and says why (its host executor is still
// built: host_rounds.cpp).
#include "ppsim/cuda_backend.h"

namespace ppsim {

CudaStatus cuda_status() {
  CudaStatus s;
  s.why = "this ppsim was built without CUDA (nvcc was not found at configure time)";
  return s;
}
double cuda_copy_bandwidth(uint64_t) { return 0; }
RunResult run_cuda(const RunConfig&) { throw ConfigError("--backend cuda: " + cuda_status().why); }
void cuda_use_rank_device(int) {}

}  // namespace ppsim
