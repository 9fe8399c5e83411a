// How the CUDA backend says it cannot run (every build: with or without nvcc).
#include "ppsim/cuda_backend.h"

namespace ppsim {

std::string no_usable_cuda_device(const CudaStatus& s) { return "no usable CUDA device (" + s.why + ")"; }

std::string cuda_backend_refusal(const CudaStatus& s) { return "--backend cuda: " + (s.built ? no_usable_cuda_device(s) : s.why); }

}  // namespace ppsim
