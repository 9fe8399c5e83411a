// Balanced binary tree: p = 2^d processors at the leaves, p-1 switches inside.
//
//              s1              (heap numbering: switch v has children 2v and 2v+1;
//          /        \          leaf = processor i has heap index p + i)
//        s2          s3        .
//       /  \        /  \       .
//     s4    s5    s6    s7     .
//     /\    /\    /\    /\     .
//    0  1  2  3  4  5  6  7
//
// Route: up to the lowest common ancestor, then down. Links: heap node v up (v -> parent) id 2v,
// down (parent -> v) id 2v+1. Node ids for graphs: processor i = i, switch v = p + v - 1.
// Counting all 2p-1 nodes as Table 2-1's "p": diameter 2 log p, bisection 1, arc connectivity 1,
// 2p-2 links.
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Tree : PowerOfTwoP {
  static constexpr const char* name = "tree";
  static constexpr const char* aliases = "binary-tree";
  static constexpr const char* hint = "p a power of two; processors at the leaves, switches inside";
  static int64_t nodes(const Topology& t) { return 2 * t.p - 1; }

  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) {
    int64_t a = t.p + s, b = t.p + d, h = 0;
    while (a != b) {
      a >>= 1;
      b >>= 1;
      h += 2;
    }
    return h;
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 4 * t.p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    int64_t a = t.p + s, b = t.p + d;
    int up = 0;
    while ((a >> up) != (b >> up)) {
      visit(2 * (a >> up));
      ++up;
    }
    for (int level = up - 1; level >= 0; --level) visit(2 * (b >> level) + 1);
  }

  static int64_t node_of_heap(const Topology& t, int64_t v) { return v >= t.p ? v - t.p : t.p + v - 1; }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    int64_t v = id / 2;
    if (v < 2 || v >= 2 * t.p) return false;
    int64_t child = node_of_heap(t, v), parent = node_of_heap(t, v / 2);
    from = (id % 2 == 0) ? child : parent;
    to = (id % 2 == 0) ? parent : child;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    int64_t one = t.p > 1 ? 1 : 0;
    return {2 * t.log2p, one, one, 2 * t.p - 2};
  }

  static int64_t degree(const Topology&) { return 1; }  // a processor is a leaf
  // Leaves in a row, each switch above the middle of its leaves.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    if (v < t.p) return {double(v) * 70, 0};
    int64_t heap = v - t.p + 1, depth = 0, first = heap;
    while (first < t.p) {
      first *= 2;
      ++depth;
    }
    double span = double(int64_t{1} << depth);
    return {(double(first - t.p) + (span - 1) / 2) * 70, double(depth) * 70};
  }
};

}  // namespace ppsim::topo
