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
// the next, ...; on a torus each dimension goes the shorter way (+ at a tie).
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

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    int64_t x = s;
    for (int k = t.ndims - 1; k >= 0; --k) {  // X first
      int64_t st = stride(t, k), n = t.dims[k];
      int64_t c = (x / st) % n, mv = moves(t, k, c, (d / st) % n);
      int dir = mv < 0 ? 1 : 0;
      for (int64_t i = 0, steps = mv < 0 ? -mv : mv; i < steps; ++i) {
        visit((x * t.ndims + k) * 2 + dir);
        int64_t next = dir == 0 ? (c + 1 == n ? 0 : c + 1) : (c == 0 ? n - 1 : c - 1);
        x += (next - c) * st;
        c = next;
      }
    }
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
