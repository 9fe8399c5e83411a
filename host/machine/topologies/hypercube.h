// Hypercube of dimension d = log2 p: processors i and i ^ 2^k are linked for every k.
//
//   110 ----- 111
//    | 010 ----- 011        d = 3: two 2-D squares {x0x}... every node i is linked
//    |  |      |  |         to i ^ 1, i ^ 2 and i ^ 4
//   100 |---- 101 |
//       000 ----- 001
//
// Route: E-cube, correcting differing bits from the least significant up. Link id = node*d + k.
// Diameter log p, bisection p/2, arc connectivity log p, (p log p)/2 links (Table 2-1).
#pragma once
#include "machine/topologies/unit.h"

namespace ppsim::topo {

struct Hypercube : PowerOfTwoP {
  static constexpr const char* name = "hypercube";
  static constexpr const char* hint = "p a power of two";

  PPSIM_HD static int popcount64(uint64_t x) {
    int c = 0;
    while (x) {
      x &= x - 1;
      ++c;
    }
    return c;
  }
  PPSIM_HD static int64_t hops(const Topology&, int64_t s, int64_t d) { return popcount64(uint64_t(s ^ d)); }
  PPSIM_HD static int64_t link_space(const Topology& t) { return t.p * t.log2p; }

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    int64_t x = s;
    for (int k = 0; k < t.log2p; ++k) {
      if (((x ^ d) >> k) & 1) {
        visit(x * t.log2p + k);
        x ^= int64_t{1} << k;
      }
    }
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
