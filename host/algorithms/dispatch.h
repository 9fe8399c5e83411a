// The per-processor dispatches as the host calls them: one processor's ops in one round, and its
// local work before the first or after the last step. Declared here, without the algorithm units,
// and compiled once (dispatch.cpp); all.h holds their bodies and the units themselves.
#pragma once
#include <cstdint>

#include "ppsim/algorithm.h"  // AlgorithmId
#include "ppsim/schedule.h"   // AlgoParams, StepOps, ProcBuffers, LocalPhase

namespace ppsim {

#if !defined(__CUDACC__)  // (the device compiler reads the inline bodies of all.h instead)
// The sends and receives of processor `proc` in round `round` (1-based) of algorithm `id`.
void algorithm_ops(AlgorithmId id, const AlgoParams& a, int64_t proc, int round, StepOps& out);
// The local work of processor `proc` before the first / after the last step (units with has_local).
void algorithm_local(AlgorithmId id, const AlgoParams& a, OperatorKind k, int64_t proc, LocalPhase phase, ProcBuffers& b);
#endif

}  // namespace ppsim
