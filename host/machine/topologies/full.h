// Fully connected: a direct link between every ordered pair of processors.
//
//   0 ---- 1
//   | \  / |
//   |  \/  |
//   |  /\  |
//   | /  \ |
//   3 ---- 2
//
// Route: the direct link s -> d, id s*p + d. There are O(p^2) links, so congestion is never
// counted in a per-link array: a link's load is the number of messages its sender puts on it.
// Diameter 1, bisection p^2/4, arc connectivity p-1, p(p-1)/2 links (Table 2-1).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Full : TopologyDefaults {
  static constexpr const char* name = "full";
  static constexpr const char* aliases = "fully-connected completely-connected";
  static constexpr bool direct = true;

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) { return s == d ? 0 : 1; }
  PPSIM_HD static int64_t link_space(const Topology&) { return 0; }

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    if (s != d) visit(s * t.p + d);
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    from = id / t.p;
    to = id % t.p;
    return from != to;
  }

  static TopologyMetrics metrics(const Topology& t) {
    int64_t p = t.p;
    return {p > 1 ? 1 : 0, (p / 2) * ((p + 1) / 2), p - 1, p * (p - 1) / 2};
  }

  static int64_t degree(const Topology& t) { return std::max<int64_t>(1, t.p - 1); }
  static LayoutPoint layout(const Topology& t, int64_t v) { return on_circle(double(v), double(t.p), circle_radius(t.p)); }
};

}  // namespace ppsim::topo
