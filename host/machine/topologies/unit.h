// What every topology unit (one header per topology, listed once in PPSIM_TOPOLOGIES) answers:
//
//   struct X : TopologyDefaults {
//     static constexpr const char* name;     // as `--topology` and the reports spell it
//     static constexpr const char* aliases;  // other names `--topology` accepts, space-separated
//     static constexpr const char* hint;     // `ppsim list`: what p it takes ("" = any p)
//     static constexpr bool grid;            // shaped by --dims (mesh, torus)
//     static constexpr bool direct;          // a link per ordered pair, id s*p + d: O(p^2) links, so
//                                            // congestion is counted per sender, not in a link array
//     static const char* rejects(int64_t p); // why p is not allowed ("needs ..."), or nullptr
//     static int64_t nodes(const Topology&); // processors 0..p-1, then switches (tree)
//     PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d);
//     template <class Visit>                 // visit(link id) along the route s -> d, in path order
//     PPSIM_HD static void route(const Topology&, int64_t s, int64_t d, Visit&&);
//     PPSIM_HD static int64_t link_space(const Topology&);  // dense directed-link ids (0: direct)
//     static bool link_endpoints(const Topology&, int64_t id, int64_t& from, int64_t& to);
//     static TopologyMetrics metrics(const Topology&);       // Table 2-1
//     static int64_t degree(const Topology&);  // links at the best-connected processor (>= 1)
//     static LayoutPoint layout(const Topology&, int64_t v);  // where `ppsim draw` puts node v
//     // Link classes (--tw-class gives a class its own per-word time; ppsim/cost.h):
//     static constexpr const char* link_classes;            // `ppsim list`: the class names
//     static int link_class_count(const Topology&);         // 1 .. kMaxLinkClasses
//     static std::string link_class_name(const Topology&, int k);
//     PPSIM_HD static int link_class(const Topology&, int64_t id);  // the class of a directed link
//     // Other routes, for messages rerouted around a failed link (--reroute; ppsim/failures.h):
//     PPSIM_HD static int alt_routes(const Topology&);  // how many (0: none)
//     template <class Visit>                 // the n-th (1 <= n <= alt_routes) other route s -> d, or
//     PPSIM_HD static bool alt_route(const Topology&, int64_t s, int64_t d, int n, Visit&&);  // false
//     // Shaped by --dims other than as a grid (fattree KxN, dragonfly AxHxC):
//     static constexpr bool takes_dims;
//     static std::string shape(Topology& t, int64_t p, bool from_dims);  // "" or why not
//   };
//   (aliases, hint, grid, direct, rejects, nodes, the link classes (one, `link`), the other routes
//   (none) and takes_dims default through TopologyDefaults, or PowerOfTwoP where p must be 2^d)
//
//   shape: with from_dims, t.dims[0..t.ndims) hold the extents of --dims and p is --p (0: not
//   given); without, t.p is --p. It sets t.p, t.ndims and t.dims, or says why it cannot.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

#include "ppsim/topology.h"

namespace ppsim::topo {

struct TopologyDefaults {
  static constexpr const char* aliases = "";
  static constexpr const char* hint = "";
  static constexpr bool grid = false;
  static constexpr bool direct = false;
  static constexpr bool takes_dims = false;
  static const char* rejects(int64_t) { return nullptr; }
  static int64_t nodes(const Topology& t) { return t.p; }
  static constexpr const char* link_classes = "link";
  static int link_class_count(const Topology&) { return 1; }
  static std::string link_class_name(const Topology&, int) { return "link"; }
  PPSIM_HD static int link_class(const Topology&, int64_t) { return 0; }
  static std::string shape(Topology&, int64_t, bool) { return ""; }
  PPSIM_HD static int alt_routes(const Topology&) { return 0; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology&, int64_t, int64_t, int, Visit&&) {
    return false;
  }
};

// The defaults of the units that need p = 2^d (hypercube, tree, binomial).
struct PowerOfTwoP : TopologyDefaults {
  static const char* rejects(int64_t p) { return is_pow2(p) ? nullptr : "needs p to be a power of two"; }
};

// Point `index` of `count` evenly spaced on a circle, the first at the top, going clockwise.
inline LayoutPoint on_circle(double index, double count, double radius) {
  const double pi = 3.14159265358979323846, a = pi / 2 - 2 * pi * index / count;
  return {radius * std::cos(a), radius * std::sin(a)};
}
// The radius that keeps p processors on a circle apart.
inline double circle_radius(int64_t p) { return std::max(110.0, double(p) * 14); }

}  // namespace ppsim::topo
