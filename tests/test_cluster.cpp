// The two-level machines of AI training clusters (host/machine/topologies/cluster.h): N nodes of G
// accelerators on an NVSwitch each, K NICs per node on a rail-optimized network (`cluster`) or a
// fat tree (`cluster-fattree`). Their links, routes and metrics against exhaustive searches of the
// link graph; their shapes and refusals; runs on them with per-class word times.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "test_helpers.h"
#include "topology_search.h"

using namespace ppsim;
using namespace ppsim::testing_support;

namespace {

struct Shape {
  TopologyKind kind;
  const char* dims;
};
const std::vector<Shape> kSmall = {
    {TopologyKind::cluster, "1x4"},         {TopologyKind::cluster, "2x1"},         {TopologyKind::cluster, "2x2x1"},
    {TopologyKind::cluster, "2x4x2"},       {TopologyKind::cluster, "3x4x2"},       {TopologyKind::cluster, "4x2x2"},
    {TopologyKind::cluster, "4x4x1"},       {TopologyKind::cluster_fattree, "2x2x1"}, {TopologyKind::cluster_fattree, "2x4x2x2"},
    {TopologyKind::cluster_fattree, "4x2x2x2"}, {TopologyKind::cluster_fattree, "4x4x1x2"}, {TopologyKind::cluster_fattree, "3x2x2"},
};

Topology make(const Shape& s) { return make_topology(s.kind, 0, s.dims); }

int64_t N_of(const Topology& t) { return t.dims[0]; }
int64_t G_of(const Topology& t) { return t.dims[1]; }
int64_t K_of(const Topology& t) { return t.dims[2]; }
// Node ids (cluster.h): accelerators, then the NVSwitches, then the NICs, then the network.
int64_t nvswitch_node(const Topology& t, int64_t node) { return t.p + node; }
int64_t nic_node(const Topology& t, int64_t nic) { return t.p + N_of(t) + nic; }
int64_t network_base(const Topology& t) { return t.p + N_of(t) + N_of(t) * K_of(t); }
// The NIC accelerator r leaves its node through: NIC g / (G/K) of node r / G.
int64_t nic_of(const Topology& t, int64_t r) { return r / G_of(t) * K_of(t) + r % G_of(t) / (G_of(t) / K_of(t)); }

}  // namespace

// Every link is where cluster.h puts it: NVLink from each accelerator to its node's NVSwitch, PCIe
// to its NIC, NIC j on rail j's leaf, the rail leaves on the spine; each in both directions.
TEST(Cluster, LinksFormTheMachine) {
  for (const Shape& s : kSmall) {
    const Topology t = make(s);
    SCOPED_TRACE(topology_shape(t));
    ASSERT_EQ(t.p, N_of(t) * G_of(t));
    std::map<std::string, int64_t> count;
    std::set<std::pair<int64_t, int64_t>> directed;
    for (int64_t id = 0; id < topology_link_ids(t); ++id) {
      int64_t from, to;
      if (!topology_link_endpoints(t, id, from, to)) continue;
      EXPECT_TRUE(directed.insert({from, to}).second) << "link " << from << " -> " << to << " twice";
      const std::string cls = topology_link_class_name(t, topology_link_class(t, id));
      ++count[cls];
      const int64_t lo = std::min(from, to), hi = std::max(from, to);
      if (cls == "nvlink") {
        ASSERT_LT(lo, t.p);
        EXPECT_EQ(hi, nvswitch_node(t, lo / G_of(t)));
      } else if (cls == "pcie") {
        ASSERT_LT(lo, t.p);
        EXPECT_EQ(hi, nic_node(t, nic_of(t, lo)));
      } else if (cls == "rail") {
        const int64_t nic = lo - nic_node(t, 0);
        ASSERT_GE(nic, 0);
        EXPECT_EQ(hi, network_base(t) + nic % K_of(t)) << "NIC j sits on rail j's leaf";
      } else if (cls == "spine") {
        EXPECT_GE(lo, network_base(t));
        EXPECT_LT(lo, network_base(t) + K_of(t));
        EXPECT_EQ(hi, network_base(t) + K_of(t));
      } else {
        EXPECT_EQ(cls.rfind("level", 0), 0u) << cls;
        EXPECT_GE(hi, network_base(t)) << "a fat-tree link reaches a switch";
        EXPECT_GE(lo, nic_node(t, 0)) << "and starts at a NIC or a switch";
      }
    }
    for (auto [a, b] : directed) EXPECT_TRUE(directed.count({b, a})) << "both directions of " << a << " - " << b;
    EXPECT_EQ(count["nvlink"], 2 * t.p);
    EXPECT_EQ(count["pcie"], 2 * t.p);
    if (s.kind == TopologyKind::cluster) {
      EXPECT_EQ(count["rail"], 2 * N_of(t) * K_of(t));
      EXPECT_EQ(count["spine"], K_of(t) > 1 ? 2 * K_of(t) : 0) << "a spine only over two rails or more";
    }
    EXPECT_EQ(int64_t(directed.size()) / 2, topology_metrics(t).links);
  }
}

