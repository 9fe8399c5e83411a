// Route, hop count, link-id space and link classes of a Topology (host and device), through its unit.
#pragma once
#include "machine/topologies/all.h"

namespace ppsim {

// True where links are O(p^2): congestion is then counted per sender, not in a link array.
PPSIM_HD inline bool direct_links(const Topology& t) {
  return with_topology_unit(t.kind, [](auto u) { return decltype(u)::direct; });
}

PPSIM_HD inline int64_t route_hops(const Topology& t, int64_t s, int64_t d) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::hops(t, s, d); });
}
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
    default: return route_hops(t, s, d);
  }
}

// Size of the dense directed-link id space (0 for direct-link topologies).
PPSIM_HD inline int64_t link_space(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_space(t); });
}

// The link class of a directed link id (its per-word time: CostParams::tw_of_class).
PPSIM_HD inline int link_class(const Topology& t, int64_t id) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_class(t, id); });
}

// Calls visit(link_id) for every directed link on the route from s to d, in path order.
template <class Visit>
PPSIM_HD inline void for_each_route_link(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
  with_topology_unit(t.kind, [&](auto u) { decltype(u)::route(t, s, d, visit); });
}

// First and last directed link of a route (all-port checks). Returns false when s == d.
PPSIM_HD inline bool route_end_links(const Topology& t, int64_t s, int64_t d, int64_t& first, int64_t& last) {
  if (s == d) return false;
  first = -1;
  for_each_route_link(t, s, d, [&](int64_t id) {
    if (first < 0) first = id;
    last = id;
  });
  return true;
}

}  // namespace ppsim
