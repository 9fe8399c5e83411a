// Exhaustive searches over a topology's link graph, for the tests of the metrics and routes: the
// graph from the link list, breadth-first distances, unit-capacity minimum cuts, the bisection and
// arc connectivity by trying every split, and a route walked link by link.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <set>
#include <vector>

#include "ppsim/topology.h"
#include "machine/topologies/routing.h"

namespace ppsim::testing_support {

struct Graph {
  int64_t nodes = 0, procs = 0;
  std::vector<std::vector<int64_t>> adj;  // undirected, from the directed link list
  std::set<std::pair<int64_t, int64_t>> directed;
};

inline Graph graph_of(const Topology& t) {
  Graph g;
  g.nodes = topology_nodes(t);
  g.procs = t.p;
  g.adj.resize(size_t(g.nodes));
  int64_t space = topology_link_ids(t);
  for (int64_t id = 0; id < space; ++id) {
    int64_t a, b;
    if (!topology_link_endpoints(t, id, a, b)) continue;
    g.directed.insert({a, b});
  }
  for (auto [a, b] : g.directed) g.adj[size_t(a)].push_back(b);
  return g;
}

inline std::vector<int64_t> bfs(const Graph& g, int64_t s) {
  std::vector<int64_t> dist(size_t(g.nodes), -1);
  std::queue<int64_t> q;
  dist[size_t(s)] = 0;
  q.push(s);
  while (!q.empty()) {
    int64_t u = q.front();
    q.pop();
    for (int64_t v : g.adj[size_t(u)])
      if (dist[size_t(v)] < 0) {
        dist[size_t(v)] = dist[size_t(u)] + 1;
        q.push(v);
      }
  }
  return dist;
}

// Max flow with unit capacities on every undirected link, from the set `src` to the set `dst`.
inline int64_t min_cut(const Graph& g, const std::vector<int>& side /* 1: source, 2: sink, 0: free */) {
  int64_t n = g.nodes + 2, S = g.nodes, T = g.nodes + 1;
  std::vector<std::vector<int64_t>> cap(size_t(n), std::vector<int64_t>(size_t(n), 0));
  for (auto [a, b] : g.directed) cap[size_t(a)][size_t(b)] = 1;  // both directions exist
  for (int64_t v = 0; v < g.nodes; ++v) {
    if (side[size_t(v)] == 1) cap[size_t(S)][size_t(v)] = 1 << 20;
    if (side[size_t(v)] == 2) cap[size_t(v)][size_t(T)] = 1 << 20;
  }
  int64_t flow = 0;
  while (true) {
    std::vector<int64_t> prev(size_t(n), -1);
    std::queue<int64_t> q;
    q.push(S);
    prev[size_t(S)] = S;
    while (!q.empty() && prev[size_t(T)] < 0) {
      int64_t u = q.front();
      q.pop();
      for (int64_t v = 0; v < n; ++v)
        if (prev[size_t(v)] < 0 && cap[size_t(u)][size_t(v)] > 0) {
          prev[size_t(v)] = u;
          q.push(v);
        }
    }
    if (prev[size_t(T)] < 0) return flow;
    for (int64_t v = T; v != S; v = prev[size_t(v)]) {
      --cap[size_t(prev[size_t(v)])][size_t(v)];
      ++cap[size_t(v)][size_t(prev[size_t(v)])];
    }
    ++flow;
  }
}

// Fewest links separating the processors into halves floor(p/2) / ceil(p/2), switches free.
inline int64_t exhaustive_bisection(const Graph& g) {
  int64_t p = g.procs, best = -1;
  for (uint32_t mask = 0; mask < (1u << p); ++mask) {
    if (__builtin_popcount(mask) != p / 2) continue;
    if (p % 2 == 0 && (mask & 1u) == 0) continue;  // equal halves: fix processor 0 on side 1 (symmetry)
    std::vector<int> side(size_t(g.nodes), 0);
    for (int64_t v = 0; v < p; ++v) side[size_t(v)] = (mask >> v) & 1u ? 1 : 2;
    int64_t cut = min_cut(g, side);
    if (best < 0 || cut < best) best = cut;
  }
  if (p == 1) return 0;
  return best;
}

inline int64_t exhaustive_arc_connectivity(const Graph& g) {
  int64_t best = -1;
  for (int64_t t = 1; t < g.nodes; ++t) {
    std::vector<int> side(size_t(g.nodes), 0);
    side[0] = 1;
    side[size_t(t)] = 2;
    int64_t c = min_cut(g, side);
    if (best < 0 || c < best) best = c;
  }
  return best < 0 ? 0 : best;
}

// The route s -> d walked link by link: its length, or -1 if it is not a chain of links from s to d.
inline int64_t route_length(const Topology& t, int64_t s, int64_t d) {
  int64_t at = s, n = 0;
  bool ok = true;
  for_each_route_link(t, s, d, [&](int64_t id) {
    int64_t a, b;
    ok = ok && topology_link_endpoints(t, id, a, b) && a == at;
    at = b;
    ++n;
  });
  return ok && at == d ? n : -1;
}

}  // namespace ppsim::testing_support
