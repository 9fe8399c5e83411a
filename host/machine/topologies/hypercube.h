// Hypercube of dimension d = log2 p: processors i and i ^ 2^k are linked for every k.
//
//   110 ----- 111
//    | 010 ----- 011        d = 3: two 2-D squares {x0x}... every node i is linked
//    |  |      |  |         to i ^ 1, i ^ 2 and i ^ 4
//   100 |---- 101 |
//       000 ----- 001
//
// Route: E-cube, correcting differing bits from the least significant up. Link id = node*d + k.
// Other routes (--reroute), in this order: the other dimension orders (the low-first order started
// at bit o, o = 1 .. d-1, then the high-first order started at each bit), then the detours (flip
// bit j, E-cube to the destination with bit j flipped, flip j back; 2 links longer).
// Diameter log p, bisection p/2, arc connectivity log p, (p log p)/2 links (Table 2-1).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Hypercube : PowerOfTwoP {
  static constexpr const char* name = "hypercube";
  static constexpr const char* hint = "p a power of two";

  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) { return ppsim::popcount64(s ^ d); }
  PPSIM_HD static int64_t link_space(const Topology& t) { return t.p * t.log2p; }

  // The bits corrected in order o (0: E-cube): o < d: low-first from bit o; o >= d: high-first
  // from bit 2d-1-o.
  PPSIM_HD static int lowest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return __ffsll(static_cast<long long>(x)) - 1;
#else
    return __builtin_ctzll(x);
#endif
  }
  template <class Visit>
  PPSIM_HD static void route_in(const Topology& t, int64_t s, int64_t d, int o, Visit&& visit) {
    const int n = t.log2p;
    int64_t x = s;
    if (o == 0) {  // E-cube: the differing bits, lowest first
      for (uint64_t diff = uint64_t(s ^ d); diff != 0; diff &= diff - 1) {
        const int k = lowest_bit(diff);
        visit(x * n + k);
        x ^= int64_t{1} << k;
      }
      return;
    }
    for (int q = 0; q < n; ++q) {
      const int k = o < n ? (o + q) % n : ((2 * n - 1 - o - q) % n + n) % n;
      if (((x ^ d) >> k) & 1) {
        visit(x * n + k);
        x ^= int64_t{1} << k;
      }
    }
  }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    route_in(t, s, d, 0, visit);
  }

  PPSIM_HD static int alt_routes(const Topology& t) { return 3 * t.log2p - 1; }
  template <class Visit>
  PPSIM_HD static bool alt_route(const Topology& t, int64_t s, int64_t d, int n, Visit&& visit) {
    if (s == d || n < 1 || n > alt_routes(t)) return false;
    if (n < 2 * t.log2p) {
      route_in(t, s, d, n, visit);
      return true;
    }
    const int64_t flip = int64_t{1} << (n - 2 * t.log2p);
    visit(s * t.log2p + (n - 2 * t.log2p));
    route_in(t, s ^ flip, d ^ flip, 0, visit);
    visit((d ^ flip) * t.log2p + (n - 2 * t.log2p));
    return true;
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    if (t.log2p == 0) return false;
    from = id / t.log2p;
    to = from ^ (int64_t{1} << (id % t.log2p));
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) { return {t.log2p, t.p / 2, t.log2p, t.p * t.log2p / 2}; }

  static int64_t degree(const Topology& t) { return std::max(1, t.log2p); }
  // Even bits across, odd bits down, higher bits spread wider.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    double x = 0, y = 0;
    for (int k = 0; k < t.log2p; ++k)
      if ((v >> k) & 1) (k % 2 == 0 ? x : y) += 100.0 * std::pow(2.3, k / 2);
    return {x + 0.18 * y, -y};
  }
};

}  // namespace ppsim::topo
