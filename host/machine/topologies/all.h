// Every topology unit, and the one dispatch from a kind to its unit, generated from the list
// PPSIM_TOPOLOGIES (include/ppsim/topology.h). Every per-kind question (route, hops, link space,
// metrics, names, drawing, ...) goes through with_topology_unit.
#pragma once
#include "machine/topologies/binomial.h"
#include "machine/topologies/bintree.h"
#include "machine/topologies/cluster.h"
#include "machine/topologies/dragonfly.h"
#include "machine/topologies/fattree.h"
#include "machine/topologies/full.h"
#include "machine/topologies/hypercube.h"
#include "machine/topologies/linear.h"
#include "machine/topologies/mesh.h"
#include "machine/topologies/ring.h"
#include "machine/topologies/star.h"
#include "machine/topologies/tree.h"

namespace ppsim {

// Calls f(Unit{}) with the unit of kind k and returns what f returns. A switch, so it costs what
// a hand-written one does, on the host and on the device; f is usually a generic lambda reading
// decltype(u)::hops, ::route, ...
PPSIM_HD_TEMPLATE
template <class F>
PPSIM_HD inline decltype(auto) with_topology_unit(TopologyKind k, F&& f) {
  switch (k) {
#define PPSIM_TOPOLOGY_CASE(kind, unit) \
  case TopologyKind::kind: return f(topo::unit{});
    PPSIM_TOPOLOGIES(PPSIM_TOPOLOGY_CASE)
#undef PPSIM_TOPOLOGY_CASE
  }
  return f(topo::Full{});  // not a kind: answer as a machine without a link array
}

}  // namespace ppsim