// A route is a chain of links from s to d: within a node NVLink up and down; between nodes PCIe to
// the source's own NIC first and from the destination's NIC last; on these shapes as short as any
// path of the graph, and exactly as long as hops() says.
TEST(Cluster, RoutesAreShortestChainsThroughTheRightNics) {
  for (const Shape& s : kSmall) {
    const Topology t = make(s);
    SCOPED_TRACE(topology_shape(t));
    const Graph g = graph_of(t);
    for (int64_t a = 0; a < t.p; ++a) {
      const auto dist = bfs(g, a);
      for (int64_t b = 0; b < t.p; ++b) {
        const int64_t length = route_length(t, a, b);
        ASSERT_GE(length, 0) << a << " -> " << b << " is no chain of links";
        EXPECT_EQ(length, dist[size_t(b)]) << a << " -> " << b;
        EXPECT_EQ(length, route_hops(t, a, b));
        if (a == b) continue;
        const std::vector<int64_t> route = topology_route(t, a, b);
        const std::string first = topology_link_class_name(t, topology_link_class(t, route.front()));
        const std::string last = topology_link_class_name(t, topology_link_class(t, route.back()));
        if (a / G_of(t) == b / G_of(t)) {
          EXPECT_EQ(route.size(), 2u);
          EXPECT_EQ(first, "nvlink");
          EXPECT_EQ(last, "nvlink");
          continue;
        }
        EXPECT_EQ(first, "pcie");
        EXPECT_EQ(last, "pcie");
        int64_t from, to;
        ASSERT_TRUE(topology_link_endpoints(t, route.front(), from, to));
        EXPECT_EQ(to, nic_node(t, nic_of(t, a))) << "traffic leaves by the accelerator's own NIC";
        if (s.kind == TopologyKind::cluster) {  // one rail: 4 links; across rails, by the spine: 6
          EXPECT_EQ(length, nic_of(t, a) % K_of(t) == nic_of(t, b) % K_of(t) ? 4 : 6);
        }
      }
    }
  }
}

// Diameter, links and arc connectivity as the link graph has them; the bisection too for an even
// number of nodes, a lower bound of it for one node or an odd number (cluster.h says why).
TEST(Cluster, MetricsMatchExhaustiveSearch) {
  for (const Shape& s : kSmall) {
    const Topology t = make(s);
    SCOPED_TRACE(topology_shape(t));
    const Graph g = graph_of(t);
    const TopologyMetrics m = topology_metrics(t);
    int64_t diameter = 0;
    for (int64_t a = 0; a < t.p; ++a) {
      const auto dist = bfs(g, a);
      for (int64_t b = 0; b < t.p; ++b) diameter = std::max(diameter, dist[size_t(b)]);
    }
    EXPECT_EQ(m.diameter, diameter);
    EXPECT_EQ(m.arc_connectivity, exhaustive_arc_connectivity(g));
    const int64_t bisection = exhaustive_bisection(g);
    if (N_of(t) > 1 && N_of(t) % 2 == 0) {
      EXPECT_EQ(m.bisection_width, bisection);
      EXPECT_EQ(m.bisection_width, N_of(t) / 2 * K_of(t));
    } else {
      EXPECT_LE(m.bisection_width, bisection);
    }
  }
}

