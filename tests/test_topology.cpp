// Topologies: Grama et al. Table 2-1, exhaustive checks of the
// metrics on small instances, and validity/minimality of every route.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <vector>

#include "ppsim/topology.h"
#include "machine/topologies/routing.h"
#include "topology_search.h"

using namespace ppsim;
using namespace ppsim::testing_support;

namespace {

std::vector<Topology> small_topologies() {
  std::vector<Topology> out;
  for (int64_t p = 1; p <= 16; ++p) {
    out.push_back(make_topology(TopologyKind::linear, p, ""));
    out.push_back(make_topology(TopologyKind::ring, p, ""));
    out.push_back(make_topology(TopologyKind::full, p, ""));
    out.push_back(make_topology(TopologyKind::star, p, ""));
    if (is_pow2(p)) {
      out.push_back(make_topology(TopologyKind::hypercube, p, ""));
      out.push_back(make_topology(TopologyKind::tree, p, ""));
      out.push_back(make_topology(TopologyKind::binomial, p, ""));
    }
    if (is_pow2(p + 1)) out.push_back(make_topology(TopologyKind::bintree, p, ""));  // 1, 3, 7, 15
  }
  for (const char* d : {"2x2", "2x3", "3x3", "2x4", "3x4", "4x4", "2x2x2", "2x2x3", "2x8", "3x5", "1x4", "2x2x4"}) {
    out.push_back(make_topology(TopologyKind::mesh, 0, d));
    out.push_back(make_topology(TopologyKind::torus, 0, d));
  }
  return out;
}

}  // namespace

TEST(Topology, MetricsMatchExhaustiveSearchForSmallP) {
  for (const Topology& t : small_topologies()) {
    SCOPED_TRACE(topology_shape(t));
    Graph g = graph_of(t);
    TopologyMetrics m = topology_metrics(t);
    EXPECT_EQ(int64_t(g.directed.size()), 2 * m.links) << "every link is in both directions";
    int64_t diameter = 0;
    for (int64_t s = 0; s < t.p; ++s) {
      auto d = bfs(g, s);
      for (int64_t x = 0; x < t.p; ++x) diameter = std::max(diameter, d[size_t(x)]);
    }
    EXPECT_EQ(diameter, m.diameter);
    EXPECT_EQ(exhaustive_bisection(g), m.bisection_width);
    EXPECT_EQ(exhaustive_arc_connectivity(g), m.arc_connectivity);
  }
}

TEST(Topology, RoutesArePathsOfMinimalLength) {
  for (const Topology& t : small_topologies()) {
    SCOPED_TRACE(topology_shape(t));
    Graph g = graph_of(t);
    for (int64_t s = 0; s < t.p; ++s) {
      auto dist = bfs(g, s);
      for (int64_t d = 0; d < t.p; ++d) {
        const int64_t n = route_length(t, s, d);
        EXPECT_GE(n, 0) << s << " -> " << d << " is not a chain of links from s to d";
        EXPECT_EQ(n, dist[size_t(d)]) << s << " -> " << d << " is not minimal";
        EXPECT_EQ(route_hops(t, s, d), n);
      }
    }
  }
}

// The two trees with a processor at every node, larger than the exhaustive search reaches: the
// diameter by breadth-first search from every processor, and every route a minimal chain of links.
TEST(Topology, TreesWithProcessorsAtEveryNodeAtLargerP) {
  for (const Topology& t : {make_topology(TopologyKind::bintree, 255, ""), make_topology(TopologyKind::binomial, 256, "")}) {
    SCOPED_TRACE(topology_shape(t));
    Graph g = graph_of(t);
    EXPECT_EQ(int64_t(g.directed.size()), 2 * topology_metrics(t).links);
    int64_t diameter = 0;
    for (int64_t s = 0; s < t.p; ++s) {
      auto dist = bfs(g, s);
      for (int64_t d = 0; d < t.p; ++d) {
        diameter = std::max(diameter, dist[size_t(d)]);
        const int64_t n = route_length(t, s, d);
        ASSERT_TRUE(n == dist[size_t(d)] && route_hops(t, s, d) == n) << s << " -> " << d;
      }
    }
    EXPECT_EQ(diameter, topology_metrics(t).diameter);
  }
}

TEST(Topology, EcubeCorrectsLowestBitFirstAndXYRoutesRowFirst) {
  Topology h = make_topology(TopologyKind::hypercube, 8, "");
  std::vector<int64_t> dims;
  for_each_route_link(h, 0, 7, [&](int64_t id) { dims.push_back(id % h.log2p); });
  EXPECT_EQ(dims, (std::vector<int64_t>{0, 1, 2}));
  Topology m = make_topology(TopologyKind::mesh, 0, "4x4");
  std::vector<int64_t> nodes;
  for_each_route_link(m, 0, 15, [&](int64_t id) {
    int64_t a, b;
    topology_link_endpoints(m, id, a, b);
    nodes.push_back(b);
  });
  EXPECT_EQ(nodes, (std::vector<int64_t>{1, 2, 3, 7, 11, 15}));  // along row 0 (X), then down column 3 (Y)
}

