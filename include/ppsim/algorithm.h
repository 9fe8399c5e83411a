// The algorithm registry as the rest of ppsim sees it: names, descriptions, where each applies,
// its step count and its closed-form cost.
#pragma once
#include <string>
#include <vector>

#include "ppsim/cost.h"
#include "ppsim/operation.h"
#include "ppsim/operators.h"
#include "ppsim/schedule.h"
#include "ppsim/topology.h"

namespace ppsim {

enum class AlgorithmId : int16_t;

// AlgorithmInfo::flags (an algorithm unit's `flags`): the conditions an algorithm puts on a run.
inline constexpr uint32_t kNeedsPow2 = 1;                 // p must be a power of two
inline constexpr uint32_t kCommutativeOnly = 2;           // combines in an order that needs a commutative ⊕
inline constexpr uint32_t kRootZeroIfNoncommutative = 4;  // ranks are relative to the root
inline constexpr uint32_t kPostalNative = 8;              // counts steps itself under latency lambda
inline constexpr uint32_t kNeedsNEqualsP = 16;            // scan: one element per processor
inline constexpr uint32_t kSupportsExclusive = 32;        // scan: honours AlgoParams::exclusive
inline constexpr uint32_t kNeedsMDivisibleByP = 64;       // message splitting: m words in p equal parts
inline constexpr uint32_t kNeedsAllPort = 128;            // sends on several links per step
// In-network reduction: the machine's switches take part as processors of their own (switch
// agents), processor p + s being node p + s of the topology (docs/DESIGN.md §3e).
inline constexpr uint32_t kSwitchAgents = 256;
inline constexpr uint32_t kComposesAllreduce = 512;       // runs another all-reduce (AlgoParams::inter) inside it

struct AlgorithmInfo {
  AlgorithmId id;
  const char* name;
  const char* description;
  const char* formula_text;
  Operation op;
  uint32_t topologies;  // bit per TopologyKind
  uint32_t native;
  uint32_t flags;
  int sends_per_step;  // a port model must allow this many sends and receives per step
  bool has_local;      // runs local work before step 1 / after the last step
  int (*rounds)(const AlgoParams&);
  double (*formula)(const AlgoParams&, const CostParams&);
  int64_t (*scratch_words)(const AlgoParams&);         // words per processor of its scratch buffer (0: none)
  const char* (*own_limit)(const AlgoParams&);         // a limit particular to the algorithm, or nullptr
  int64_t (*local_combined_words)(const AlgoParams&);  // words the busiest processor folds in local work

  bool runs_on(TopologyKind k) const { return (topologies >> int(k)) & 1u; }
  bool native_on(TopologyKind k) const { return (native >> int(k)) & 1u; }
  bool needs_pow2() const { return flags & kNeedsPow2; }
  bool commutative_only() const { return flags & kCommutativeOnly; }
  bool root_zero_if_noncommutative() const { return flags & kRootZeroIfNoncommutative; }
  bool postal_native() const { return flags & kPostalNative; }
  bool needs_n_equal_p() const { return flags & kNeedsNEqualsP; }
  bool supports_exclusive() const { return flags & kSupportsExclusive; }
  bool needs_m_divisible_by_p() const { return flags & kNeedsMDivisibleByP; }
  bool needs_all_port() const { return flags & kNeedsAllPort; }
  bool switch_agents() const { return flags & kSwitchAgents; }
  bool composes_allreduce() const { return flags & kComposesAllreduce; }
};

const std::vector<AlgorithmInfo>& algorithms();
const AlgorithmInfo* find_algorithm(const std::string& name);

const char* operation_name(Operation op);
const char* operation_mpi_name(Operation op);                   // "MPI_Bcast", ...; nullptr if MPI has none
bool parse_operation(const std::string& name, Operation& out);  // accepts MPI names too
const char* operator_name(OperatorKind k);
bool parse_operator(const std::string& name, OperatorKind& out);
std::string operator_names();  // every operator name, space-separated: "sum prod ... interval"

// Why `algo` cannot run this configuration, or "" if it can.
std::string algorithm_rejects(const AlgorithmInfo& algo, const Topology& t, const AlgoParams& a, OperatorKind k);
// The default algorithm for (op, topology, params): the first registered native one that accepts
// the configuration, else the first that accepts it; nullptr if none does.
const AlgorithmInfo* default_algorithm(Operation op, const Topology& t, const AlgoParams& a, OperatorKind k);

// The all-reduce that a unit with kComposesAllreduce (allreduce_hierarchical) runs inside it:
// AlgoParams::inter, or its default where that is -1; nullptr where inter is no registered id.
const AlgorithmInfo* inter_algorithm(const AlgoParams& a);

// The AlgoParams a topology implies (p, mesh extents).
AlgoParams params_for(const Topology& t, int64_t m, int64_t root);

}  // namespace ppsim
