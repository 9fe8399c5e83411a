// The PRAM algorithm registry: every shared-memory algorithm listed once.
#pragma once
#include "pram/pram_broadcast.h"
#include "pram/pram_broadcast_concurrent.h"
#include "pram/pram_reduce.h"
#include "pram/pram_reduce_combining.h"
#include "pram/pram_scan.h"

#define PPSIM_PRAM_ALGORITHMS(X) \
  X(PramBroadcast)               \
  X(PramReduce)                  \
  X(PramScan)                    \
  X(PramBroadcastConcurrent)     \
  X(PramReduceCombining)

namespace ppsim {

enum class PramAlgorithmId : int16_t {
#define PPSIM_PRAM_ENUM(unit) unit,
  PPSIM_PRAM_ALGORITHMS(PPSIM_PRAM_ENUM)
#undef PPSIM_PRAM_ENUM
      count
};

PPSIM_HD inline PramOps pram_algorithm_ops(PramAlgorithmId id, const PramParams& a, int64_t proc, int step) {
  switch (id) {
#define PPSIM_PRAM_CASE(unit) \
  case PramAlgorithmId::unit: return unit::ops(a, proc, step);
    PPSIM_PRAM_ALGORITHMS(PPSIM_PRAM_CASE)
#undef PPSIM_PRAM_CASE
    default: return {};
  }
}

}  // namespace ppsim
