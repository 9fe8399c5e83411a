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
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Bintree : TopologyDefaults {
  static constexpr const char* name = "bintree";
  static constexpr const char* aliases = "complete-binary-tree";
  static constexpr const char* hint = "p = 2^d - 1; complete binary tree, a processor at every node";
  static const char* rejects(int64_t p) {
    return is_pow2(p + 1) ? nullptr : "(a complete binary tree) needs p = 2^d - 1: 1, 3, 7, 15, ...";
  }

  // On 1-based heap indices (processor i is i + 1) the parent is x / 2 and the larger of two indices
  // is never the shallower: step the larger up until they meet.
  PPSIM_HD static int64_t lca1(int64_t a, int64_t b) {
    while (a != b) {
      if (a > b) a >>= 1;
      else b >>= 1;
    }
    return a;
  }

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) {
    const int64_t a = s + 1, b = d + 1, top = lca1(a, b);
    return (floor_log2(a) - floor_log2(top)) + (floor_log2(b) - floor_log2(top));
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology&, int64_t s, int64_t d, Visit&& visit) {
    const int64_t a = s + 1, b = d + 1, top = lca1(a, b);
    for (int64_t x = a; x != top; x >>= 1) visit(2 * (x - 1));                                                     // up
    for (int level = floor_log2(b) - floor_log2(top) - 1; level >= 0; --level) visit(2 * ((b >> level) - 1) + 1);  // down
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    const int64_t v = id / 2;
    if (id < 0 || v < 1 || v >= t.p) return false;
    const int64_t parent = (v - 1) / 2;
    from = id % 2 == 0 ? v : parent;
    to = id % 2 == 0 ? parent : v;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    const int64_t one = t.p > 1 ? 1 : 0;
    return {2 * (floor_log2(t.p + 1) - 1), one, one, t.p - 1};
  }

  static int64_t degree(const Topology& t) { return std::min<int64_t>(3, std::max<int64_t>(1, t.p - 1)); }  // a parent and two children
  // Level by level, each node above the middle of its subtree.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    const int64_t depth = floor_log2(v + 1), height = floor_log2(t.p + 1) - 1, first = (int64_t{1} << depth) - 1;
    const double span = double(int64_t{1} << (height - depth));
    return {(double(v - first) * span + (span - 1) / 2) * 70, -double(depth) * 90};
  }
};

}  // namespace ppsim::topo
