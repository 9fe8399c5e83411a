// Fat tree: the k-ary n-tree of Petrini and Vanneschi (1997). p = k^n processors at the leaves and
// n levels of k^(n-1) switches inside, level 1 next to the processors and level n at the top. A
// switch is labelled by n-1 base-k digits w; a level-l switch has k links down and (below the top)
// k links up, its up-port j leading to the level-(l+1) switch whose label is w with digit l-1
// replaced by j. Processor x hangs off the leaf switch x / k. The 2-ary 2-tree (p = 4):
//
//   level 2     [0]       [1]         up-port j of a level-1 switch w leads to the level-2
//                |  \     /  |        switch w with digit 0 replaced by j: [0] -> [0] and [1],
//                |    \ /    |        [1] -> [0] and [1]
//                |    / \    |
//   level 1     [0]       [1]
//               /  \      /  \        processor x hangs off leaf switch x / k
//              0    1    2    3
//
// Route (up/down, D-mod-k): up to the lowest level l where s / k^l == d / k^l, then down. Going up
// from level l the route takes up-port digit l-1 of the DESTINATION (floor(d / k^(l-1)) mod k), so
// all routes to one destination meet in the switches labelled (d_0 .. d_(l-2), d_l .. d_(n-1)) and
// descend together; each down link carries traffic for one destination only, and a shift
// permutation (i -> i + q mod p) loads no link twice. 2l links between processors whose lowest
// common switches are at level l. Other routes for --reroute: every up-port shifted (alt_route).
// Links: stage 0 joins processor x to its leaf switch (index x); stage l >= 1 joins level-l switch w
// by its up-port j to level l+1 (index w*k + j). Directed id (stage * p + index) * 2 + (0 up, 1 down).
// Node ids: processors 0..p-1, then level-l switch w is p + (l-1) * k^(n-1) + w.
// Link classes: levelL for the links whose upper end is a level-L switch (level1: processor to leaf
// switch ... levelN: into the top switches).
// Metrics: diameter 2n; bisection width floor(p/2) links, counted as Table 2-1 counts it (undirected
// links, each of one link's capacity, whose removal splits the processors into halves, switches on
// either side): full bisection, as many links as half of the processors have; arc connectivity 1
// (a processor has one link); n * p links.
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Fattree : TopologyDefaults {
  static constexpr const char* name = "fattree";
  static constexpr const char* aliases = "fat-tree k-ary-n-tree";
  static constexpr const char* hint =
      "--dims KxN: a k-ary n-tree, p = k^n processors at the leaves, n levels of k^(n-1) switches; --p alone takes the fewest levels "
      "n >= 2 (16: 4x2, 8: 2x3, 64: 8x2); D-mod-k up/down routes";
  static constexpr bool takes_dims = true;

  PPSIM_HD static int64_t arity(const Topology& t) { return t.dims[0]; }
  PPSIM_HD static int levels(const Topology& t) { return int(t.dims[1]); }
  static int64_t nodes(const Topology& t) { return t.p + t.dims[1] * (t.p / t.dims[0]); }

  // The level of the lowest switches above both s and d (0 when s == d).
  PPSIM_HD static int common_level(const Topology& t, int64_t s, int64_t d) {
    int level = 0;
    for (; s != d; ++level) {
      s /= arity(t);
      d /= arity(t);
    }
    return level;
  }
  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) { return 2 * common_level(t, s, d); }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * t.dims[1] * t.p; }
  PPSIM_HD static int64_t link_id(const Topology& t, int stage, int64_t index, int down) { return (stage * t.p + index) * 2 + down; }

  // The up/down route that leaves level l by up-port (d_(l-1) + shift) mod k (shift 0: D-mod-k).
  template <class Visit>
  PPSIM_HD static void route_by(const Topology& t, int64_t s, int64_t d, int64_t shift, Visit&& visit) {
    if (s == d) return;
    const int64_t k = arity(t);
    const int top = common_level(t, s, d);
    visit(link_id(t, 0, s, 0));   // up to the leaf switch
    int64_t w = s / k, unit = 1;  // the switch reached, and k^(l-1) at level l
    // Up from level l by port j_l = d_(l-1) + shift, which becomes digit l-1 of the label.
    for (int l = 1; l < top; ++l, unit *= k) {
      const int64_t j = ((d / unit) + shift) % k;
      visit(link_id(t, l, w * k + j, 0));
      w += (j - (w / unit) % k) * unit;
    }
    // Down from level l+1 to the level-l switch whose lower digits are the top switch's (j_1 ..
    // j_(l-1)) and whose upper ones are d's (d_l .. d_(n-1)), entering it by its up-port j_l.
    for (int l = top - 1; l >= 1; --l) {
      unit /= k;
      const int64_t lower = w % unit + (d / (unit * k)) * unit;
      visit(link_id(t, l, lower * k + (w / unit) % k, 1));
    }
    visit(link_id(t, 0, d, 1));  // down from the leaf switch
  }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    route_by(t, s, d, 0, visit);
  }

  // Other routes (--reroute): the other up-links, every up-port shifted by n (n = 1 .. k-1), to
  // another top switch and down from it (none under one leaf switch).
  PPSIM_HD static int alt_routes(const Topology& t) { return int(arity(t)) - 1; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology& t, int64_t s, int64_t d, int n, Visit&& visit) {
    if (n < 1 || n > alt_routes(t) || common_level(t, s, d) < 2) return false;
    route_by(t, s, d, n, visit);
    return true;
  }

  static int64_t switch_node(const Topology& t, int level, int64_t label) { return t.p + (level - 1) * (t.p / arity(t)) + label; }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    const int64_t k = arity(t), stage = id / 2 / t.p, index = id / 2 % t.p;
    if (id < 0 || stage >= levels(t)) return false;
    int64_t lower, upper;
    if (stage == 0) {
      lower = index;
      upper = switch_node(t, 1, index / k);
    } else {
      int64_t unit = 1;
      for (int64_t l = 1; l < stage; ++l) unit *= k;
      const int64_t w = index / k, j = index % k;
      lower = switch_node(t, int(stage), w);
      upper = switch_node(t, int(stage) + 1, w + (j - (w / unit) % k) * unit);
    }
    from = id % 2 == 0 ? lower : upper;
    to = id % 2 == 0 ? upper : lower;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) { return {2 * t.dims[1], t.p / 2, t.p > 1 ? 1 : 0, t.dims[1] * t.p}; }
  static int64_t degree(const Topology&) { return 1; }  // a processor is a leaf

  // Processors in a row, each level of switches in a row above, switch w over its k leaves' span.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    if (v < t.p) return {double(v) * 70, 0};
    const int64_t per_level = t.p / arity(t), level = (v - t.p) / per_level + 1, w = (v - t.p) % per_level;
    return {(double(w * arity(t)) + double(arity(t) - 1) / 2) * 70, double(level) * 90};
  }

  static constexpr const char* link_classes = "level1 ... levelN (processor to leaf switch ... into the top switches)";
  static int link_class_count(const Topology& t) { return levels(t); }
  static std::string link_class_name(const Topology&, int k) { return "level" + std::to_string(k + 1); }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) { return int(id / 2 / t.p); }

  // --dims KxN (k >= 2, n >= 1), or --p = k^n with the fewest levels n >= 2.
  static std::string shape(Topology& t, int64_t p, bool from_dims) {
    const std::string usage = "fattree needs --dims KxN (a k-ary n-tree, k >= 2, p = k^n) or --p k^n with n >= 2";
    int64_t k = 0, n = 0;
    if (from_dims) {
      if (t.ndims != 2 || t.dims[0] < 2) return usage;
      k = t.dims[0];
      n = t.dims[1];
    } else {
      for (int64_t levels = 2; levels <= 31 && k == 0; ++levels) {
        const int64_t root = int64_t(std::llround(std::pow(double(p), 1.0 / double(levels))));
        for (int64_t r = std::max<int64_t>(2, root - 1); r <= root + 1; ++r)
          if (power_or_zero(r, levels) == p) {
            k = r;
            n = levels;
          }
      }
      if (k == 0) return usage + " (got " + std::to_string(p) + ")";
    }
    const int64_t total = power_or_zero(k, n);
    if (total == 0 || total > (int64_t{1} << 31))
      return "fattree " + std::to_string(k) + "x" + std::to_string(n) + " has more than 2^31 processors";
    if (from_dims && p > 0 && p != total)
      return "--p " + std::to_string(p) + " does not match --dims " + std::to_string(k) + "x" + std::to_string(n) + " (" +
             std::to_string(total) + " processors)";
    t.p = total;
    t.ndims = 2;
    t.dims[0] = k;
    t.dims[1] = n;
    return "";
  }
  // k^n, or 0 past 2^40.
  static int64_t power_or_zero(int64_t k, int64_t n) {
    int64_t r = 1;
    for (int64_t i = 0; i < n; ++i)
      if ((r *= k) > (int64_t{1} << 40)) return 0;
    return r;
  }
};

}  // namespace ppsim::topo
