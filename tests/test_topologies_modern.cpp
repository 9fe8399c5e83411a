// The topologies of today's machines and link classes (docs/DESIGN.md §3-§4): the fat tree (k-ary
// n-tree, D-mod-k routes) and the dragonfly (local-global-local routes) against exhaustive searches
// of their link graphs, and per-class word times (--tw-class) on the CPU backend and the device
// rounds run on the host, recomputed here from the traced messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"
#include "topology_search.h"

using namespace ppsim;
using namespace ppsim::testing_support;

namespace {

Topology fattree(const std::string& dims) { return make_topology(TopologyKind::fattree, 0, dims); }
Topology dragonfly(const std::string& dims) { return make_topology(TopologyKind::dragonfly, 0, dims); }

int64_t power(int64_t k, int64_t n) {
  int64_t r = 1;
  for (int64_t i = 0; i < n; ++i) r *= k;
  return r;
}

// The largest breadth-first distance between two processors.
int64_t processor_diameter(const Graph& g) {
  int64_t diameter = 0;
  for (int64_t s = 0; s < g.procs; ++s) {
    const auto dist = bfs(g, s);
    for (int64_t d = 0; d < g.procs; ++d) diameter = std::max(diameter, dist[size_t(d)]);
  }
  return diameter;
}

// ---- fat tree ----

// Node v's switch level (0: a processor).
int64_t fattree_level(const Topology& t, int64_t v) { return v < t.p ? 0 : (v - t.p) / (t.p / t.dims[0]) + 1; }

TEST(Fattree, MetricsMatchExhaustiveSearch) {
  for (const char* dims : {"2x1", "3x1", "5x1", "2x2", "3x2", "4x2", "2x3", "2x4"}) {
    const Topology t = fattree(dims);
    SCOPED_TRACE(topology_shape(t));
    const int64_t k = t.dims[0], n = t.dims[1];
    ASSERT_EQ(t.p, power(k, n));
    ASSERT_EQ(topology_nodes(t), t.p + n * power(k, n - 1));  // n levels of k^(n-1) switches
    const Graph g = graph_of(t);
    const TopologyMetrics m = topology_metrics(t);
    EXPECT_EQ(int64_t(g.directed.size()), 2 * m.links) << "every link is in both directions";
    EXPECT_EQ(m.links, n * t.p);
    // A processor has one link, a switch k down and (below the top) k up.
    for (int64_t v = 0; v < g.nodes; ++v) {
      const int64_t level = fattree_level(t, v);
      EXPECT_EQ(int64_t(g.adj[size_t(v)].size()), level == 0 ? 1 : level < n ? 2 * k : k) << "node " << v;
    }
    EXPECT_EQ(processor_diameter(g), m.diameter);
    EXPECT_EQ(m.diameter, 2 * n);
    EXPECT_EQ(exhaustive_bisection(g), m.bisection_width);
    EXPECT_EQ(m.bisection_width, t.p / 2) << "full bisection: as many links as half of the processors have";
    EXPECT_EQ(exhaustive_arc_connectivity(g), m.arc_connectivity);
  }
}

// Every route is a chain of links of the breadth-first length, the same every time; going up from
// level l it takes the up-port named by digit l-1 of the destination, and so the down links of all
// routes to one destination are that destination's alone (the routes converge).
TEST(Fattree, RoutesAreMinimalDeterministicAndDModK) {
  for (const char* dims : {"2x1", "3x2", "4x2", "2x3", "3x3", "2x4"}) {
    const Topology t = fattree(dims);
    SCOPED_TRACE(topology_shape(t));
    const int64_t k = t.dims[0];
    const Graph g = graph_of(t);
    std::map<int64_t, int64_t> down_link_destination;
    for (int64_t s = 0; s < t.p; ++s) {
      const auto dist = bfs(g, s);
      for (int64_t d = 0; d < t.p; ++d) {
        const std::vector<int64_t> route = topology_route(t, s, d);
        ASSERT_EQ(route, topology_route(t, s, d));
        ASSERT_EQ(route_length(t, s, d), dist[size_t(d)]) << s << " -> " << d;
        ASSERT_EQ(route_hops(t, s, d), int64_t(route.size()));
        for (int64_t id : route) {
          const int64_t stage = id / 2 / t.p, index = id / 2 % t.p;
          if (id % 2 == 0 && stage >= 1) {
            ASSERT_EQ(index % k, (d / power(k, stage - 1)) % k)
                << s << " -> " << d << " goes up from level " << stage << " by another port";
          }
          if (id % 2 == 1) {
            auto [it, fresh] = down_link_destination.insert({id, d});
            ASSERT_EQ(it->second, d) << "down link " << id << " carries routes to " << it->second << " and " << d;
            (void)fresh;
          }
        }
      }
    }
  }
}

// A circular shift i -> i + q (mod p) loads every link at most once (full bisection, D-mod-k).
TEST(Fattree, ShiftPermutationsLoadNoLinkTwice) {
  for (const char* dims : {"2x3", "3x3", "4x2", "4x3", "2x6", "3x4"}) {
    const Topology t = fattree(dims);
    SCOPED_TRACE(topology_shape(t));
    for (int64_t q = 1; q < t.p; ++q) {
      std::vector<int64_t> load(size_t(topology_link_ids(t)), 0);
      int64_t most = 0;
      for (int64_t i = 0; i < t.p; ++i)
        for (int64_t id : topology_route(t, i, (i + q) % t.p)) most = std::max(most, ++load[size_t(id)]);
      ASSERT_EQ(most, 1) << "q = " << q;
    }
  }
}

// The engine measures it: shift_ecube (one message per processor, in one step) on a fat tree costs
// t_s + (hops of the longest route) t_h + t_w m with congestion 1, on both backends.
TEST(Fattree, OneStepShiftRunsCongestionFree) {
  for (const char* dims : {"4x3", "3x3", "2x5"}) {
    for (int64_t q : {1, 5, 17}) {
      RunConfig c = make_config("shift_ecube", TopologyKind::fattree, 0, dims, 7, OperatorKind::interval);
      c.params.shift = q;
      c.cost = CostParams{3, 2, 0.5, Routing::cut_through};
      int64_t longest = 0;
      for (int64_t i = 0; i < c.topology.p; ++i) longest = std::max(longest, route_hops(c.topology, i, (i + q) % c.topology.p));
      const RunResult cpu = run_cpu(c), host = run_device_rounds_on_host(c);
      SCOPED_TRACE(std::string(dims) + " q=" + std::to_string(q));
      EXPECT_TRUE(cpu.verified);
      EXPECT_EQ(cpu.max_link_load, 1);
      EXPECT_DOUBLE_EQ(cpu.time, 3 + double(longest) * 0.5 + 2 * 7);
      EXPECT_EQ(host.time, cpu.time);
      EXPECT_EQ(host.max_link_load, cpu.max_link_load);
    }
  }
}

// ---- dragonfly ----

struct DragonflyShape {
  int64_t a, h, c, g;
};
DragonflyShape shape_of(const Topology& t) { return {t.dims[0], t.dims[1], t.dims[2], t.dims[0] * t.dims[1] + 1}; }

const char* const kDragonflies[] = {"1x1x1", "1x3x2", "2x1x1", "2x1x2", "3x1x1", "2x2x1", "2x3x1", "3x2x2", "4x2x2"};

// Terminal links join a processor to its router, local links two routers of a group, global links
// two groups; each router has a-1 local and h global links, and every two groups share one global link.
TEST(Dragonfly, LinksFormTheDragonfly) {
  for (const char* dims : kDragonflies) {
    const Topology t = dragonfly(dims);
    SCOPED_TRACE(topology_shape(t));
    const auto [a, h, c, g] = shape_of(t);
    ASSERT_EQ(t.p, c * a * g);
    ASSERT_EQ(topology_nodes(t), t.p + a * g);
    std::map<std::string, int64_t> count;
    std::set<std::pair<int64_t, int64_t>> group_pairs;
    std::vector<int64_t> global_out(size_t(a * g), 0), local_out(size_t(a * g), 0);
    for (int64_t id = 0; id < topology_link_ids(t); ++id) {
      int64_t from, to;
      if (!topology_link_endpoints(t, id, from, to)) continue;
      const std::string cls = topology_link_class_name(t, topology_link_class(t, id));
      ++count[cls];
      if (cls == "terminal") {
        const int64_t x = std::min(from, to), router = std::max(from, to);
        EXPECT_LT(x, t.p);
        EXPECT_EQ(router, t.p + x / c);
        continue;
      }
      ASSERT_GE(from, t.p);
      ASSERT_GE(to, t.p);
      const int64_t rf = from - t.p, rt = to - t.p;
      if (cls == "local") {
        EXPECT_EQ(rf / a, rt / a) << "a local link stays in its group";
        EXPECT_NE(rf, rt);
        ++local_out[size_t(rf)];
      } else {
        EXPECT_EQ(cls, "global");
        EXPECT_NE(rf / a, rt / a) << "a global link joins two groups";
        EXPECT_TRUE(group_pairs.insert({rf / a, rt / a}).second) << "groups " << rf / a << " and " << rt / a << " share two links";
        ++global_out[size_t(rf)];
      }
    }
    EXPECT_EQ(count["terminal"], 2 * t.p);
    EXPECT_EQ(count["local"], g * a * (a - 1));
    EXPECT_EQ(count["global"], g * (g - 1));
    EXPECT_EQ(int64_t(group_pairs.size()), g * (g - 1));
    for (int64_t r = 0; r < a * g; ++r) {
      EXPECT_EQ(global_out[size_t(r)], h);
      EXPECT_EQ(local_out[size_t(r)], a - 1);
    }
  }
}

// Diameter, links and arc connectivity by search; the bisection counted over splits of the groups
// into halves (the global links crossing), every split tried.
TEST(Dragonfly, MetricsMatchExhaustiveSearch) {
  for (const char* dims : kDragonflies) {
    const Topology t = dragonfly(dims);
    SCOPED_TRACE(topology_shape(t));
    const auto [a, h, c, g] = shape_of(t);
    const Graph graph = graph_of(t);
    const TopologyMetrics m = topology_metrics(t);
    EXPECT_EQ(int64_t(graph.directed.size()), 2 * m.links);
    EXPECT_EQ(processor_diameter(graph), m.diameter);
    EXPECT_EQ(m.diameter, a >= 2 ? 5 : 3);
    EXPECT_EQ(exhaustive_arc_connectivity(graph), m.arc_connectivity);
    int64_t best = -1;
    for (uint32_t mask = 0; mask < (1u << g); ++mask) {
      if (__builtin_popcount(mask) != g / 2) continue;
      int64_t cut = 0;
      for (int64_t id = 0; id < topology_link_ids(t); ++id) {
        int64_t from, to;
        if (topology_link_class_name(t, topology_link_class(t, id)) != "global" || !topology_link_endpoints(t, id, from, to)) continue;
        cut += ((mask >> ((from - t.p) / a)) & 1u) != ((mask >> ((to - t.p) / a)) & 1u);
      }
      cut /= 2;  // both directions of each link
      if (best < 0 || cut < best) best = cut;
    }
    EXPECT_EQ(best, m.bisection_width);
    EXPECT_EQ(m.bisection_width, (g / 2) * ((g + 1) / 2));
  }
}

// Breadth-first distances from processor s over paths that use at most one global link.
std::vector<int64_t> one_global_distances(const Topology& t, const Graph& graph, int64_t s) {
  std::map<std::pair<int64_t, int64_t>, bool> global;
  for (int64_t id = 0; id < topology_link_ids(t); ++id) {
    int64_t from, to;
    if (topology_link_endpoints(t, id, from, to)) global[{from, to}] = topology_link_class_name(t, topology_link_class(t, id)) == "global";
  }
  const int64_t n = graph.nodes;
  std::vector<int64_t> dist(size_t(2 * n), -1);  // state: node + n * (global links used)
  std::vector<int64_t> queue = {s};
  dist[size_t(s)] = 0;
  for (size_t at = 0; at < queue.size(); ++at) {
    const int64_t state = queue[at], u = state % n, used = state / n;
    for (int64_t v : graph.adj[size_t(u)]) {
      const int64_t next_used = used + (global[{u, v}] ? 1 : 0), next = v + n * next_used;
      if (next_used > 1 || dist[size_t(next)] >= 0) continue;
      dist[size_t(next)] = dist[size_t(state)] + 1;
      queue.push_back(next);
    }
  }
  std::vector<int64_t> out(size_t(n), -1);
  for (int64_t v = 0; v < n; ++v)
    for (int64_t used = 0; used < 2; ++used) {
      const int64_t d = dist[size_t(v + n * used)];
      if (d >= 0 && (out[size_t(v)] < 0 || d < out[size_t(v)])) out[size_t(v)] = d;
    }
  return out;
}

// Every route is a chain of links, the same every time, of the fewest links among paths with at
// most one global link: terminal, at most one local, at most one global, at most one local,
// terminal (at most 3 router hops). Two groups always talk over the same global link. With h = 1 no
// shorter path exists at all; with h >= 2 a path over two global links is at most one link shorter.
TEST(Dragonfly, RoutesAreLocalGlobalLocalAndMinimal) {
  for (const char* dims : kDragonflies) {
    const Topology t = dragonfly(dims);
    SCOPED_TRACE(topology_shape(t));
    const auto [a, h, c, g] = shape_of(t);
    const Graph graph = graph_of(t);
    std::map<std::pair<int64_t, int64_t>, int64_t> link_between_groups;
    for (int64_t s = 0; s < t.p; ++s) {
      const auto dist = bfs(graph, s), minimal = one_global_distances(t, graph, s);
      for (int64_t d = 0; d < t.p; ++d) {
        const std::vector<int64_t> route = topology_route(t, s, d);
        ASSERT_EQ(route, topology_route(t, s, d));
        const int64_t n = route_length(t, s, d);
        ASSERT_EQ(n, minimal[size_t(d)]) << s << " -> " << d;
        ASSERT_EQ(route_hops(t, s, d), n);
        ASSERT_LE(n, 5);
        ASSERT_LE(n, dist[size_t(d)] + (h == 1 ? 0 : 1)) << s << " -> " << d << ": a shorter path exists";
        std::string pattern;
        for (int64_t id : route) pattern += topology_link_class_name(t, topology_link_class(t, id))[0];
        if (s != d) {
          const bool same_router = s / c == d / c, same_group = s / (c * a) == d / (c * a);
          const std::set<std::string> allowed = same_router  ? std::set<std::string>{"tt"}
                                                : same_group ? std::set<std::string>{"tlt"}
                                                             : std::set<std::string>{"tgt", "tlgt", "tglt", "tlglt"};
          ASSERT_TRUE(allowed.count(pattern)) << s << " -> " << d << ": " << pattern;
        }
        for (int64_t id : route)
          if (topology_link_class_name(t, topology_link_class(t, id)) == "global") {
            auto [it, fresh] = link_between_groups.insert({{s / (c * a), d / (c * a)}, id});
            ASSERT_EQ(it->second, id) << "groups " << s / (c * a) << " and " << d / (c * a) << " talk over two global links";
            (void)fresh;
          }
      }
    }
  }
}

// ---- shapes from --p and --dims ----

TEST(ModernTopologies, ShapesFromPAloneAndRefusals) {
  auto dims_of = [](TopologyKind kind, int64_t p) { return topology_dims(make_topology(kind, p, "")); };
  EXPECT_EQ(dims_of(TopologyKind::fattree, 16), "4x2");  // the fewest levels n >= 2
  EXPECT_EQ(dims_of(TopologyKind::fattree, 8), "2x3");
  EXPECT_EQ(dims_of(TopologyKind::fattree, 27), "3x3");
  EXPECT_EQ(dims_of(TopologyKind::fattree, 64), "8x2");
  EXPECT_EQ(dims_of(TopologyKind::fattree, int64_t{1} << 20), "1024x2");
  EXPECT_EQ(dims_of(TopologyKind::dragonfly, 6), "2x1x1");  // balanced: a = 2c = 2h, p = 2h^2 (2h^2 + 1)
  EXPECT_EQ(dims_of(TopologyKind::dragonfly, 72), "4x2x2");
  EXPECT_EQ(dims_of(TopologyKind::dragonfly, 342), "6x3x3");
  EXPECT_EQ(topology_shape(fattree("4x3")), "fattree 4x3 p=64");
  EXPECT_EQ(fattree("4x3").p, 64);
  EXPECT_EQ(dragonfly("4x2x2").p, 72);
  EXPECT_EQ(make_topology(TopologyKind::fattree, 64, "4x3").p, 64);
  for (int64_t p : {1, 2, 12, 24}) EXPECT_THROW(make_topology(TopologyKind::fattree, p, ""), std::invalid_argument) << p;
  for (const char* d : {"1x3", "4", "4x3x2", "2x40", "4x0"}) EXPECT_THROW(fattree(d), std::invalid_argument) << d;
  EXPECT_THROW(make_topology(TopologyKind::fattree, 16, "4x3"), std::invalid_argument);
  for (int64_t p : {1, 10, 73}) EXPECT_THROW(make_topology(TopologyKind::dragonfly, p, ""), std::invalid_argument) << p;
  for (const char* d : {"4x2", "4x2x2x1", "0x1x1", "100000x100000x1"}) EXPECT_THROW(dragonfly(d), std::invalid_argument) << d;
  EXPECT_THROW(make_topology(TopologyKind::dragonfly, 73, "4x2x2"), std::invalid_argument);
  EXPECT_THROW(make_topology(TopologyKind::ring, 8, "2x4"), std::invalid_argument);
}

// ---- link classes ----

// A small instance of every kind.
Topology example(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::mesh:
    case TopologyKind::torus: return make_topology(kind, 0, "3x4");
    case TopologyKind::bintree: return make_topology(kind, 7, "");
    case TopologyKind::fattree: return fattree("3x3");
    case TopologyKind::dragonfly: return dragonfly("3x2x2");
    default: return make_topology(kind, 8, "");
  }
}

