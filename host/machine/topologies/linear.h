// Linear array: p processors in a line, no wraparound.
//
//   0 -- 1 -- 2 -- ... -- p-1
//
// Route: straight along the line. Links: node i, direction +1 -> id 2i, direction -1 -> id 2i+1.
// Diameter p-1, bisection 1, arc connectivity 1, p-1 links (Table 2-1).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Linear : TopologyDefaults {
  static constexpr const char* name = "linear";
  static constexpr const char* aliases = "array";

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) { return s < d ? d - s : s - d; }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology&, int64_t s, int64_t d, Visit&& visit) {
    for (int64_t x = s; x < d; ++x) visit(2 * x);
    for (int64_t x = s; x > d; --x) visit(2 * x + 1);
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    from = id / 2;
    to = (id % 2 == 0) ? from + 1 : from - 1;
    return to >= 0 && to < t.p;
  }

  static TopologyMetrics metrics(const Topology& t) {
    int64_t e = t.p - 1;
    return {e, t.p > 1 ? 1 : 0, t.p > 1 ? 1 : 0, e};
  }

  static int64_t degree(const Topology& t) { return t.p > 2 ? 2 : 1; }
  static LayoutPoint layout(const Topology&, int64_t v) { return {double(v) * 80, 0}; }
};

}  // namespace ppsim::topo
