// A static interconnect: processors, directed links, a deterministic minimal route per ordered pair.
// Plain data, usable on the host and the device; per-kind behaviour lives in host/machine/topologies/.
#pragma once
#include <string>
#include <vector>
#include "ppsim/hd.h"

namespace ppsim {

// The one list of topologies, in the order `ppsim list` shows them: X(kind, unit). Each unit is one
// header in host/machine/topologies/ that answers every question about its kind (host/machine/topologies/unit.h);
// every dispatch on a kind is generated from this list. Adding a topology: write its unit, include
// it in host/machine/topologies/all.h, add it here.
#define PPSIM_TOPOLOGIES(X) \
  X(linear, Linear)         \
  X(ring, Ring)             \
  X(mesh, Mesh)             \
  X(torus, Torus)           \
  X(hypercube, Hypercube)   \
  X(full, Full)             \
  X(star, Star)             \
  X(tree, Tree)             \
  X(bintree, Bintree)       \
  X(binomial, Binomial)     \
  X(fattree, Fattree)       \
  X(dragonfly, Dragonfly)   \
  X(cluster, Cluster)       \
  X(cluster_fattree, ClusterFattree)

#define PPSIM_TOPOLOGY_ENUMERATOR(kind, unit) kind,
enum class TopologyKind : int8_t { PPSIM_TOPOLOGIES(PPSIM_TOPOLOGY_ENUMERATOR) };
#undef PPSIM_TOPOLOGY_ENUMERATOR
#define PPSIM_TOPOLOGY_ONE(kind, unit) +1
inline constexpr int kTopologyCount = 0 PPSIM_TOPOLOGIES(PPSIM_TOPOLOGY_ONE);
#undef PPSIM_TOPOLOGY_ONE

struct Topology {
  TopologyKind kind = TopologyKind::full;
  int64_t p = 1;
  int32_t ndims = 1;                           // mesh/torus: number of dimensions
  int64_t dims[8] = {1, 0, 0, 0, 0, 0, 0, 0};  // mesh/torus: row-major extents (last varies fastest);
                                               // fattree: k, n; dragonfly: a, h, c (--dims order)
  int32_t log2p = 0;                           // floor(log2 p)
};

// Table 2-1 figures for this instance (undirected links; processors only for diameter).
struct TopologyMetrics {
  int64_t diameter = 0;
  int64_t bisection_width = 0;
  int64_t arc_connectivity = 0;
  int64_t links = 0;
};

// What a kind of topology is, resolved once from its unit (host/machine/topologies/): every answer
// that does not depend on p or --dims. `--topology NAME` becomes one of these where it is parsed,
// and each later question about the kind is a field of it, not another dispatch.
struct TopologyType {
  TopologyKind kind;
  const char* name;          // as --topology and the reports spell it
  const char* aliases;       // other names --topology accepts, space-separated
  const char* hint;          // `ppsim list`: what p it takes ("" when any p)
  const char* link_classes;  // `ppsim list`: its link classes (--tw-class), "link", "terminal local global", ...
  bool grid;                 // a grid of --dims extents: mesh, torus
  bool takes_dims;           // shaped by --dims: mesh, torus, fattree, dragonfly
  const char* (*rejects)(int64_t p);                              // why p is not allowed, or nullptr
  std::string (*shape)(Topology& t, int64_t p, bool from_dims);  // fattree, dragonfly: "" or why not
};

// The kinds, in PPSIM_TOPOLOGIES order.
const TopologyType& topology_type(TopologyKind k);
// The kind named `name` (a name or an alias), or nullptr.
const TopologyType* find_topology_type(const std::string& name);

inline const char* topology_name(TopologyKind k) { return topology_type(k).name; }
inline const char* topology_hint(TopologyKind k) { return topology_type(k).hint; }
inline bool topology_is_grid(TopologyKind k) { return topology_type(k).grid; }
inline bool topology_takes_dims(TopologyKind k) { return topology_type(k).takes_dims; }
bool parse_topology_kind(const std::string& name, TopologyKind& out);  // a name or an alias
// Builds a topology from --p or --dims ("RxC", "RxCxD", ...). Throws std::invalid_argument with a
// one-line message naming the problem.
Topology make_topology(const TopologyType& type, int64_t p, const std::string& dims);
inline Topology make_topology(TopologyKind kind, int64_t p, const std::string& dims) { return make_topology(topology_type(kind), p, dims); }
std::string topology_shape(const Topology& t);  // "ring p=8", "torus 4x4", "fattree 4x3 p=64", ...
std::string topology_dims(const Topology& t);   // "4x4" for a topology shaped by --dims, "" for the others
TopologyMetrics topology_metrics(const Topology& t);

// Nodes of the link graph: processors 0..p-1 and, for the tree, switches p..nodes-1.
int64_t topology_nodes(const Topology& t);
// For tests and drawings: the endpoints (node ids) of a directed link id; false if unused.
bool topology_link_endpoints(const Topology& t, int64_t link, int64_t& from, int64_t& to);
// The directed link id from node a to node b, -1 where no link joins them (a direct-link
// topology's link a -> b is a * p + b: the route between them).
int64_t topology_link_between(const Topology& t, int64_t a, int64_t b);
// The directed link ids of the route from node s to node d, in path order.
std::vector<int64_t> topology_route(const Topology& t, int64_t s, int64_t d);
// Link ids to ask topology_link_endpoints about: [0, topology_link_ids(t)).
int64_t topology_link_ids(const Topology& t);
// Links at the best-connected processor: what it can use at once under the all-port model (>= 1).
int64_t topology_degree(const Topology& t);

// Link classes (each may have its own per-word time: CostParams::set_class_tw, --tw-class).
inline const char* topology_link_classes_text(TopologyKind k) { return topology_type(k).link_classes; }
int topology_link_class_count(const Topology& t);
std::string topology_link_class_name(const Topology& t, int k);
int topology_link_class(const Topology& t, int64_t link);  // the class of a directed link id
// The class of t named `name`, or -1.
int topology_find_link_class(const Topology& t, const std::string& name);

// Where a drawing puts node v (points; y grows upwards).
struct LayoutPoint {
  double x, y;
};
LayoutPoint topology_layout(const Topology& t, int64_t v);

}  // namespace ppsim