TEST(LinkClasses, EveryTopologyNamesItsClassesAndSortsItsLinks) {
  for (int k = 0; k < kTopologyCount; ++k) {
    const Topology t = example(TopologyKind(k));
    SCOPED_TRACE(topology_shape(t));
    const int count = topology_link_class_count(t);
    ASSERT_GE(count, 1);
    ASSERT_LE(count, kMaxLinkClasses);
    std::set<std::string> names;
    for (int c = 0; c < count; ++c) {
      names.insert(topology_link_class_name(t, c));
      EXPECT_EQ(topology_find_link_class(t, topology_link_class_name(t, c)), c);
    }
    EXPECT_EQ(int(names.size()), count) << "class names are distinct";
    EXPECT_EQ(topology_find_link_class(t, "nonesuch"), -1);
    for (int64_t id = 0; id < topology_link_ids(t); ++id) {
      int64_t from, to;
      if (!topology_link_endpoints(t, id, from, to)) continue;
      const int c = topology_link_class(t, id);
      ASSERT_GE(c, 0);
      ASSERT_LT(c, count);
      if (topology_is_grid(t.kind)) {  // dimK moves along extent K only
        const int64_t stride = row_major_stride(t.dims, t.ndims, c);
        EXPECT_EQ(from / (stride * t.dims[c]), to / (stride * t.dims[c]));
        EXPECT_EQ(from % stride, to % stride);
        EXPECT_NE(from, to);
      }
      if (t.kind == TopologyKind::fattree) {
        EXPECT_EQ(std::max(fattree_level(t, from), fattree_level(t, to)), c + 1);  // levelL: up into level L
      }
    }
  }
  auto names = [](const Topology& t) {
    std::vector<std::string> out;
    for (int c = 0; c < topology_link_class_count(t); ++c) out.push_back(topology_link_class_name(t, c));
    return out;
  };
  EXPECT_EQ(names(make_topology(TopologyKind::ring, 8, "")), (std::vector<std::string>{"link"}));
  EXPECT_EQ(names(make_topology(TopologyKind::full, 8, "")), (std::vector<std::string>{"link"}));
  EXPECT_EQ(names(make_topology(TopologyKind::mesh, 0, "3x4")), (std::vector<std::string>{"dim0", "dim1"}));
  EXPECT_EQ(names(make_topology(TopologyKind::torus, 0, "2x2x3")), (std::vector<std::string>{"dim0", "dim1", "dim2"}));
  EXPECT_EQ(names(fattree("4x3")), (std::vector<std::string>{"level1", "level2", "level3"}));
  EXPECT_EQ(names(dragonfly("4x2x2")), (std::vector<std::string>{"terminal", "local", "global"}));
}

