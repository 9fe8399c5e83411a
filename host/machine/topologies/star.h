// Star: processor 0 is the centre, every other processor has one link to it.
//
//        1
//        |
//   4 -- 0 -- 2
//        |
//        3
//
// Route: leaf -> centre -> leaf. Links: leaf i up (i -> 0) id 2i, down (0 -> i) id 2i+1.
// Diameter 2, arc connectivity 1, p-1 links (Table 2-1). Bisection: Table 2-1 lists 1, but cutting
// the processors into halves always separates floor(p/2) leaves from the centre, so ppsim reports
// floor(p/2) (checked by exhaustive search in the tests).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Star : TopologyDefaults {
  static constexpr const char* name = "star";

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) {
    if (s == d) return 0;
    return (s == 0 || d == 0) ? 1 : 2;
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology&, int64_t s, int64_t d, Visit&& visit) {
    if (s == d) return;
    if (s != 0) visit(2 * s);
    if (d != 0) visit(2 * d + 1);
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    int64_t leaf = id / 2;
    if (leaf == 0 || leaf >= t.p) return false;
    from = (id % 2 == 0) ? leaf : 0;
    to = (id % 2 == 0) ? 0 : leaf;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    int64_t diam = t.p >= 3 ? 2 : t.p - 1;
    return {diam, t.p / 2, t.p > 1 ? 1 : 0, t.p - 1};
  }

  static int64_t degree(const Topology& t) { return std::max<int64_t>(1, t.p - 1); }  // the centre
  // The centre in the middle, the leaves on a circle around it.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    if (v == 0) return {0, 0};
    return on_circle(double(v - 1), double(t.p - 1), circle_radius(t.p));
  }
};

}  // namespace ppsim::topo
