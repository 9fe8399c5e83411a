// Choosing the backend for a run.
#include "ppsim/run.h"

#include <sstream>

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

std::string gib_text(uint64_t bytes) {
  std::ostringstream o;
  o.precision(2);
  o << std::fixed << double(bytes) / double(uint64_t{1} << 30) << " GiB";
  return o.str();
}

namespace {
std::string no_usable_device(const CudaStatus& s) { return "no usable CUDA device (" + s.why + ")"; }
}  // namespace

std::string cuda_backend_refusal(const CudaStatus& s) { return "--backend cuda: " + (s.built ? no_usable_device(s) : s.why); }

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (notice) notice->clear();
  if (requested == Backend::cpu) return run_cpu(c);
  CudaStatus status = cuda_status();
  if (requested == Backend::cuda) {
    if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    return run_cuda(c);
  }
  if (status.usable) return run_cuda(c);
  if (notice) *notice = "ppsim: " + no_usable_device(status) + "; running on the CPU";
  return run_cpu(c);
}

}  // namespace ppsim