// The link-class rule recomputed from a traced run: per step, every message's route and the load of
// each of its links (messages of the step on that link); its per-word term is the largest
// tw(class(l)) * m * load(l) over its links l, its time t_s + l t_h + term (cut-through) or
// t_s + l (t_h + term) (store-and-forward); a step costs its slowest message; steps add up.
double time_by_link_classes(const RunConfig& c, const RunResult& traced) {
  const Topology& t = physical_topology(c);
  double total = 0;
  for (const TraceStep& step : traced.trace) {
    std::map<int64_t, int64_t> load;
    for (const TraceMessage& m : step.messages)
      for (int64_t id : topology_route(t, m.from, m.to)) ++load[id];
    double slowest = 0;
    for (const TraceMessage& m : step.messages) {
      const std::vector<int64_t> route = topology_route(t, m.from, m.to);
      double term = 0;
      for (int64_t id : route) term = std::max(term, c.cost.tw_of_class(topology_link_class(t, id)) * double(m.words) * double(load[id]));
      const double l = double(route.size());
      slowest =
          std::max(slowest, c.cost.routing == Routing::cut_through ? c.cost.ts + l * c.cost.th + term : c.cost.ts + l * (c.cost.th + term));
    }
    total += slowest;
  }
  return total;
}

struct ClassCase {
  std::string algo;
  TopologyKind kind;
  std::string dims;
  int64_t p;
  std::vector<std::pair<std::string, double>> class_tw;
};

