// What every algorithm unit (one header per algorithm) provides, and helpers they share.
//
//   struct X {
//     static constexpr const char* name, *description, *formula_text;
//     static constexpr Operation op;
//     static constexpr uint32_t topologies;  // where it may run (bit per TopologyKind)
//     static constexpr uint32_t native;      // where it is the default for its operation
//     static constexpr uint32_t flags;       // kNeedsPow2 | kCommutativeOnly | ... (ppsim/algorithm.h)
//     static constexpr int sends_per_step;   // most sends (and receives) per processor per step
//     static constexpr bool has_local;       // local() runs before step 1 and after the last step
//   (sends_per_step, has_local and local() default through AlgorithmDefaults)
//     static int rounds(const AlgoParams&);
//     static double formula(const AlgoParams&, const CostParams&);   // NaN: no closed form
//     PPSIM_HD static void ops(const AlgoParams&, int64_t proc, int round, StepOps&);
//     (or, with max_sends and max_recvs below kMaxOps, a template over the ops type)
//   };
#pragma once
#include <cmath>

#include "ppsim/algorithm.h"  // the flag bits
#include "ppsim/cost.h"
#include "ppsim/operation.h"
#include "ppsim/schedule.h"
#include "ppsim/topology.h"

namespace ppsim {

constexpr uint32_t topo_bit(TopologyKind k) { return 1u << int(k); }
inline constexpr uint32_t kAllTopologies = (1u << kTopologyCount) - 1;
inline constexpr uint32_t kGridTopologies = topo_bit(TopologyKind::mesh) | topo_bit(TopologyKind::torus);
// Trees with a processor at every node (p - 1 links): the star, the complete binary tree and the
// binomial tree share their defaults (binomial broadcast/reduce, ring all-gather/reduce-scatter/...).
inline constexpr uint32_t kProcessorTrees =
    topo_bit(TopologyKind::star) | topo_bit(TopologyKind::bintree) | topo_bit(TopologyKind::binomial);

// Networks where every processor reaches every other over a few switched links and no pattern fits
// the wiring better than another: the fully connected machine, the fat tree, the dragonfly and the
// two-level clusters share their defaults (binomial trees, rings, one-step shifts, pairwise
// exchange where p = 2^d).
inline constexpr uint32_t kSwitchedNetworks = topo_bit(TopologyKind::full) | topo_bit(TopologyKind::fattree) |
                                              topo_bit(TopologyKind::dragonfly) | topo_bit(TopologyKind::cluster) |
                                              topo_bit(TopologyKind::cluster_fattree);

// Defaults every unit inherits: one send per step, no local work.
struct AlgorithmDefaults {
  static constexpr int sends_per_step = 1;
  // Most sends and receives its ops may hold in any round, under any parameters (kMaxOps: no bound
  // of its own). A unit that declares less, and writes ops() for any ops type, is compiled into
  // the pull step with ops of that size (rules/pull_units.h).
  static constexpr int max_sends = kMaxOps, max_recvs = kMaxOps;
  static constexpr bool has_local = false;
  static int64_t scratch_words(const AlgoParams&) { return 0; }
  static const char* rejects(const AlgoParams&) { return nullptr; }  // a limit of its own, or nullptr
  // Words the busiest processor combines in local() (not on receipt): gamma is charged for them too.
  static int64_t local_combined_words(const AlgoParams&) { return 0; }
  PPSIM_HD static void local(const AlgoParams&, OperatorKind, int64_t, LocalPhase, ProcBuffers&) {}
};

// The combine mode that keeps a fold in processor order when `from`'s data sits on the other side
// of `me`'s (both hold contiguous, adjacent ranges of processors).
PPSIM_HD inline RecvMode fold_mode(int64_t me, int64_t from) { return from < me ? RecvMode::recv_op_slot : RecvMode::slot_op_recv; }

inline double no_formula() { return std::nan(""); }

// Why a unit cannot be the all-reduce that a composite unit (kComposesAllreduce) runs between the
// nodes, whatever the configuration; nullptr where it can. Its processors are the accelerators of
// one local index, one per node, that a switch joins (a rail leaf, or the fat tree): a fully
// connected machine. all.h dispatches to exactly the units this admits, so no unit reaches itself.
PPSIM_HD constexpr const char* inter_node_refusal(Operation op, uint32_t flags, uint32_t topologies, bool has_local) {
  if (op != Operation::allreduce) return "is no all-reduce";
  if (flags & kComposesAllreduce)
    return "runs an all-reduce inside itself (a composite cannot run itself or another composite between nodes)";
  if (!(topologies & topo_bit(TopologyKind::full)))
    return "is not written for the fully connected machine that the switches make of the accelerators of one local index";
  if (has_local) return "does local work before its first and after its last step, which cannot happen between the phases";
  if (flags & (kPostalNative | kNeedsAllPort | kNeedsNEqualsP)) return "needs a port or latency model of its own";
  return nullptr;
}
template <class Unit>
inline constexpr bool runs_between_nodes = inter_node_refusal(Unit::op, Unit::flags, Unit::topologies, Unit::has_local) == nullptr;

}  // namespace ppsim
