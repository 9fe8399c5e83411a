// Mappings between topologies (textbook §2.7): checks and dilation/congestion/expansion.
#include "ppsim/mapping.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "machine/topologies/routing.h"

namespace ppsim {

const char* map_kind_name(MapKind k) {
  switch (k) {
    case MapKind::identity: return "identity";
    case MapKind::gray: return "gray";
    case MapKind::snake: return "snake";
  }
  return "?";
}

bool parse_map_kind(const std::string& name, MapKind& out) {
  for (MapKind k : {MapKind::identity, MapKind::gray, MapKind::snake})
    if (name == map_kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

std::string mapping_rejects(const Mapping& m) {
  const Topology &L = m.logical, &P = m.physical;
  if (L.p != P.p)
    return "the logical topology has " + std::to_string(L.p) + " processors and the physical one " + std::to_string(P.p) +
           " (ppsim maps one to one)";
  auto all_pow2 = [](const Topology& t) {
    for (int k = 0; k < t.ndims; ++k)
      if (!is_pow2(t.dims[k])) return false;
    return true;
  };
  switch (m.kind) {
    case MapKind::identity: return "";
    case MapKind::snake:
      if (is_line(L.kind) && is_grid(P.kind) && P.ndims == 2) return "";
      return "--map snake places a linear array or ring on a 2-D mesh or torus";
    case MapKind::gray:
      if (P.kind == TopologyKind::hypercube && (is_line(L.kind) || (is_grid(L.kind) && all_pow2(L)))) return "";
      if (L.kind == TopologyKind::hypercube && (is_line(P.kind) || (is_grid(P.kind) && all_pow2(P)))) return "";
      return "--map gray places a ring, linear array or 2^r x 2^s mesh on a hypercube, or a hypercube on one of those";
  }
  return "unknown mapping";
}

MappingMetrics mapping_metrics(const Mapping& m) {
  MappingMetrics out;
  const Topology &L = m.logical, &P = m.physical;
  out.expansion = double(topology_nodes(P)) / double(topology_nodes(L));
  int64_t space = topology_link_ids(L);
  if (space > (int64_t{1} << 22)) return out;
  std::vector<int64_t> load(direct_links(P) ? 0 : size_t(link_space(P)), 0);
  std::unordered_map<int64_t, int64_t> direct_load;
  for (int64_t id = 0; id < space; ++id) {
    int64_t a, b;
    if (!topology_link_endpoints(L, id, a, b) || a >= L.p || b >= L.p) continue;  // switches of a tree: not processors
    int64_t s = map_node(m, a), d = map_node(m, b);
    out.dilation = std::max(out.dilation, route_hops(P, s, d));
    if (direct_links(P)) out.congestion = std::max(out.congestion, ++direct_load[s * P.p + d]);
    else for_each_route_link(P, s, d, [&](int64_t link) { out.congestion = std::max(out.congestion, ++load[size_t(link)]); });
  }
  out.computed = true;
  return out;
}

}  // namespace ppsim