TEST(Cluster, ShapesFromDimsOrPAndRefusals) {
  auto dims_of = [](TopologyKind k, int64_t p, const std::string& dims) { return topology_dims(make_topology(k, p, dims)); };
  EXPECT_EQ(dims_of(TopologyKind::cluster, 64, ""), "8x8x8");  // --p alone: nodes of 8 accelerators and 8 NICs
  EXPECT_EQ(dims_of(TopologyKind::cluster, 0, "16x4"), "16x4x4");
  EXPECT_EQ(dims_of(TopologyKind::cluster, 0, "16x8x2"), "16x8x2");
  EXPECT_EQ(dims_of(TopologyKind::cluster, 128, "16x8"), "16x8x8");
  EXPECT_EQ(dims_of(TopologyKind::cluster_fattree, 0, "8x8"), "8x8x8x8");           // 64 NICs: the fewest levels, 8^2
  EXPECT_EQ(dims_of(TopologyKind::cluster_fattree, 0, "16x8x4x4"), "16x8x4x4");     // 64 NICs, arity 4: 3 levels
  EXPECT_EQ(dims_of(TopologyKind::cluster_fattree, 0, "3x4x2"), "3x4x2x6");         // 6 NICs: one switch
  EXPECT_EQ(make_topology(TopologyKind::cluster_fattree, 0, "16x8x4x4").dims[4], 3);
  for (const auto& [p, dims] : std::vector<std::pair<int64_t, std::string>>{
           {12, ""},        // G = 8 does not divide 12
           {4, ""},         // nor 4
           {0, "4x8x3"},    // 3 NICs do not divide 8 accelerators
           {0, "4x8x16"},   // more NICs than accelerators
           {0, "4"},        // N alone
           {0, "4x8x8x2"},  // an arity for the rails
           {33, "4x8"},     // --p against --dims
           {0, "65536x65536"}}) {
    EXPECT_THROW(make_topology(TopologyKind::cluster, p, dims), std::invalid_argument) << p << " " << dims;
  }
  EXPECT_THROW(make_topology(TopologyKind::cluster_fattree, 0, "2x4x2x3"), std::invalid_argument);  // 4 NICs: no power of 3
  EXPECT_THROW(make_topology(TopologyKind::cluster_fattree, 0, "1x1"), std::invalid_argument);      // one NIC: no network
  EXPECT_THROW(make_topology(TopologyKind::cluster_fattree, 0, "4x4x1x1"), std::invalid_argument);  // arity 1
  TopologyKind k;
  ASSERT_TRUE(parse_topology_kind("rails", k));
  EXPECT_EQ(k, TopologyKind::cluster);
  ASSERT_TRUE(parse_topology_kind("cluster-fattree", k));
  EXPECT_EQ(k, TopologyKind::cluster_fattree);
}

// Per-class word times on a cluster: a message inside a node pays nvlink's, one between nodes the
// largest of pcie, rail and spine on its route. A broadcast from node 0 over 2 nodes of 2
// accelerators, one NIC each (one rail): step 1 sends to accelerator 2 on node 1 (pcie, rail,
// rail, pcie), step 2 inside both nodes (nvlink): t_s + tw(slowest) m each, cut-through.
TEST(Cluster, ClassesSetTheWordTimeOfEachHop) {
  for (double rail : {1.0, 4.0})
    for (double nvlink : {0.25, 2.0}) {
      RunConfig c = make_config("broadcast_binomial", TopologyKind::cluster, 0, "2x2x1", 10);
      c.cost.ts = 3;
      c.cost.tw = 1;
      c.cost.set_class_tw(topology_find_link_class(c.topology, "rail"), rail);
      c.cost.set_class_tw(topology_find_link_class(c.topology, "nvlink"), nvlink);
      const RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      ASSERT_EQ(r.steps, 2);
      EXPECT_DOUBLE_EQ(r.time, (3 + std::max(rail, 1.0) * 10) + (3 + nvlink * 10)) << "rail " << rail << ", nvlink " << nvlink;
    }
}
