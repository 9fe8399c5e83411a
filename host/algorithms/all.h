// The registry: every algorithm is listed here exactly once. The host table (registry.cpp), the
// per-round dispatch used by both backends, the CLI, the tests and the benchmarks all read it.
#pragma once
#include "algorithms/allgather_hypercube.h"
#include "algorithms/shift_ring.h"
#include "algorithms/shift_ecube.h"
#include "algorithms/shift_hypercube_gray.h"
#include "algorithms/shift_hypercube_gray_fb.h"
#include "algorithms/shift_mesh.h"
#include "algorithms/scatter_binomial.h"
#include "algorithms/scatter_hypercube_allport.h"
#include "algorithms/gather_hypercube_allport.h"
#include "algorithms/scan_ring.h"
#include "algorithms/reduce_scatter_ring.h"
#include "algorithms/reduce_scatter_mesh.h"
#include "algorithms/reduce_scatter_hypercube.h"
#include "algorithms/reduce_rs_gather.h"
#include "algorithms/gather_binomial.h"
#include "algorithms/kbroadcast_hypercube.h"
#include "algorithms/kscatter_hypercube.h"
#include "algorithms/multicast_binomial.h"
#include "algorithms/broadcast_scatter_allgather.h"
#include "algorithms/alltoall_xor_ecube.h"
#include "algorithms/alltoall_ring.h"
#include "algorithms/alltoall_hypercube.h"
#include "algorithms/alltoall_mesh.h"
#include "algorithms/allreduce_rs_ag.h"
#include "algorithms/allreduce_ring_combining.h"
#include "algorithms/allreduce_ring_allgather.h"
#include "algorithms/allreduce_reduce_broadcast.h"
#include "algorithms/allgather_mesh.h"
#include "algorithms/allgather_ring.h"
#include "algorithms/allgather_ring_bidirectional.h"
#include "algorithms/allreduce_hypercube.h"
#include "algorithms/broadcast_binomial.h"
#include "algorithms/broadcast_binomial_low_first.h"
#include "algorithms/broadcast_hypercube.h"
#include "algorithms/broadcast_hypercube_allport.h"
#include "algorithms/broadcast_hypercube_low_first.h"
#include "algorithms/broadcast_mesh.h"
#include "algorithms/broadcast_postal.h"
#include "algorithms/reduce_binomial.h"
#include "algorithms/reduce_binomial_high_first.h"
#include "algorithms/reduce_hypercube.h"
#include "algorithms/reduce_hypercube_high_first.h"
#include "algorithms/reduce_mesh.h"
#include "algorithms/scan_hypercube.h"
#include "algorithms/scan_hypercube_ts.h"
#include "algorithms/scan_postal_a.h"
#include "algorithms/scan_postal_b.h"

// X(unit): order matters only for listings and for picking a default (first native match wins).
#define PPSIM_ALGORITHMS(X)       \
  X(BroadcastBinomial)            \
  X(BroadcastBinomialLowFirst)    \
  X(BroadcastHypercube)           \
  X(BroadcastHypercubeLowFirst)   \
  X(BroadcastHypercubeAllport)    \
  X(BroadcastMesh)                \
  X(BroadcastPostal)              \
  X(BroadcastScatterAllgather)    \
  X(ReduceBinomial)               \
  X(ReduceBinomialHighFirst)      \
  X(ReduceHypercube)              \
  X(ReduceHypercubeHighFirst)     \
  X(ReduceMesh)                   \
  X(ReduceRsGather)               \
  X(AllgatherRing)                \
  X(AllgatherRingBidirectional)   \
  X(AllgatherMesh)                \
  X(AllgatherHypercube)           \
  X(AllreduceHypercube)           \
  X(AllreduceReduceBroadcast)     \
  X(AllreduceRingAllgather)       \
  X(AllreduceRingCombining)       \
  X(AllreduceRsAg)                \
  X(ReduceScatterRing)            \
  X(ReduceScatterHypercube)       \
  X(ReduceScatterMesh)            \
  X(ScanHypercube)                \
  X(ScanHypercubeTs)              \
  X(ScanPostalA)                  \
  X(ScanPostalB)                  \
  X(ScanRing)                     \
  X(ScatterBinomial)              \
  X(GatherBinomial)               \
  X(AlltoallRing)                 \
  X(AlltoallHypercube)            \
  X(AlltoallMesh)                 \
  X(AlltoallXorEcube)             \
  X(ShiftRing)                    \
  X(ShiftEcube)                    \
  X(ShiftMesh)                     \
  X(ShiftHypercubeGray)           \
  X(ShiftHypercubeGrayFb)         \
  X(MulticastBinomial)            \
  X(KbroadcastHypercube)          \
  X(KscatterHypercube)            \
  X(ScatterHypercubeAllport)      \
  X(GatherHypercubeAllport)

namespace ppsim {

enum class AlgorithmId : int16_t {
#define PPSIM_ALGO_ENUM(unit) unit,
  PPSIM_ALGORITHMS(PPSIM_ALGO_ENUM)
#undef PPSIM_ALGO_ENUM
  count
};

// One processor's sends and receives in one round of an algorithm (host and device).
PPSIM_HD inline void algorithm_ops(AlgorithmId id, const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  switch (id) {
#define PPSIM_ALGO_CASE(unit) case AlgorithmId::unit: unit::ops(a, proc, round, out); return;
    PPSIM_ALGORITHMS(PPSIM_ALGO_CASE)
#undef PPSIM_ALGO_CASE
    default: out.overflow = true; return;
  }
}

// Local work of one processor before the first / after the last step (algorithms with has_local).
PPSIM_HD inline void algorithm_local(AlgorithmId id, const AlgoParams& a, OperatorKind k, int64_t proc, LocalPhase phase,
                                     ProcBuffers& b) {
  switch (id) {
#define PPSIM_ALGO_LOCAL(unit) case AlgorithmId::unit: unit::local(a, k, proc, phase, b); return;
    PPSIM_ALGORITHMS(PPSIM_ALGO_LOCAL)
#undef PPSIM_ALGO_LOCAL
    default: return;
  }
}

}  // namespace ppsim
