// The host-side registry table, built from the single list in algorithms/list.def.
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "algorithms/all.h"
#include "ppsim/algorithm.h"
#include "ppsim/mapping.h"

namespace ppsim {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
#define PPSIM_ALGORITHM(unit)                                                                      \
  {AlgorithmId::unit, unit::name,     unit::description,    unit::formula_text,   unit::op,        \
   unit::topologies,  unit::native,   unit::flags,          unit::sends_per_step, unit::has_local, \
   &unit::rounds,     &unit::formula, &unit::scratch_words, &unit::rejects,       &unit::local_combined_words},
#include "algorithms/list.def"
  };
  return table;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

const AlgorithmInfo* inter_algorithm(const AlgoParams& a) {
  const size_t id = size_t(inter_allreduce_id(a.inter));
  return a.inter >= -1 && id < algorithms().size() ? &algorithms()[id] : nullptr;
}

namespace {
// Every operation once: the name --op takes and reports print, another name it takes (or nullptr),
// and its MPI name (textbook Table 4-2; nullptr where MPI has none), which --op takes too.
struct OperationNames {
  Operation op;
  const char* name;
  const char* alias;
  const char* mpi;
};
constexpr OperationNames kOperationNames[] = {
    {Operation::broadcast, "broadcast", nullptr, "MPI_Bcast"},
    {Operation::reduce, "reduce", nullptr, "MPI_Reduce"},
    {Operation::allgather, "allgather", nullptr, "MPI_Allgather"},
    {Operation::reduce_scatter, "reduce-scatter", nullptr, "MPI_Reduce_scatter"},
    {Operation::allreduce, "allreduce", nullptr, "MPI_Allreduce"},
    {Operation::scan, "scan", nullptr, "MPI_Scan"},
    {Operation::scatter, "scatter", nullptr, "MPI_Scatter"},
    {Operation::gather, "gather", nullptr, "MPI_Gather"},
    {Operation::alltoall, "alltoall", nullptr, "MPI_Alltoall"},
    {Operation::shift, "shift", nullptr, nullptr},
    {Operation::multicast, "multicast", nullptr, nullptr},
    {Operation::kbroadcast, "kbroadcast", "k-to-all-broadcast", nullptr},
    {Operation::kscatter, "kscatter", "k-to-all-personalized", nullptr},
    {Operation::barrier, "barrier", nullptr, "MPI_Barrier"},
};
static_assert(std::size(kOperationNames) == kOperationCount, "every operation needs its names");

const OperationNames* names_of(Operation op) {
  for (const auto& e : kOperationNames)
    if (e.op == op) return &e;
  return nullptr;
}
bool same(const std::string& text, const char* name) { return name && text == name; }
}  // namespace

const char* operation_name(Operation op) {
  const OperationNames* e = names_of(op);
  return e ? e->name : "?";
}
const char* operation_mpi_name(Operation op) {
  const OperationNames* e = names_of(op);
  return e ? e->mpi : nullptr;
}
bool parse_operation(const std::string& name, Operation& out) {
  for (const auto& e : kOperationNames)
    if (same(name, e.name) || same(name, e.alias) || same(name, e.mpi)) {
      out = e.op;
      return true;
    }
  return false;
}
const char* operator_name(OperatorKind k) { return kOperatorNames[int(k)]; }
bool parse_operator(const std::string& name, OperatorKind& out) {
  for (int i = 0; i < kOperatorCount; ++i)
    if (name == kOperatorNames[i]) {
      out = OperatorKind(i);
      return true;
    }
  return false;
}
std::string operator_names() {
  std::string list;
  for (const char* name : kOperatorNames) {
    if (!list.empty()) list += ' ';
    list += name;
  }
  return list;
}

AlgoParams params_for(const Topology& t, int64_t m, int64_t root) {
  AlgoParams a;
  a.p = t.p;
  a.m = m;
  a.root = root;
  a.ndims = t.ndims;
  for (int k = 0; k < 8; ++k) a.dims[k] = t.dims[k];
  if (t.kind == TopologyKind::cluster || t.kind == TopologyKind::cluster_fattree) a.node_size = t.dims[1];
  return a;
}

