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

// One processor's sends and receives in one round of an algorithm (host and device).
PPSIM_HD inline void algorithm_ops(AlgorithmId id, const AlgoParams& a, int64_t proc, int round, StepOps& out) {
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
PPSIM_HD inline void algorithm_local(AlgorithmId id, const AlgoParams& a, OperatorKind k, int64_t proc, LocalPhase phase, ProcBuffers& b) {
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
