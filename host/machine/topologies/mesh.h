// Mesh (no wraparound) and torus (wraparound): the general k-ary d-cube with extents
// dims[0] x ... x dims[d-1], processors numbered row-major (the last coordinate varies fastest).
//
//   mesh 3x4              torus 3x4: the same, plus a wrap link at the end of every row
//   0 -- 1 -- 2 -- 3      and column (3 -- 0, 8 -- 0, ...)
//   |    |    |    |
//   4 -- 5 -- 6 -- 7
//   |    |    |    |
//   8 -- 9 --10 --11
//
// Route: dimension-ordered (XY): the fastest-varying coordinate (X, along a row) first, then
// the next, ...; on a torus each dimension goes the shorter way (+ at a tie). Other routes for
// --reroute: other dimension orders, the long way round a torus, detours (alt_route).
// Links: (node * d + dim) * 2 + dir, dir 0 = +1, 1 = -1. A torus extent of 2 has no wrap link
// (it would duplicate the one link between the two nodes). Link classes: dim0, dim1, ... (one per
// extent of --dims, in its order).
// Table 2-1: 2-D mesh diameter 2(sqrt p - 1), bisection sqrt p, arc connectivity 2, 2(p - sqrt p)
// links; 2-D torus 2 floor(sqrt p / 2), 2 sqrt p, 4, 2p; k-ary d-cube d floor(k/2), 2k^(d-1), 2d, dp.
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