RunConfig class_config(const ClassCase& k, Routing routing) {
  RunConfig c = make_config(k.algo, k.kind, k.dims.empty() ? k.p : 0, k.dims, 6, OperatorKind::interval, 0);
  c.params.shift = 5;
  c.cost = CostParams{3, 1.5, 0.25, routing};
  for (const auto& [name, tw] : k.class_tw) {
    const int cls = topology_find_link_class(c.topology, name);
    EXPECT_GE(cls, 0) << name;
    c.cost.set_class_tw(cls, tw);
  }
  return c;
}

// Several classes with several times, on the new topologies and the old: both backends take the
// time the rule gives, and a slower class makes the run slower.
TEST(LinkClasses, EachLinkCostsTheWordTimeOfItsClass) {
  const std::vector<ClassCase> cases = {
      {"broadcast_binomial", TopologyKind::dragonfly, "4x2x2", 0, {{"global", 5}, {"local", 2}}},
      {"allgather_ring", TopologyKind::dragonfly, "4x2x2", 0, {{"global", 5}, {"local", 2}, {"terminal", 0.5}}},
      {"shift_ecube", TopologyKind::dragonfly, "3x2x2", 0, {{"global", 4}}},
      {"alltoall_ring", TopologyKind::dragonfly, "2x2x1", 0, {{"global", 4}}},
      {"reduce_binomial", TopologyKind::fattree, "3x3", 0, {{"level1", 1}, {"level2", 2}, {"level3", 4}}},
      {"allreduce_hypercube", TopologyKind::fattree, "2x4", 0, {{"level4", 8}}},
      {"allgather_mesh", TopologyKind::mesh, "3x4", 0, {{"dim0", 3}}},
      {"alltoall_mesh", TopologyKind::torus, "4x4", 0, {{"dim1", 2.5}}},
      {"allgather_hypercube", TopologyKind::ring, "", 8, {{"link", 2.5}}},
  };
  for (const ClassCase& k : cases)
    for (Routing routing : {Routing::cut_through, Routing::store_and_forward}) {
      SCOPED_TRACE(k.algo + " on " + topology_name(k.kind) + " " + k.dims + (routing == Routing::cut_through ? " cut-through" : " s&f"));
      RunConfig c = class_config(k, routing);
      c.trace = true;
      const RunResult cpu = run_cpu(c);
      ASSERT_TRUE(cpu.verified);
      EXPECT_DOUBLE_EQ(cpu.time, time_by_link_classes(c, cpu));
      c.trace = false;
      c.keep_buffers = false;
      const RunResult host = run_device_rounds_on_host(c);
      EXPECT_EQ(host.time, cpu.time);
      ASSERT_EQ(host.per_step.size(), cpu.per_step.size());
      for (size_t s = 0; s < cpu.per_step.size(); ++s) EXPECT_EQ(host.per_step[s].time, cpu.per_step[s].time) << "step " << s + 1;
      RunConfig plain = c;
      plain.cost.tw_class_set = 0;
      const RunResult without = run_cpu(plain);
      EXPECT_EQ(without.max_link_load, cpu.max_link_load) << "classes change times, not loads";
      if (k.class_tw.front().second > c.cost.tw) {
        EXPECT_GT(cpu.time, without.time);
      }
    }
}

