// Route, hop count, link-id space and link classes of a Topology (host and device), through its unit.
#pragma once
#include "machine/topologies/all.h"

namespace ppsim {

// True where links are O(p^2): congestion is then counted per sender, not in a link array.
PPSIM_HD inline bool direct_links(const Topology& t) {
  return with_topology_unit(t.kind, [](auto u) { return decltype(u)::direct; });
}

// On the device a route question of a kind not inlined below is a call, and the call takes values
// only, besides the topology (in the kernel's parameter, whose address costs nothing): the ends, and
// a route's visitor, which it returns. A call that took the caller's variables by reference (a
// visitor capturing them) would need their addresses, and so give every kernel that may ask a
// local frame, even where its rounds never ask.
// (Each its own switch, not with_topology_unit: the call of that one's lambda may stay a call.)
PPSIM_HD PPSIM_DEVICE_OUTLINED int64_t called_route_hops(const Topology& t, int64_t s, int64_t d) {
  switch (t.kind) {
#define PPSIM_HOPS_CASE(kind, unit) \
  case TopologyKind::kind: return topo::unit::hops(t, s, d);
    PPSIM_TOPOLOGIES(PPSIM_HOPS_CASE)
#undef PPSIM_HOPS_CASE
  }
  return topo::Full::hops(t, s, d);
}
PPSIM_HD inline int64_t route_hops(const Topology& t, int64_t s, int64_t d) { return called_route_hops(t, s, d); }
// The same, inlined where it is called for the arrays and the hypercube, whose hops are a few
// instructions: the pull step asks for every message's, and on the device a call saved and restored
// a score of registers around a hypercube's popcount, 190 of the 1,290 instructions a warp of its
// all-reduce ran a step (bench/RESULTS.md). The trees and clusters keep the call: inlined, their
// routes' temporary topologies would give every kernel that asks a frame of half a kilobyte.
PPSIM_HD PPSIM_DEVICE_INLINE int64_t route_hops_inlined(const Topology& t, int64_t s, int64_t d) {
  switch (t.kind) {
    case TopologyKind::hypercube: return topo::Hypercube::hops(t, s, d);
    case TopologyKind::ring: return topo::Ring::hops(t, s, d);
    case TopologyKind::linear: return topo::Linear::hops(t, s, d);
    case TopologyKind::mesh: return topo::Mesh::hops(t, s, d);
    case TopologyKind::torus: return topo::Torus::hops(t, s, d);
    default: return called_route_hops(t, s, d);
  }
}

// Whether a run on topology t, with no mapping, no link classes, no all-port checks and no
// failures, asks only what the kinds below answer inline (route_hops_plain), given that every
// message crosses one link or its round's one XOR distance (a guessed round: no route is walked).
PPSIM_HD inline bool plain_kind(TopologyKind k) {
  return k == TopologyKind::full || k == TopologyKind::hypercube || k == TopologyKind::ring || k == TopologyKind::linear ||
         k == TopologyKind::mesh || k == TopologyKind::torus;
}
// The hops of a route on a plain_kind topology, inlined (no call for the other kinds, which a
// plain run does not have: -1).
PPSIM_HD PPSIM_DEVICE_INLINE int64_t route_hops_plain(const Topology& t, int64_t s, int64_t d) {
  switch (t.kind) {
    case TopologyKind::full: return topo::Full::hops(t, s, d);
    case TopologyKind::hypercube: return topo::Hypercube::hops(t, s, d);
    case TopologyKind::ring: return topo::Ring::hops(t, s, d);
    case TopologyKind::linear: return topo::Linear::hops(t, s, d);
    case TopologyKind::mesh: return topo::Mesh::hops(t, s, d);
    case TopologyKind::torus: return topo::Torus::hops(t, s, d);
    default: return -1;
  }
}

// Size of the dense directed-link id space (0 for direct-link topologies).
PPSIM_HD inline int64_t link_space(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_space(t); });
}

// The link class of a directed link id (its per-word time: CostParams::tw_of_class).
PPSIM_HD PPSIM_DEVICE_OUTLINED int link_class(const Topology& t, int64_t id) {
  switch (t.kind) {
#define PPSIM_CLASS_CASE(kind, unit) \
  case TopologyKind::kind: return topo::unit::link_class(t, id);
    PPSIM_TOPOLOGIES(PPSIM_CLASS_CASE)
#undef PPSIM_CLASS_CASE
  }
  return 0;
}

// Walks the route from s to d with `walk` (walk(link id) for every directed link on it, in path
// order) and returns the walk, whose members hold what it gathered: taken and returned by value,
// so that a walk of values costs its caller no local memory (above).
template <class Walk>
PPSIM_HD PPSIM_DEVICE_OUTLINED Walk walk_route(const Topology& t, int64_t s, int64_t d, Walk walk) {
  switch (t.kind) {
#define PPSIM_ROUTE_CASE(kind, unit) \
  case TopologyKind::kind: topo::unit::route(t, s, d, walk); break;
    PPSIM_TOPOLOGIES(PPSIM_ROUTE_CASE)
#undef PPSIM_ROUTE_CASE
  }
  return walk;
}

// Calls visit(link_id) for every directed link on the route from s to d, in path order. (A visitor
// that captures by reference works, at the cost above; hot paths walk with values: walk_route.)
template <class Visit>
PPSIM_HD inline void for_each_route_link(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
  walk_route(t, s, d, [&visit](int64_t id) { visit(id); });
}

// A route's first and last directed link.
struct EndLinks {
  int64_t first = -1, last = -1;
  PPSIM_HD void operator()(int64_t id) {
    if (first < 0) first = id;
    last = id;
  }
};

// First and last directed link of a route (all-port checks). Returns false when s == d.
PPSIM_HD PPSIM_DEVICE_INLINE bool route_end_links(const Topology& t, int64_t s, int64_t d, int64_t& first, int64_t& last) {
  if (s == d) return false;
  const EndLinks e = walk_route(t, s, d, EndLinks{});
  first = e.first;
  last = e.last;
  return true;
}

}  // namespace ppsim
