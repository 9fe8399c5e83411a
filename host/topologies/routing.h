// Dispatch from a Topology to its unit's route, hop count and link-id space (host and device).
#pragma once
#include "topologies/binomial.h"
#include "topologies/bintree.h"
#include "topologies/full.h"
#include "topologies/hypercube.h"
#include "topologies/linear.h"
#include "topologies/mesh.h"
#include "topologies/ring.h"
#include "topologies/star.h"
#include "topologies/tree.h"

namespace ppsim {

// True where links are O(p^2): congestion is then counted per sender, not in a link array.
PPSIM_HD inline bool direct_links(const Topology& t) { return t.kind == TopologyKind::full; }

PPSIM_HD inline int64_t route_hops(const Topology& t, int64_t s, int64_t d) {
  switch (t.kind) {
    case TopologyKind::linear: return topo_linear::hops(t, s, d);
    case TopologyKind::ring: return topo_ring::hops(t, s, d);
    case TopologyKind::mesh: case TopologyKind::torus: return topo_mesh::hops(t, s, d);
    case TopologyKind::hypercube: return topo_hypercube::hops(t, s, d);
    case TopologyKind::full: return topo_full::hops(t, s, d);
    case TopologyKind::star: return topo_star::hops(t, s, d);
    case TopologyKind::tree: return topo_tree::hops(t, s, d);
    case TopologyKind::bintree: return topo_bintree::hops(t, s, d);
    case TopologyKind::binomial: return topo_binomial::hops(t, s, d);
  }
  return 0;
}

// Size of the dense directed-link id space (0 for direct-link topologies).
PPSIM_HD inline int64_t link_space(const Topology& t) {
  switch (t.kind) {
    case TopologyKind::linear: return topo_linear::link_space(t);
    case TopologyKind::ring: return topo_ring::link_space(t);
    case TopologyKind::mesh: case TopologyKind::torus: return topo_mesh::link_space(t);
    case TopologyKind::hypercube: return topo_hypercube::link_space(t);
    case TopologyKind::full: return 0;
    case TopologyKind::star: return topo_star::link_space(t);
    case TopologyKind::tree: return topo_tree::link_space(t);
    case TopologyKind::bintree: return topo_bintree::link_space(t);
    case TopologyKind::binomial: return topo_binomial::link_space(t);
  }
  return 0;
}

// Calls visit(link_id) for every directed link on the route from s to d, in path order.
template <class Visit>
PPSIM_HD inline void for_each_route_link(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
  switch (t.kind) {
    case TopologyKind::linear: topo_linear::route(t, s, d, visit); return;
    case TopologyKind::ring: topo_ring::route(t, s, d, visit); return;
    case TopologyKind::mesh: case TopologyKind::torus: topo_mesh::route(t, s, d, visit); return;
    case TopologyKind::hypercube: topo_hypercube::route(t, s, d, visit); return;
    case TopologyKind::full: topo_full::route(t, s, d, visit); return;
    case TopologyKind::star: topo_star::route(t, s, d, visit); return;
    case TopologyKind::tree: topo_tree::route(t, s, d, visit); return;
    case TopologyKind::bintree: topo_bintree::route(t, s, d, visit); return;
    case TopologyKind::binomial: topo_binomial::route(t, s, d, visit); return;
  }
}

// First and last directed link of a route (all-port checks). Returns false when s == d.
PPSIM_HD inline bool route_end_links(const Topology& t, int64_t s, int64_t d, int64_t& first, int64_t& last) {
  if (s == d) return false;
  first = -1;
  for_each_route_link(t, s, d, [&](int64_t id) { if (first < 0) first = id; last = id; });
  return true;
}

}  // namespace ppsim
