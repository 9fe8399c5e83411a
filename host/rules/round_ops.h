// One processor's ops of one round, as every reader asks for them: the CPU passes (post_step.cpp),
// the device rounds (cuda/round_bodies.h) and the LogGP timing (goal/loggp_rounds.h). One rule
// clears the StepOps, picks the algorithm or a test's replacement and tells an overflow, so that
// the three see the same ops, and the same overflow, for the same round.
#pragma once
#include <cstdint>

#include "ppsim/hd.h"
#if defined(__CUDACC__)
#include "algorithms/all.h"  // the device compiler reads the dispatch's bodies in every unit that calls it
#else
#include "algorithms/dispatch.h"  // the host's dispatch is compiled once (dispatch.cpp)
#endif

namespace ppsim::rules {

// A test's replacement for an algorithm's schedule (RunConfig::test_ops_override): a host
// function, so only the host calls it.
using OpsOverride = void (*)(const AlgoParams&, int64_t proc, int round, StepOps&);

// Processor proc's ops of round `round` (1-based) of algorithm id, or of the test's schedule where
// ops_override is set. False where they overflowed StepOps (more than kMaxOps sends or receives);
// check_ops reports the same as its first broken rule.
PPSIM_HD inline bool read_round_ops(AlgorithmId id, [[maybe_unused]] OpsOverride ops_override, const AlgoParams& a, int64_t proc, int round,
                                    StepOps& ops) {
  ops.nsend = ops.nrecv = 0;
  ops.overflow = false;
#if defined(__CUDA_ARCH__)
  algorithm_ops(id, a, proc, round, ops);
#else
  if (ops_override) ops_override(a, proc, round, ops);
  else algorithm_ops(id, a, proc, round, ops);
#endif
  return !ops.overflow;
}

}  // namespace ppsim::rules
