// Binomial tree B_d (p = 2^d) rooted at processor 0: the parent of v is v with its lowest set bit
// cleared, so the children of 0 are 1, 2, 4, ..., p/2, and the subtree of p/2 is the upper half.
// This is the tree the farthest-first binomial broadcast from 0 uses (textbook Fig. 4-2): on this
// topology every one of its messages crosses one link.
//
//          0             (p = 8)
//        / | \           .
//       1  2  4          .
//          |  | \        .
//          3  5  6       .
//                |       .
//                7       .
//
// Route: up to the lowest common ancestor (v's ancestors are v with its lowest set bits cleared),
// then down. Links: v >= 1 up (v -> parent) id 2v, down (parent -> v) id 2v+1. Diameter 2d - 1
// (from p/2 - 1 up to 0 and down to p - 1), bisection width 1 (the link 0 - p/2 splits the
// halves), arc connectivity 1, p - 1 links.
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Binomial : PowerOfTwoP {
  static constexpr const char* name = "binomial";
  static constexpr const char* aliases = "binomial-tree";
  static constexpr const char* hint = "p a power of two; binomial tree rooted at 0";

  // Bits of s and d below the highest bit where they differ, cleared: their lowest common ancestor.
  PPSIM_HD static int64_t low_mask(int64_t s, int64_t d) { return s == d ? 0 : (int64_t{1} << (floor_log2(s ^ d) + 1)) - 1; }

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) {
    const int64_t low = low_mask(s, d);
    return popcount64(s & low) + popcount64(d & low);
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology&, int64_t s, int64_t d, Visit&& visit) {
    const int64_t low = low_mask(s, d), top = s & ~low;
    for (int64_t x = s; x != top; x &= x - 1) visit(2 * x);  // up: clear the lowest set bit
    int64_t x = top;
    for (int64_t rest = d & low; rest != 0;) {  // down: add d's bits below the split, highest first
      const int64_t bit = int64_t{1} << floor_log2(rest);
      x |= bit;
      rest ^= bit;
      visit(2 * x + 1);
    }
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    const int64_t v = id / 2;
    if (id < 0 || v < 1 || v >= t.p) return false;
    const int64_t parent = v & (v - 1);
    from = id % 2 == 0 ? v : parent;
    to = id % 2 == 0 ? parent : v;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    const int64_t one = t.p > 1 ? 1 : 0;
    return {t.log2p > 0 ? 2 * t.log2p - 1 : 0, one, one, t.p - 1};
  }

  static int64_t degree(const Topology& t) { return std::max(1, t.log2p); }  // processor 0: log p children
  // Processors in order, each a level below its parent.
  static LayoutPoint layout(const Topology&, int64_t v) { return {double(v) * 70, -double(popcount64(v)) * 90}; }
};

}  // namespace ppsim::topo