// The smallest dragonfly, a = h = c = 1: two routers joined by one global link. A broadcast is one
// message over terminal, global, terminal: t_s + 3 t_h + tw_global m (cut-through) and
// t_s + 3 (t_h + tw_global m) (store-and-forward).
TEST(LinkClasses, AMessageOverAGlobalLinkTakesTheGlobalWordTime) {
  for (Routing routing : {Routing::cut_through, Routing::store_and_forward})
    for (int64_t m : {1, 10, 1000}) {
      RunConfig c = make_config("broadcast_binomial", TopologyKind::dragonfly, 0, "1x1x1", m);
      const double ts = 2, tw = 1, th = 0.5, tw_global = 7;
      c.cost = CostParams{ts, tw, th, routing};
      c.cost.set_class_tw(topology_find_link_class(c.topology, "global"), tw_global);
      const RunResult cpu = run_cpu(c), host = run_device_rounds_on_host(c);
      const double expected = routing == Routing::cut_through ? ts + 3 * th + tw_global * double(m) : ts + 3 * (th + tw_global * double(m));
      EXPECT_DOUBLE_EQ(cpu.time, expected) << m;
      EXPECT_EQ(host.time, cpu.time);
    }
}

// Without classes the per-word term is t_w m c, c the most loaded link of the route (DESIGN.md §3),
// on every topology; and giving every class the time t_w changes no time by a bit.
TEST(LinkClasses, DefaultsLeaveEveryTimeUnchanged) {
  const std::vector<ClassCase> cases = {
      {"allgather_hypercube", TopologyKind::ring, "", 8, {}},      {"broadcast_binomial_low_first", TopologyKind::ring, "", 8, {}},
      {"allgather_mesh", TopologyKind::mesh, "3x4", 0, {}},        {"alltoall_mesh", TopologyKind::torus, "4x4", 0, {}},
      {"alltoall_xor_ecube", TopologyKind::hypercube, "", 16, {}}, {"allreduce_hypercube", TopologyKind::tree, "", 8, {}},
      {"allgather_ring", TopologyKind::star, "", 6, {}},           {"alltoall_ring", TopologyKind::full, "", 6, {}},
      {"reduce_binomial", TopologyKind::linear, "", 5, {}},        {"scan_ring", TopologyKind::bintree, "", 7, {}},
      {"gather_binomial", TopologyKind::binomial, "", 8, {}},      {"allreduce_hypercube", TopologyKind::fattree, "3x2", 0, {}},
      {"alltoall_ring", TopologyKind::dragonfly, "2x2x1", 0, {}},
  };
  for (const ClassCase& k : cases)
    for (Routing routing : {Routing::cut_through, Routing::store_and_forward}) {
      SCOPED_TRACE(k.algo + " on " + topology_name(k.kind) + (routing == Routing::cut_through ? " cut-through" : " s&f"));
      RunConfig c = class_config(k, routing);
      c.trace = true;
      const RunResult plain = run_cpu(c);
      ASSERT_TRUE(plain.verified);
      // The rule of DESIGN.md §3, step by step: the slowest message, its congestion the busiest link.
      double expected = 0;
      for (const TraceStep& step : plain.trace) {
        std::map<int64_t, int64_t> load;
        for (const TraceMessage& m : step.messages)
          for (int64_t id : topology_route(c.topology, m.from, m.to)) ++load[id];
        double slowest = 0;
        for (const TraceMessage& m : step.messages) {
          int64_t congestion = 0;
          const std::vector<int64_t> route = topology_route(c.topology, m.from, m.to);
          for (int64_t id : route) congestion = std::max(congestion, load[id]);
          slowest = std::max(slowest, message_time(c.cost, m.words, int64_t(route.size()), congestion));
        }
        expected += slowest;
      }
      EXPECT_EQ(plain.time, expected);
      RunConfig every = c;
      every.trace = false;
      for (int cls = 0; cls < topology_link_class_count(c.topology); ++cls) every.cost.set_class_tw(cls, c.cost.tw);
      for (const RunResult& r : {run_cpu(every), run_device_rounds_on_host(every)}) {
        EXPECT_EQ(r.time, plain.time);
        ASSERT_EQ(r.per_step.size(), plain.per_step.size());
        for (size_t s = 0; s < r.per_step.size(); ++s) EXPECT_EQ(r.per_step[s].time, plain.per_step[s].time);
      }
    }
}

// A class the machine lacks, or a negative time, is refused before the run.
TEST(LinkClasses, BadClassTimesAreRefused) {
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 8);
  c.cost.set_class_tw(1, 2.0);  // a ring has one class
  EXPECT_THROW(run_cpu(c), ConfigError);
  RunConfig d = make_config("allgather_ring", TopologyKind::dragonfly, 0, "2x1x1");
  d.cost.set_class_tw(2, -1.0);
  EXPECT_THROW(run_cpu(d), ConfigError);
}

}  // namespace
