// The registry: every algorithm unit, its id and the per-round dispatch used by both backends, all
// generated from the one list in algorithms/list.def. The host table (registry.cpp), the CLI, the
// tests and the benchmarks read that list through here.
#pragma once
#include "algorithms/list.def"  // every unit header

namespace ppsim {

enum class AlgorithmId : int16_t {
#define PPSIM_ALGORITHM(unit) unit,
#include "algorithms/list.def"
  count
};

// The dispatches are compiled once per translation unit on the device (not inlined into every
// kernel that asks a processor for its round: ptxas would otherwise compile the whole switch over
// every algorithm once per kernel).
#if defined(__CUDACC__)
#define PPSIM_DISPATCH __host__ __device__ __noinline__
#else
#define PPSIM_DISPATCH
#endif

// One processor's sends and receives in one round of an algorithm (host and device).
PPSIM_DISPATCH inline void algorithm_ops(AlgorithmId id, const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  switch (id) {
#define PPSIM_ALGORITHM(unit)       \
  case AlgorithmId::unit:           \
    unit::ops(a, proc, round, out); \
    return;
#include "algorithms/list.def"
    default: out.overflow = true; return;
  }
}

// Local work of one processor before the first / after the last step (algorithms with has_local).
PPSIM_DISPATCH inline void algorithm_local(AlgorithmId id, const AlgoParams& a, OperatorKind k, int64_t proc, LocalPhase phase, ProcBuffers& b) {
  switch (id) {
#define PPSIM_ALGORITHM(unit)          \
  case AlgorithmId::unit:              \
    unit::local(a, k, proc, phase, b); \
    return;
#include "algorithms/list.def"
    default: return;
  }
}

}  // namespace ppsim
