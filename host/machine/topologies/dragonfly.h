// Dragonfly (Kim, Dally, Scott, Abts 2008): groups of a routers, the routers of a group fully
// connected by local links, each router with h global links and c processors. With g = a*h + 1
// groups every pair of groups is joined by exactly one global link (the largest dragonfly of these
// routers); p = c * a * g. The canonical balanced dragonfly has a = 2c = 2h.
//
//   group 0               group 1               a = 4 routers per group, fully connected by
//   (R0)----(R1)          (R0)----(R1)          local links; each router has h global links
//    |  \  /  |    ...     |  \  /  |          and c processors (not drawn)
//    |   \/   |            |   \/   |
//    |   /\   |            |   /\   |          group G's global port q (0 <= q < a*h = g-1) is
//   (R2)----(R3)          (R2)----(R3)          port q mod h of router q / h and leads to group
//                                               q if q < G, else q + 1 (the "absolute"
//   arrangement: each group lists the other groups in order over its ports; the link between G and
//   G' leaves G by port G' (G' < G) or G' - 1, and enters G' by the port G' keeps for G)
//
// Route (minimal, local-global-local): processor -> its router; within a group, one local link to
// the destination's router; from group G to group H, a local link to the router of G that holds
// its port for H (when that is another router), the global link, a local link from the router of H
// that holds its port for G (when that is not the destination's router), the destination. At most 3 router-to-router
// links, at most 5 links in all. "Minimal" is the dragonfly's: the fewest links among the paths with
// at most one global link. A path over two global links can be one router hop shorter (for h >= 2
// some pairs have one); like every minimal dragonfly routing, this one never takes such a path.
// Links: terminal 2x (x -> router), 2x+1 (router -> x); local from router r (group G, index i) to
// index j of its group: 2p + r*a + j; global by port t of router r: 2p + R*a + r*h + t (R = a*g
// routers). Node ids: processors 0..p-1, router r is p + r (r = G*a + i).
// Link classes: terminal, local, global.
// Metrics: diameter 5 (3 with a = 1: routers all joined directly); arc connectivity 1; p + g*a(a-1)/2
// + g(g-1)/2 links. Bisection width: the global links across the best split of the groups into
// halves, floor(g/2) * ceil(g/2) (the dragonfly literature's global bisection; Table 2-1's count
// over splits of the processors has no closed form here, and for small dragonflies a cut through
// routers or terminal links can be smaller or larger).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Dragonfly : TopologyDefaults {
  static constexpr const char* name = "dragonfly";
  static constexpr const char* hint =
      "--dims AxHxC: a routers per group, h global links per router, c processors per router, g = a*h+1 groups fully connected; "
      "--p alone takes the balanced a = 2c = 2h (6, 72, 342, 1056, ...)";
  static constexpr bool takes_dims = true;

  PPSIM_HD static int64_t group_size(const Topology& t) { return t.dims[0]; }  // a
  PPSIM_HD static int64_t globals(const Topology& t) { return t.dims[1]; }     // h
  PPSIM_HD static int64_t per_router(const Topology& t) { return t.dims[2]; }  // c
  PPSIM_HD static int64_t groups(const Topology& t) { return t.dims[0] * t.dims[1] + 1; }
  PPSIM_HD static int64_t routers(const Topology& t) { return t.dims[0] * groups(t); }
  static int64_t nodes(const Topology& t) { return t.p + routers(t); }

  // Group g's global port towards group to (to != g), and the group port q of group g leads to.
  PPSIM_HD static int64_t port_towards(int64_t g, int64_t to) { return to < g ? to : to - 1; }
  PPSIM_HD static int64_t port_target(int64_t g, int64_t q) { return q < g ? q : q + 1; }

  PPSIM_HD static int64_t local_id(const Topology& t, int64_t router, int64_t to_index) {
    return 2 * t.p + router * group_size(t) + to_index;
  }
  PPSIM_HD static int64_t global_id(const Topology& t, int64_t router, int64_t port) {
    return 2 * t.p + routers(t) * group_size(t) + router * globals(t) + port;
  }

  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) {
    const int64_t a = group_size(t), h = globals(t), rs = s / per_router(t), rd = d / per_router(t);
    if (s == d) return 0;
    if (rs == rd) return 2;
    const int64_t gs = rs / a, gd = rd / a;
    if (gs == gd) return 3;
    return 3 + (rs % a != port_towards(gs, gd) / h) + (rd % a != port_towards(gd, gs) / h);
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.p + routers(t) * (group_size(t) + globals(t)); }

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    if (s == d) return;
    const int64_t a = group_size(t), h = globals(t), rs = s / per_router(t), rd = d / per_router(t);
    const int64_t gs = rs / a, gd = rd / a;
    visit(2 * s);  // up to the router
    if (gs == gd) {
      if (rs != rd) visit(local_id(t, rs, rd % a));
    } else {
      const int64_t out = port_towards(gs, gd), in = port_towards(gd, gs);
      const int64_t exit_router = gs * a + out / h, entry_router = gd * a + in / h;
      if (rs != exit_router) visit(local_id(t, rs, exit_router % a));
      visit(global_id(t, exit_router, out % h));
      if (entry_router != rd) visit(local_id(t, entry_router, rd % a));
    }
    visit(2 * d + 1);  // down to the processor
  }

  // From router r to group `to` (not r's): a local link to the router that holds the group's port
  // for it (when that is another router) and the global link; the router reached.
  template <class Visit>
  PPSIM_HD static int64_t to_group(const Topology& t, int64_t r, int64_t to, Visit&& visit) {
    const int64_t a = group_size(t), h = globals(t), g = r / a, out = port_towards(g, to);
    const int64_t exit_router = g * a + out / h;
    if (r != exit_router) visit(local_id(t, r, exit_router % a));
    visit(global_id(t, exit_router, out % h));
    return to * a + port_towards(to, g) / h;
  }

  // Other routes (--reroute): within a group, through its router (index + n) mod a; between groups,
  // through group (source group + n) mod g (Valiant: local, global, local, global, local).
  PPSIM_HD static int alt_routes(const Topology& t) { return int(groups(t)) - 1; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology& t, int64_t s, int64_t d, int n, Visit&& visit) {
    const int64_t a = group_size(t), rs = s / per_router(t), rd = d / per_router(t), gs = rs / a, gd = rd / a;
    if (n < 1 || rs == rd) return false;
    if (gs == gd) {
      if (n >= a) return false;
      const int64_t via = gs * a + (rs % a + n) % a;
      if (via == rd) return false;
      visit(2 * s);
      visit(local_id(t, rs, via % a));
      visit(local_id(t, via, rd % a));
      visit(2 * d + 1);
      return true;
    }
    const int64_t via = (gs + n) % groups(t);
    if (n >= groups(t) || via == gd) return false;
    visit(2 * s);
    const int64_t r = to_group(t, to_group(t, rs, via, visit), gd, visit);
    if (r != rd) visit(local_id(t, r, rd % a));
    visit(2 * d + 1);
    return true;
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    const int64_t a = group_size(t), h = globals(t), R = routers(t);
    if (id < 0 || id >= link_space(t)) return false;
    if (id < 2 * t.p) {  // terminal
      const int64_t x = id / 2, router = t.p + x / per_router(t);
      from = id % 2 == 0 ? x : router;
      to = id % 2 == 0 ? router : x;
      return true;
    }
    if (id < 2 * t.p + R * a) {  // local
      const int64_t v = id - 2 * t.p, r = v / a, j = v % a;
      if (j == r % a) return false;
      from = t.p + r;
      to = t.p + r - r % a + j;
      return true;
    }
    const int64_t v = id - 2 * t.p - R * a, r = v / h, g = r / a, q = (r % a) * h + v % h;  // global
    const int64_t there = port_target(g, q);
    from = t.p + r;
    to = t.p + there * a + port_towards(there, g) / h;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    const int64_t a = group_size(t), g = groups(t);
    return {a >= 2 ? 5 : 3, (g / 2) * ((g + 1) / 2), 1, t.p + g * a * (a - 1) / 2 + g * (g - 1) / 2};
  }
  static int64_t degree(const Topology&) { return 1; }  // a processor has one link, to its router

  // Groups on a circle; in each, the routers on a small circle and their processors on a ring just
  // outside it, each router's in its own sector.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    const int64_t a = group_size(t), c = per_router(t), g = groups(t);
    const double router_r = std::max(40.0, double(a * c) * 40 / 6.28 - 50), proc_r = router_r + 50;
    const double group_r = std::max(160.0, double(g) * (2 * proc_r + 50) / 6.28);
    const int64_t router = v < t.p ? v / c : v - t.p;
    const LayoutPoint centre = on_circle(double(router / a), double(g), group_r);
    const LayoutPoint at = v < t.p ? on_circle(double(router % a) - 0.5 + (double(v % c) + 0.5) / double(c), double(a), proc_r)
                                   : on_circle(double(router % a), double(a), a > 1 ? router_r : 0);
    return {centre.x + at.x, centre.y + at.y};
  }

  static constexpr const char* link_classes = "terminal local global";
  static int link_class_count(const Topology&) { return 3; }
  static std::string link_class_name(const Topology&, int k) { return k == 0 ? "terminal" : k == 1 ? "local" : "global"; }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) {
    return id < 2 * t.p ? 0 : id < 2 * t.p + routers(t) * group_size(t) ? 1 : 2;
  }

  // --dims AxHxC (each >= 1), or --p alone: the balanced a = 2c = 2h, p = 2h^2 (2h^2 + 1).
  static std::string shape(Topology& t, int64_t p, bool from_dims) {
    const std::string usage =
        "dragonfly needs --dims AxHxC (a routers per group, h global links per router, c processors per router) or the balanced --p "
        "6, 72, 342, 1056, ... (a = 2c = 2h)";
    int64_t a = 0, h = 0, c = 0;
    if (from_dims) {
      if (t.ndims != 3) return usage;
      a = t.dims[0];
      h = t.dims[1];
      c = t.dims[2];
    } else {
      for (int64_t x = 1; x <= 64 && a == 0; ++x)
        if (2 * x * x * (2 * x * x + 1) == p) {
          a = 2 * x;
          h = c = x;
        }
      if (a == 0) return usage + " (got " + std::to_string(p) + ")";
    }
    const double total = double(c) * double(a) * (double(a) * double(h) + 1);
    if (total > double(int64_t{1} << 31))
      return "dragonfly " + std::to_string(a) + "x" + std::to_string(h) + "x" + std::to_string(c) + " has more than 2^31 processors";
    if (from_dims && p > 0 && p != int64_t(total))
      return "--p " + std::to_string(p) + " does not match --dims " + std::to_string(a) + "x" + std::to_string(h) + "x" +
             std::to_string(c) + " (" + std::to_string(int64_t(total)) + " processors)";
    t.p = int64_t(total);
    t.ndims = 3;
    t.dims[0] = a;
    t.dims[1] = h;
    t.dims[2] = c;
    return "";
  }
};

}  // namespace ppsim::topo
