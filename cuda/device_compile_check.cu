// Compiles the per-processor step code of every registered algorithm, the topology routes and the
// operators for the device, so that the code the CPU backend runs stays device-ready
// (no STL containers, virtual calls or exceptions under PPSIM_HD). The CUDA backend
// launches these same functions from its round kernels.
#include "algorithms/all.h"
#include "pram/all.h"
#include "ppsim/operation.h"
#include "machine/topologies/routing.h"

namespace ppsim {

__global__ void device_compile_check_kernel(AlgorithmId algo, AlgoParams a, Topology t, int round, int64_t* out) {
  int64_t proc = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (proc >= a.p) return;
  StepOps ops;
  algorithm_ops(algo, a, proc, round, ops);
  int64_t links = 0;
  for (int n = 0; n < ops.nsend; ++n) for_each_route_link(t, proc, ops.send[n].to, [&](int64_t) { ++links; });
  uint64_t w = operation_initial_word(Operation::scan, OperatorKind::interval, InputSpec{}, a, 0, proc, 0);
  PramOps pram = pram_algorithm_ops(PramAlgorithmId::PramScan, PramParams{a.p, a.m}, proc, round);
  ProcBuffers none;
  if (a.m == 0) algorithm_local(algo, a, OperatorKind::sum, proc, LocalPhase::before_first_step, none);
  out[proc] = links + int64_t(combine_dyn(OperatorKind::affine, w, w) & 1) + route_hops(t, proc, 0) + link_space(t) + pram.read;
}

}  // namespace ppsim
