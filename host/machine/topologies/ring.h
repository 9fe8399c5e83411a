// Ring: a linear array with the wraparound link (p-1, 0).
//
//   0 -- 1 -- 2 -- ... -- p-1
//   '------------------------'
//
// Route: the shorter direction; at distance exactly p/2 the + direction (so the textbook's
// Fig. 4-12 congestion shows). Other route (--reroute): the other way round. Links: node i,
// +1 -> id 2i, -1 -> id 2i+1.
// Diameter floor(p/2), bisection 2, arc connectivity 2, p links (Table 2-1; p >= 3).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Ring : TopologyDefaults {
  static constexpr const char* name = "ring";

  PPSIM_HD static int64_t forward_distance(const Topology& t, int64_t s, int64_t d) { return pos_mod(d - s, t.p); }
  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) {
    int64_t f = forward_distance(t, s, d);
    return 2 * f <= t.p ? f : t.p - f;
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p; }

  // n links from s in the + direction (forward) or the - direction.
  template <class Visit>
  PPSIM_HD static void walk(const Topology& t, int64_t s, int64_t n, bool forward, Visit&& visit) {
    if (forward) {
      for (int64_t x = s, i = 0; i < n; ++i, x = (x + 1 == t.p ? 0 : x + 1)) visit(2 * x);
    } else {
      for (int64_t x = s, i = 0; i < n; ++i, x = (x == 0 ? t.p - 1 : x - 1)) visit(2 * x + 1);
    }
  }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    const int64_t f = forward_distance(t, s, d);
    if (2 * f <= t.p) walk(t, s, f, true, visit);
    else walk(t, s, t.p - f, false, visit);
  }

  PPSIM_HD static int alt_routes(const Topology& t) { return t.p >= 3 ? 1 : 0; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology& t, int64_t s, int64_t d, int n, Visit&& visit) {
    if (s == d || n != 1 || t.p < 3) return false;
    const int64_t f = forward_distance(t, s, d);
    if (2 * f <= t.p) walk(t, s, t.p - f, false, visit);
    else walk(t, s, f, true, visit);
    return true;
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    from = id / 2;
    if (t.p < 2) return false;
    to = pos_mod(id % 2 == 0 ? from + 1 : from - 1, t.p);
    // With p = 2 both directions of node 0 reach node 1: keep one physical link.
    return !(t.p == 2 && id % 2 == 1);
  }

  static TopologyMetrics metrics(const Topology& t) {
    if (t.p <= 2) return {t.p - 1, t.p - 1, t.p - 1, t.p - 1};
    return {t.p / 2, 2, 2, t.p};
  }

  static int64_t degree(const Topology& t) { return t.p > 2 ? 2 : 1; }
  static LayoutPoint layout(const Topology& t, int64_t v) { return on_circle(double(v), double(t.p), circle_radius(t.p)); }
};

}  // namespace ppsim::topo
