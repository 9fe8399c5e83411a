// Complete binary tree with a processor at every node (Table 2-1's "complete binary tree"):
// p = 2^d - 1, in heap order.
//
//              0            (processor i: children 2i+1, 2i+2;
//          /       \        parent (i-1)/2)
//         1         2       .
//       /   \     /   \     .
//      3     4   5     6    .
//
// Route: up to the lowest common ancestor, then down. Links: processor v >= 1 up (v -> parent)
// id 2v, down (parent -> v) id 2v+1. Table 2-1: diameter 2 log((p+1)/2), bisection width 1, arc
// connectivity 1, p - 1 links.
#pragma once
#include "ppsim/topology.h"

namespace ppsim::topo_bintree {

// On 1-based heap indices (processor i is i + 1) the parent is x / 2 and the larger of two indices
// is never the shallower: step the larger up until they meet.
PPSIM_HD inline int64_t lca1(int64_t a, int64_t b) {
  while (a != b) {
    if (a > b) a >>= 1;
    else b >>= 1;
  }
  return a;
}

PPSIM_HD inline int64_t hops(const Topology&, int64_t s, int64_t d) {
  const int64_t a = s + 1, b = d + 1, top = lca1(a, b);
  return (floor_log2(a) - floor_log2(top)) + (floor_log2(b) - floor_log2(top));
}
PPSIM_HD inline int64_t link_space(const Topology& t) { return 2 * t.p; }

template <class Visit>
PPSIM_HD inline void route(const Topology&, int64_t s, int64_t d, Visit&& visit) {
  const int64_t a = s + 1, b = d + 1, top = lca1(a, b);
  for (int64_t x = a; x != top; x >>= 1) visit(2 * (x - 1));  // up
  for (int level = floor_log2(b) - floor_log2(top) - 1; level >= 0; --level) visit(2 * ((b >> level) - 1) + 1);  // down
}

inline bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
  const int64_t v = id / 2;
  if (id < 0 || v < 1 || v >= t.p) return false;
  const int64_t parent = (v - 1) / 2;
  from = id % 2 == 0 ? v : parent;
  to = id % 2 == 0 ? parent : v;
  return true;
}

inline TopologyMetrics metrics(const Topology& t) {
  const int64_t one = t.p > 1 ? 1 : 0;
  return {2 * (floor_log2(t.p + 1) - 1), one, one, t.p - 1};
}

}  // namespace ppsim::topo_bintree