// Table 2-1, row by row, for several sizes (p counts processors; for the tree with switches the
// table's p is the number of all 2p-1 nodes).
TEST(Topology, Table2_1) {
  for (int64_t p : {4, 16, 64, 256, 1024}) {
    auto sq = int64_t(std::llround(std::sqrt(double(p))));
    int64_t lg = int64_t(std::llround(std::log2(double(p))));
    TopologyMetrics full = topology_metrics(make_topology(TopologyKind::full, p, ""));
    EXPECT_EQ(full.diameter, 1);
    EXPECT_EQ(full.bisection_width, p * p / 4);
    EXPECT_EQ(full.arc_connectivity, p - 1);
    EXPECT_EQ(full.links, p * (p - 1) / 2);
    TopologyMetrics star = topology_metrics(make_topology(TopologyKind::star, p, ""));
    EXPECT_EQ(star.diameter, 2);
    EXPECT_EQ(star.arc_connectivity, 1);
    EXPECT_EQ(star.links, p - 1);
    EXPECT_EQ(star.bisection_width, p / 2);  // Table 2-1 says 1; see star.h and the exhaustive test
    int64_t nodes = 2 * p - 1;
    TopologyMetrics tree = topology_metrics(make_topology(TopologyKind::tree, p, ""));
    EXPECT_EQ(tree.diameter, 2 * int64_t(std::llround(std::log2(double(nodes + 1) / 2))));
    EXPECT_EQ(tree.bisection_width, 1);
    EXPECT_EQ(tree.arc_connectivity, 1);
    EXPECT_EQ(tree.links, nodes - 1);
    TopologyMetrics lin = topology_metrics(make_topology(TopologyKind::linear, p, ""));
    EXPECT_EQ(lin.diameter, p - 1);
    EXPECT_EQ(lin.bisection_width, 1);
    EXPECT_EQ(lin.arc_connectivity, 1);
    EXPECT_EQ(lin.links, p - 1);
    TopologyMetrics hc = topology_metrics(make_topology(TopologyKind::hypercube, p, ""));
    EXPECT_EQ(hc.diameter, lg);
    EXPECT_EQ(hc.bisection_width, p / 2);
    EXPECT_EQ(hc.arc_connectivity, lg);
    EXPECT_EQ(hc.links, p * lg / 2);
    if (sq * sq == p && sq >= 3) {
      TopologyMetrics mesh = topology_metrics(make_topology(TopologyKind::mesh, p, ""));
      EXPECT_EQ(mesh.diameter, 2 * (sq - 1));
      EXPECT_EQ(mesh.bisection_width, sq);
      EXPECT_EQ(mesh.arc_connectivity, 2);
      EXPECT_EQ(mesh.links, 2 * (p - sq));
      TopologyMetrics torus = topology_metrics(make_topology(TopologyKind::torus, p, ""));
      EXPECT_EQ(torus.diameter, 2 * (sq / 2));
      EXPECT_EQ(torus.bisection_width, 2 * sq);
      EXPECT_EQ(torus.arc_connectivity, 4);
      EXPECT_EQ(torus.links, 2 * p);
    }
  }
  // Table 2-1's complete binary tree with a processor at every node: 2 log((p+1)/2), 1, 1, p - 1.
  for (int64_t p : {int64_t{3}, int64_t{7}, int64_t{15}, int64_t{255}, int64_t{1023}, (int64_t{1} << 20) - 1}) {
    TopologyMetrics b = topology_metrics(make_topology(TopologyKind::bintree, p, ""));
    EXPECT_EQ(b.diameter, 2 * int64_t(std::llround(std::log2(double(p + 1) / 2)))) << p;
    EXPECT_EQ(b.bisection_width, 1);
    EXPECT_EQ(b.arc_connectivity, 1);
    EXPECT_EQ(b.links, p - 1);
  }
  // The ring is the wraparound k-ary 1-cube; Table 2-1's ring figures: floor(p/2), 2, 2, p.
  for (int64_t p : {3, 8, 13, 100}) {
    TopologyMetrics r = topology_metrics(make_topology(TopologyKind::ring, p, ""));
    EXPECT_EQ(r.diameter, p / 2);
    EXPECT_EQ(r.bisection_width, 2);
    EXPECT_EQ(r.arc_connectivity, 2);
    EXPECT_EQ(r.links, p);
  }
  // Wraparound k-ary d-cube (even k >= 4): d floor(k/2), 2 k^(d-1), 2d, dp.
  for (auto [k, d] : {std::pair<int64_t, int>{4, 2}, {4, 3}, {6, 3}, {8, 2}, {4, 4}}) {
    std::string dims;
    int64_t p = 1;
    for (int j = 0; j < d; ++j) {
      if (j) dims += 'x';
      dims += std::to_string(k);
      p *= k;
    }
    TopologyMetrics c = topology_metrics(make_topology(TopologyKind::torus, 0, dims));
    SCOPED_TRACE(dims);
    EXPECT_EQ(c.diameter, d * (k / 2));
    EXPECT_EQ(c.bisection_width, 2 * p / k);
    EXPECT_EQ(c.arc_connectivity, 2 * d);
    EXPECT_EQ(c.links, d * p);
  }
}

TEST(Topology, BadShapesAreRejectedWithAMessage) {
  EXPECT_THROW(make_topology(TopologyKind::hypercube, 12, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::tree, 6, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::binomial, 12, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::bintree, 8, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::bintree, 2, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::mesh, 12, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::mesh, 0, "4x"), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::mesh, 0, "4x0"), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::ring, 0, ""), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::ring, 8, "2x4"), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::torus, 9, "2x4"), std::invalid_argument);
}
