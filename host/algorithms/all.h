// The registry: every algorithm unit, its id and the per-round dispatch used by both backends, all
// generated from the one list in algorithms/list.def. The host table (registry.cpp), the CLI, the
// tests and the benchmarks read that list through here.
#pragma once
#include "algorithms/list.def"  // every unit header
#include "algorithms/dispatch.h"

namespace ppsim {

enum class AlgorithmId : int16_t {
#define PPSIM_ALGORITHM(unit) unit,
#include "algorithms/list.def"
  count
};

// The dispatches are compiled once per translation unit on the device (not inlined into every
// kernel that asks a processor for its round: ptxas would otherwise compile the whole switch over
// every algorithm once per kernel).
// (__noinline__ in the device pass only: in the host pass g++ warns of a noinline definition
// after an inline declaration, allreduce_hierarchical.h's.)
#if defined(__CUDA_ARCH__)
#define PPSIM_DISPATCH __host__ __device__ __noinline__
#elif defined(__CUDACC__)
#define PPSIM_DISPATCH __host__ __device__
#else
#define PPSIM_DISPATCH
#endif

// On the device each unit's ops are a function of their own, called from the dispatch: inlined
// into the switch, the whole list was one function of 32,000 PTX lines, and ptxas took 38 s over
// backend.cu instead of 28 (relocatable device code, CMakeLists.txt).
#if defined(__CUDACC__)
template <class Unit>
PPSIM_DISPATCH void unit_ops(const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  Unit::ops(a, proc, round, out);
}
#define PPSIM_UNIT_OPS(unit) unit_ops<unit>
#else
#define PPSIM_UNIT_OPS(unit) unit::ops
#endif

// The two per-processor dispatches below are defined in every unit the device compiler reads (each
// CUDA unit needs its own copy; static, so that no host symbol meets the one of dispatch.cpp) and
// once for the host, in dispatch.cpp: a host unit that only asks for a processor's ops includes
// algorithms/dispatch.h, which declares them, instead of compiling the switch over every
// algorithm again (4 to 5 s of g++ per unit).
#if defined(__CUDACC__)
#define PPSIM_DISPATCH_BODIES static inline
#endif
#if defined(PPSIM_DISPATCH_BODIES)

// One processor's sends and receives in one round of an algorithm (host and device).
PPSIM_DISPATCH PPSIM_DISPATCH_BODIES void algorithm_ops(AlgorithmId id, const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  switch (id) {
#define PPSIM_ALGORITHM(unit)                  \
  case AlgorithmId::unit:                      \
    PPSIM_UNIT_OPS(unit)(a, proc, round, out); \
    return;
#include "algorithms/list.def"
    default: out.overflow = true; return;
  }
}

// Local work of one processor before the first / after the last step (algorithms with has_local).
PPSIM_DISPATCH PPSIM_DISPATCH_BODIES void algorithm_local(AlgorithmId id, const AlgoParams& a, OperatorKind k, int64_t proc, LocalPhase phase, ProcBuffers& b) {
  switch (id) {
#define PPSIM_ALGORITHM(unit)          \
  case AlgorithmId::unit:              \
    unit::local(a, k, proc, phase, b); \
    return;
#include "algorithms/list.def"
    default: return;
  }
}
#endif  // PPSIM_DISPATCH_BODIES

// The all-reduce a composite unit runs between nodes (allreduce_hierarchical.h declares these, as
// the list is complete only here): AlgoParams::inter, -1 for allreduce_ring, and its rounds and ops
// on the parameters it runs with there. The switches reach only the units runs_between_nodes
// admits (algorithm_unit.h), never a composite: no unit calls itself, on the device either; any
// other id posts an overflow, which the engine reports as a schedule error.
PPSIM_HD inline AlgorithmId inter_allreduce_id(int16_t inter) { return inter < 0 ? AlgorithmId::AllreduceRing : AlgorithmId(inter); }

template <class Unit>
PPSIM_HD inline int inter_unit_rounds(const AlgoParams& a) {
  if constexpr (runs_between_nodes<Unit>) return Unit::rounds(a);
  else return 0;
}
template <class Unit>
PPSIM_HD inline void inter_unit_ops(const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  if constexpr (runs_between_nodes<Unit>) Unit::ops(a, proc, round, out);
  else out.overflow = true;
}

PPSIM_DISPATCH inline int inter_allreduce_rounds(const AlgoParams& a, int16_t inter) {
  switch (inter_allreduce_id(inter)) {
#define PPSIM_ALGORITHM(unit) \
  case AlgorithmId::unit:     \
    return inter_unit_rounds<unit>(a);
#include "algorithms/list.def"
    default: return 0;
  }
}

PPSIM_DISPATCH inline void inter_allreduce_ops(const AlgoParams& a, int16_t inter, int64_t proc, int round, StepOps& out) {
  switch (inter_allreduce_id(inter)) {
#define PPSIM_ALGORITHM(unit)                  \
  case AlgorithmId::unit:                      \
    inter_unit_ops<unit>(a, proc, round, out); \
    return;
#include "algorithms/list.def"
    default: out.overflow = true; return;
  }
}

}  // namespace ppsim