// The mesh and the torus share everything but the wrap links (Wrap).
template <bool Wrap>
struct Grid : TopologyDefaults {
  static constexpr const char* hint = "--dims RxC[xD...] or a square --p";
  static constexpr bool grid = true;
  static constexpr bool takes_dims = true;
  // One class per dimension, dimK along the K-th extent of --dims (dim0 the first, the slowest).
  static constexpr const char* link_classes = "dim0 dim1 ... (one per extent of --dims)";
  static int link_class_count(const Topology& t) { return t.ndims; }
  static std::string link_class_name(const Topology&, int k) { return "dim" + std::to_string(k); }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) { return int((id / 2) % t.ndims); }

  PPSIM_HD static bool wraps(const Topology& t, int k) { return Wrap && t.dims[k] >= 3; }
  PPSIM_HD static int64_t stride(const Topology& t, int k) { return row_major_stride(t.dims, t.ndims, k); }
  PPSIM_HD static int64_t coord(const Topology& t, int64_t node, int k) { return (node / stride(t, k)) % t.dims[k]; }

  // Signed number of unit moves along dimension k from coordinate a to b.
  PPSIM_HD static int64_t moves(const Topology& t, int k, int64_t a, int64_t b) {
    if (!wraps(t, k)) return b - a;
    int64_t f = pos_mod(b - a, t.dims[k]);
    return 2 * f <= t.dims[k] ? f : f - t.dims[k];
  }

  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) {
    int64_t h = 0;
    for (int k = 0; k < t.ndims; ++k) {
      int64_t mv = moves(t, k, coord(t, s, k), coord(t, d, k));
      h += mv < 0 ? -mv : mv;
    }
    return h;
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * int64_t(t.ndims) * t.p; }

  // The dimension at position q of order o (0: X first, ..., dimension 0 last): o < d: the
  // rotation that starts at dimension d-1-o, going down; o >= d: the one that starts at dimension
  // o-d, going up.
  PPSIM_HD static int order_dim(int nd, int o, int q) { return o < nd ? ((nd - 1 - o - q) % nd + nd) % nd : (o - nd + q) % nd; }

  // The dimension-ordered route in order o; on a torus dimension `flip` (-1: none) goes the long
  // way round.
  template <class Visit>
  PPSIM_HD static void route_in(const Topology& t, int64_t s, int64_t d, int o, int flip, Visit&& visit) {
    int64_t x = s;
    for (int q = 0; q < t.ndims; ++q) {
      const int k = order_dim(t.ndims, o, q);
      int64_t st = stride(t, k), n = t.dims[k];
      int64_t c = (x / st) % n, mv = moves(t, k, c, (d / st) % n);
      if (k == flip && mv != 0) mv = mv > 0 ? mv - n : mv + n;
      int dir = mv < 0 ? 1 : 0;
      for (int64_t i = 0, steps = mv < 0 ? -mv : mv; i < steps; ++i) {
        visit((x * t.ndims + k) * 2 + dir);
        int64_t next = dir == 0 ? (c + 1 == n ? 0 : c + 1) : (c == 0 ? n - 1 : c - 1);
        x += (next - c) * st;
        c = next;
      }
    }
  }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    route_in(t, s, d, 0, -1, visit);
  }

  // The node one link from v along dimension k (dir 0: +, 1: -), or -1 at a mesh's edge.
  PPSIM_HD static int64_t neighbour(const Topology& t, int64_t v, int k, int dir) {
    const int64_t n = t.dims[k], c = coord(t, v, k);
    int64_t next = dir == 0 ? c + 1 : c - 1;
    if (next < 0 || next >= n) {
      if (!wraps(t, k)) return -1;
      next = pos_mod(next, n);
    }
    return v + (next - c) * stride(t, k);
  }

  // Other routes (--reroute), in this order: the other dimension orders (2d of them, counting the
  // default), each with every dimension in turn the long way round on a torus; then the detours:
  // one link along dimension k (+, then -), the default route to the destination's neighbour the
  // same way, and back (2 links longer; none where the mesh ends).
  PPSIM_HD static int flips(const Topology& t) { return Wrap ? t.ndims + 1 : 1; }
  PPSIM_HD static int alt_routes(const Topology& t) { return 2 * t.ndims * flips(t) - 1 + 2 * t.ndims; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology& t, int64_t s, int64_t d, int n, Visit&& visit) {
    if (s == d || n < 1 || n > alt_routes(t)) return false;
    const int minimal = 2 * t.ndims * flips(t);
    if (n < minimal) {
      const int o = n / flips(t), flip = n % flips(t) - 1;
      if (flip >= 0 && moves(t, flip, coord(t, s, flip), coord(t, d, flip)) == 0) return false;
      route_in(t, s, d, o, flip, visit);
      return true;
    }
    const int k = (n - minimal) / 2, dir = (n - minimal) % 2;
    const int64_t s1 = neighbour(t, s, k, dir), d1 = neighbour(t, d, k, dir);
    if (s1 < 0 || d1 < 0 || s1 == d) return false;
    visit((s * t.ndims + k) * 2 + dir);
    route_in(t, s1, d1, 0, -1, visit);
    visit((d1 * t.ndims + k) * 2 + (1 - dir));
    return true;
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    int dir = int(id % 2);
    int k = int((id / 2) % t.ndims);
    from = id / 2 / t.ndims;
    int64_t n = t.dims[k], c = coord(t, from, k);
    int64_t next = dir == 0 ? c + 1 : c - 1;
    if (next < 0 || next >= n) {
      if (!wraps(t, k)) return false;
      next = pos_mod(next, n);
    }
    to = from + (next - c) * stride(t, k);
    return true;
  }

  // Fewest links whose removal splits the processors into halves (see the tests for the
  // exhaustive check): cut across the longest even extent; with only odd extents, cut across the
  // longest one between two layers and split the middle layer recursively.
  static int64_t bisection(const int64_t* dims, int nd, int64_t p) {
    int64_t best = -1;
    int longest = -1;
    for (int k = 0; k < nd; ++k) {
      if (dims[k] < 2) continue;
      if (longest < 0 || dims[k] > dims[longest]) longest = k;
      if (dims[k] % 2 == 0) {
        int64_t cut = (Wrap && dims[k] >= 3 ? 2 : 1) * (p / dims[k]);
        if (best < 0 || cut < best) best = cut;
      }
    }
    if (best >= 0) return best;
    if (longest < 0) return 0;  // a single processor
    int64_t rest[8];
    int nr = 0;
    for (int k = 0; k < nd; ++k)
      if (k != longest) rest[nr++] = dims[k];
    int64_t layer = p / dims[longest];
    return (Wrap ? 2 : 1) * layer + bisection(rest, nr, layer);
  }

  static TopologyMetrics metrics(const Topology& t) {
    TopologyMetrics m;
    for (int k = 0; k < t.ndims; ++k) {
      int64_t n = t.dims[k];
      if (n < 2) continue;
      bool w = wraps(t, k);
      m.diameter += w ? n / 2 : n - 1;
      m.links += (w ? n : n - 1) * (t.p / n);
      m.arc_connectivity += w ? 2 : 1;  // the least degree: a corner of a mesh, any node of a torus
    }
    m.bisection_width = bisection(t.dims, t.ndims, t.p);
    return m;
  }

  // An inner processor: two links along every extent of 3 or more, one along an extent of 2.
  static int64_t degree(const Topology& t) {
    int64_t deg = 0;
    for (int k = 0; k < t.ndims; ++k) deg += t.dims[k] >= 3 ? 2 : t.dims[k] == 2 ? 1 : 0;
    return std::max<int64_t>(1, deg);
  }

  // Rows down, columns across; the layers of a 3-D grid side by side.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    const int64_t C = t.dims[t.ndims - 1], R = t.ndims >= 2 ? t.dims[t.ndims - 2] : 1;
    const int64_t layer = v / (R * C), row = (v / C) % R, col = v % C;
    return {double(col) * 90 + double(layer) * (double(C) * 90 + 60), -double(row) * 90};
  }
};

struct Mesh : Grid<false> {
  static constexpr const char* name = "mesh";
};

struct Torus : Grid<true> {
  static constexpr const char* name = "torus";
};

}  // namespace ppsim::topo
