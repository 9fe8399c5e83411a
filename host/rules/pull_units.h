// Where the pull step reads a processor's ops from (docs/DESIGN.md §2, "Two ways to run a step"):
// the dispatch over every algorithm, into a StepOps (room for kMaxOps sends and receives, 5.4 KB),
// or one algorithm unit called directly, into ops of the size the unit declares (max_sends,
// max_recvs). A GPU thread keeps a BasicOps<1, 1> in registers, where a StepOps lives in local
// memory: at 2^20 processors that memory is far more than the card's L2, and a step wrote it out to
// DRAM and back (bench/RESULTS.md, "The pull step on an NVIDIA H200").
//
// The units on the list below are the ones the benchmarks and the large runs use, and the ring
// all-reduces and Open MPI's all-reduces whose thousands of steps took most of a sweep's time on
// the card (bench/RESULTS.md);
// a unit joins it by declaring its bounds and writing ops() for any ops type. The bounds are checked on every
// configuration of the registry (test_step_paths). Should a unit's ops still overflow its room, the
// device run goes again on the records, which read every unit through the dispatch.
#pragma once
#include <cstdint>

#include "algorithms/all.h"  // AlgorithmId, and the units
#include "rules/round_ops.h"

namespace ppsim::rules {

// Every algorithm through the dispatch (or a test's schedule, on the host).
struct AnyUnit {
  using Ops = StepOps;
  static constexpr bool any = true;
  static constexpr bool plain = false;
};

// One unit called directly, with ops of its own size.
template <class U>
struct OneUnit {
  using Unit = U;
  using Ops = BasicOps<U::max_sends, U::max_recvs>;
  static constexpr bool any = false;
  static constexpr bool plain = false;
};

// The same, on a run that asks no route question the device would have to call for (plain_machine):
// its kernels hold no call, and so no frame for one.
template <class U>
struct PlainUnit : OneUnit<U> {
  static constexpr bool plain = true;
};

// Processor proc's ops of round `round` from source Src; false where they overflowed its room.
template <class Src>
PPSIM_HD PPSIM_DEVICE_INLINE bool read_ops(AlgorithmId id, OpsOverride ops_override, const AlgoParams& a, int64_t proc, int round, typename Src::Ops& ops) {
  if constexpr (Src::any) {
    return read_round_ops(id, ops_override, a, proc, round, ops);
  } else {
    ops.nsend = ops.nrecv = 0;
    ops.overflow = false;
    Src::Unit::ops(a, proc, round, ops);
    return !ops.overflow;
  }
}

// The list: X(unit) for every unit read directly.
#define PPSIM_PULL_UNITS(X)      \
  X(AllreduceHypercube)          \
  X(BroadcastBinomial)           \
  X(AllgatherRing)               \
  X(AlltoallXorEcube)            \
  X(AllreduceRing)               \
  X(AllreduceRingCombining)      \
  X(AllreduceRingAllgather)      \
  X(AllreduceRabenseifnerOmpi)   \
  X(AllreduceRingOmpi)

// Calls fn with the source of algorithm id's ops: the unit's own where it is on the list and
// `direct` (the run has no test schedule, and whatever else the caller needs), else AnyUnit.
PPSIM_HD_TEMPLATE
template <class Fn>
PPSIM_HD void with_ops_source(AlgorithmId id, bool direct, Fn&& fn) {
  if (direct) {
    switch (id) {
#define PPSIM_PULL_UNIT_CASE(unit) \
  case AlgorithmId::unit: fn(OneUnit<unit>{}); return;
      PPSIM_PULL_UNITS(PPSIM_PULL_UNIT_CASE)
#undef PPSIM_PULL_UNIT_CASE
      default: break;
    }
  }
  fn(AnyUnit{});
}

}  // namespace ppsim::rules