namespace {

// What works instead of an algorithm on a machine it is not written for: a topology it runs on as
// the logical one, mapped onto this machine (textbook §2.7), else the topologies it runs on.
std::string where_it_runs(const AlgorithmInfo& algo, const Topology& machine) {
  std::string kinds;
  for (int k = 0; k < kTopologyCount; ++k) {
    if (!algo.runs_on(TopologyKind(k))) continue;
    const std::string name = topology_name(TopologyKind(k));
    kinds += (kinds.empty() ? "" : ", ") + name;
    if (algo.switch_agents()) continue;  // it needs the machine's own switches: no mapping gives them
    for (MapKind map : {MapKind::gray, MapKind::snake, MapKind::identity}) {
      Mapping m;
      m.kind = map;
      m.physical = machine;
      try {
        m.logical = make_topology(TopologyKind(k), machine.p, "");
      } catch (const std::invalid_argument&) {
        break;  // no such logical topology of p processors
      }
      if (mapping_rejects(m).empty())
        return "; run it on this machine as a logical " + name + ": --logical " + name +
               (map == MapKind::identity ? std::string() : std::string(" --map ") + map_kind_name(map));
    }
  }
  return " (it runs on " + kinds + ")";
}

}  // namespace

std::string algorithm_rejects(const AlgorithmInfo& algo, const Topology& t, const AlgoParams& a, OperatorKind k) {
  std::string n = algo.name;
  if (!algo.runs_on(t.kind)) return n + " does not run on a " + topology_name(t.kind) + " topology" + where_it_runs(algo, t);
  if (algo.needs_pow2() && !is_pow2(t.p)) return n + " needs p to be a power of two (got " + std::to_string(t.p) + ")";
  if (const char* own = algo.own_limit(a)) return own;
  if (algo.needs_n_equal_p() && a.n > 0 && a.n != a.p)
    return n + " handles one element per processor; --n " + std::to_string(a.n) + " differs from p = " + std::to_string(a.p) +
           " (scan_postal_b spreads n elements over p processors)";
  if (a.exclusive && !algo.supports_exclusive())
    return n + " computes the inclusive prefix only (--exclusive: use scan_ring or scan_hypercube)";
  if (algo.needs_m_divisible_by_p() && a.m % a.p != 0)
    return n + " splits the m words into p equal parts; --m " + std::to_string(a.m) + " is not a multiple of p = " + std::to_string(a.p);
  if (algo.op == Operation::shift && a.shift < 0) return "--shift must not be negative (got " + std::to_string(a.shift) + ")";
  if (algo.op == Operation::multicast) {
    int64_t size = multicast_size(a), g = a.group_stride, q = a.p;
    while (q != 0) {
      int64_t r = g % q;
      g = q;
      q = r;
    }  // gcd(stride, p): the group repeats after p / gcd members
    if (a.group_stride < 1 || size < 1 || size > a.p / g)
      return "--group-size " + std::to_string(size) + " with --group-stride " + std::to_string(a.group_stride) +
             " does not give distinct members (at most p / gcd(stride, p) = " + std::to_string(a.p / (g > 0 ? g : 1)) + ")";
  }
  if ((algo.op == Operation::kbroadcast || algo.op == Operation::kscatter) && (a.sources < 1 || a.sources > a.p || a.p % a.sources != 0))
    return "--sources " + std::to_string(a.sources) + " must divide p = " + std::to_string(a.p);
  if (algo.op == Operation::scan && a.n > 0 && a.n < a.p)
    return "--n " + std::to_string(a.n) + " is smaller than p = " + std::to_string(a.p) + "; every processor needs an element";
  if (!operator_commutative(k)) {
    if (algo.commutative_only()) return n + " folds in an order that needs a commutative operator; " + operator_name(k) + " is not";
    if (algo.root_zero_if_noncommutative() && a.root != 0)
      return n + " orders ranks relative to the root, so the non-commutative operator " + operator_name(k) + " needs --root 0";
  }
  return "";
}

const AlgorithmInfo* default_algorithm(Operation op, const Topology& t, const AlgoParams& a, OperatorKind k) {
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& algo : algorithms())
      if (algo.op == op && (pass == 1 || algo.native_on(t.kind)) && algorithm_rejects(algo, t, a, k).empty()) return &algo;
  return nullptr;
}

}  // namespace ppsim
