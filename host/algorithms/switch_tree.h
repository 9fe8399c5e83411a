// In-network reduction on the two-level clusters (docs/DESIGN.md §3e): the switch agents of a run
// (kSwitchAgents; processor p + s is node p + s of the topology) and the stages the NVLS, NVLS-tree
// and CollNet units are built from.
//
// Node ids (host/machine/topologies/cluster.h): accelerators 0..p-1, the NVSwitch of node n at
// p + n, the NICs after them, then the network's switches from network() on. Accelerator r's
// slice g = r mod G leaves its node by NIC nic(r) on rail j = g / (G/K).
//
// The SHARP tree of rail j (CollNet's aggregation tree) reduces slice g (every g on rail j) of all
// N nodes:
//   rails (--topology cluster)   rail j's leaf switch is the tree: its children are the NICs of
//                                rail j, one per node, in node order (L = 1 level).
//   fat tree (cluster-fattree)   the k-ary n-tree's up routes towards one top switch, T_j = j mod
//                                (NK/k): a level-l switch of the tree has label digits 0..l-2 equal
//                                to T_j's, its children are the level-(l-1) switches (or, at level
//                                1, the NICs) below it that lead to a NIC of rail j, in label order,
//                                which is node order; L = n levels.
// A switch folds its children's partials in that order (the first copied, the others appended:
// slot = slot ⊕ received), so every slice is folded in rank order and a non-commutative ⊕ is
// honoured. The result comes back down the same tree.
//
// Stages: a unit is a sequence of stages, each one message hop of every slice; segment s of the
// --segments S pipeline is in stage x in round s + x, so a unit of X stages takes S + X - 1 rounds.
// The SHARP tree takes 2L stages from stage F: a rank sends slice g up in stage F, a level-l switch
// receives its children's partials in stage F + l - 1 and sends to its parent in F + l, the root
// (l = L) sends down in stage F + L, a level-l switch receives from its parent in F + 2L - l - 1
// and sends down in F + 2L - l, and the rank receives the result in stage F + 2L - 1.
#pragma once
#include <string>

#include "algorithms/pipeline_segments.h"

namespace ppsim {

struct ClusterNet {
  int64_t p, G, N, K, k, L;  // k: the fat tree's arity (0: rails, L = 1); L: the SHARP tree's levels

  PPSIM_HD static ClusterNet of(const AlgoParams& a) {
    const int64_t g = a.node_size >= 1 ? a.node_size : 1, k = a.dims[3];
    return ClusterNet{a.p, g, a.p / g, a.dims[2] >= 1 ? a.dims[2] : 1, k, k > 0 ? a.dims[4] : 1};
  }
  PPSIM_HD int64_t nvswitch(int64_t node) const { return p + node; }
  PPSIM_HD int64_t network() const { return p + N * (1 + K); }  // the id of network switch 0
  PPSIM_HD int64_t rail(int64_t g) const { return g / (G / K); }
  PPSIM_HD int64_t nic(int64_t r) const { return r / G * K + rail(r % G); }
  PPSIM_HD int64_t per_level() const { return k > 0 ? N * K / k : 1; }
  PPSIM_HD int64_t top(int64_t j) const { return j % per_level(); }
  PPSIM_HD int64_t power(int e) const {
    int64_t u = 1;
    for (int q = 0; q < e; ++q) u *= k;
    return u;
  }
  // The label of rail j's level-l switch above leaf label `leaf` (its digits 0..l-2 made T_j's).
  PPSIM_HD int64_t label_up(int64_t leaf, int l, int64_t j) const {
    int64_t label = leaf, unit = 1;
    for (int q = 0; q < l - 1; ++q, unit *= k) label += ((top(j) / unit) % k - (label / unit) % k) * unit;
    return label;
  }
  // Network switch index of rail j's level-l switch above NIC x.
  PPSIM_HD int64_t switch_above(int64_t x, int l, int64_t j) const { return k == 0 ? j : (l - 1) * per_level() + label_up(x / k, l, j); }
  // Whether NICs [lo, hi) include one of rail j.
  PPSIM_HD bool rail_in(int64_t lo, int64_t hi, int64_t j) const { return lo + pos_mod(j - lo, K) < hi; }
  // The NICs under the level-l switch `label` of a tree: [first, first + k^l).
  PPSIM_HD int64_t nics_from(int l, int64_t label) const { return label / power(l - 1) * power(l); }
  // Whether network switch (level l, label) is in rail j's tree.
  PPSIM_HD bool in_tree(int l, int64_t label, int64_t j) const {
    if (k == 0) return l == 1 && label == j;
    if (label_up(label, l, j) != label) return false;
    const int64_t lo = nics_from(l, label);
    return rail_in(lo, lo + power(l), j);
  }
  // The level and label of network switch s (rails: its rail's leaf at level 1, the spine at 2).
  PPSIM_HD int level_of(int64_t s) const { return k == 0 ? (s < K ? 1 : 2) : int(s / per_level()) + 1; }
  PPSIM_HD int64_t label_of(int64_t s) const { return k == 0 ? s : s % per_level(); }
  PPSIM_HD int64_t switch_id(int l, int64_t label) const { return network() + (k == 0 ? label : (l - 1) * per_level() + label); }
};

// Words [off, off + len) of segment s cut into G slices: slice g's offset and words (the first
// len mod G slices one word longer; a slice may be empty).
PPSIM_HD inline int64_t slice_offset(const AlgoParams& a, int64_t s, int64_t G, int64_t g) {
  const int64_t len = segment_words(a, s);
  return segment_offset(a, s) + g * (len / G) + (g < len % G ? g : len % G);
}
PPSIM_HD inline int64_t slice_words(const AlgoParams& a, int64_t s, int64_t G, int64_t g) {
  const int64_t len = segment_words(a, s);
  return len / G + (g < len % G ? 1 : 0);
}

// What a message of the SHARP tree carries for slice g and segment s, from the subtree of nodes
// [n0, n1): all-reduce, slice g of the segment (the same words whatever the subtree); all-gather
// (gather), the segment of the blocks of ranks n G + g, n in [n0, n1), in the p m-word buffer.
struct SharpPiece {
  int64_t off, run, stride, count;
  PPSIM_HD int64_t words() const { return run * count; }
};
PPSIM_HD inline SharpPiece sharp_piece(const ClusterNet& net, const AlgoParams& a, bool gather, int64_t g, int64_t s, int64_t n0, int64_t n1) {
  if (!gather) return SharpPiece{slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g), slice_words(a, s, net.G, g), 1};
  return SharpPiece{(n0 * net.G + g) * a.m + segment_offset(a, s), segment_words(a, s), net.G * a.m, n1 - n0};
}

// The nodes [n0, n1) under the level-l switch `label` of rail j's tree.
PPSIM_HD inline void sharp_nodes(const ClusterNet& net, int l, int64_t label, int64_t j, int64_t& n0, int64_t& n1) {
  if (net.k == 0) {
    n0 = 0;
    n1 = net.N;
    return;
  }
  const int64_t lo = net.nics_from(l, label), hi = lo + net.power(l);
  const int64_t x0 = lo + pos_mod(j - lo, net.K), x1 = hi - 1 - pos_mod(hi - 1 - j, net.K);
  n0 = x0 / net.K;
  n1 = x1 / net.K + 1;
}

// The children of the level-l switch `label` in rail j's tree, in node order: f(id, n0, n1) with
// the child's nodes [n0, n1) (at level 1 the accelerators g of the nodes whose NICs hang below).
template <class F>
PPSIM_HD void sharp_children(const ClusterNet& net, int l, int64_t label, int64_t j, int64_t g, F&& f) {
  if (l == 1) {
    const int64_t lo = net.k == 0 ? 0 : label * net.k, hi = net.k == 0 ? net.N * net.K : lo + net.k;
    for (int64_t x = lo + pos_mod(j - lo, net.K); x < hi; x += net.K) f(x / net.K * net.G + g, x / net.K, x / net.K + 1);
    return;
  }
  const int64_t unit = net.power(l - 2);
  for (int64_t c = 0; c < net.k; ++c) {
    const int64_t child = label + (c - (label / unit) % net.k) * unit;
    if (!net.in_tree(l - 1, child, j)) continue;
    int64_t n0, n1;
    sharp_nodes(net, l - 1, child, j, n0, n1);
    f(net.switch_id(l - 1, child), n0, n1);
  }
}

// The segment in stage `stage` in this round (segment s is in stage x in round s + x), or -1.
PPSIM_HD inline int64_t segment_in(const AlgoParams& a, int round, int stage) {
  const int64_t s = int64_t(round) - stage;
  return s >= 0 && s < a.segments ? s : -1;
}

// The rounds of a unit of `stages` stages: segment s is in stage x in round s + x, so the last
// segment leaves the last stage in round S + stages - 1.
PPSIM_HD inline int switch_unit_rounds(const AlgoParams& a, int stages) { return a.p < 2 ? 0 : int(a.segments) + stages - 1; }

// A unit that crosses the network by the SHARP trees: on one node OneNode stages, where there is
// no network; on N > 1 nodes the trees' 2L stages and Around more inside the nodes.
template <int OneNode, int Around>
struct SharpTreeUnit : AlgorithmDefaults {
  PPSIM_HD static int stages(const AlgoParams& a) {
    const ClusterNet net = ClusterNet::of(a);
    return net.N < 2 ? OneNode : int(2 * net.L + Around);
  }
  static int rounds(const AlgoParams& a) { return switch_unit_rounds(a, stages(a)); }
};

// The SHARP tree's stages (F .. F + 2L - 1) of round `round` for processor or agent `id`: a rank
// sends its piece up and takes the result back; a switch of rail j's tree folds (all-reduce) or
// gathers (all-gather) its children's pieces and returns the whole.
PPSIM_HD inline void sharp_tree_ops(const ClusterNet& net, const AlgoParams& a, int64_t id, int round, int first, bool gather,
                                    StepOps& out) {
  const int L = int(net.L);
  auto send = [&](int64_t to, const SharpPiece& x) {
    if (x.words() > 0) out.add_send_strided(to, kData, x.off, x.run, x.stride, x.count);
  };
  auto recv = [&](int64_t from, const SharpPiece& x, RecvMode mode) {
    if (x.words() > 0) out.add_recv_strided(from, kData, x.off, x.run, x.stride, x.count, mode);
  };
  if (id < net.p) {
    const int64_t g = id % net.G, j = net.rail(g), node = id / net.G, leaf = net.network() + net.switch_above(net.nic(id), 1, j);
    if (const int64_t s = segment_in(a, round, first); s >= 0) send(leaf, sharp_piece(net, a, gather, g, s, node, node + 1));
    if (const int64_t s = segment_in(a, round, first + 2 * L - 1); s >= 0) recv(leaf, sharp_piece(net, a, gather, g, s, 0, net.N), RecvMode::copy);
    return;
  }
  if (id < net.network()) return;
  const int64_t sw = id - net.network();
  const int l = net.level_of(sw);
  const int64_t label = net.label_of(sw);
  if (l > L) return;
  const int64_t per_rail = net.G / net.K;
  for (int64_t j = 0; j < net.K; ++j) {
    if (!net.in_tree(l, label, j)) continue;
    const int64_t parent = l < L ? net.switch_id(l + 1, net.label_up(label, l + 1, j)) : -1;
    int64_t n0, n1;
    sharp_nodes(net, l, label, j, n0, n1);
    for (int64_t g = j * per_rail; g < (j + 1) * per_rail; ++g) {
      if (const int64_t s = segment_in(a, round, first + l - 1); s >= 0) {  // up: the children's pieces, folded in node order
        bool first_child = true;
        sharp_children(net, l, label, j, g, [&](int64_t c, int64_t c0, int64_t c1) {
          recv(c, sharp_piece(net, a, gather, g, s, c0, c1), gather || first_child ? RecvMode::copy : RecvMode::slot_op_recv);
          first_child = false;
        });
      }
      if (const int64_t s = segment_in(a, round, first + l); parent >= 0 && s >= 0) send(parent, sharp_piece(net, a, gather, g, s, n0, n1));
      if (const int64_t s = segment_in(a, round, first + 2 * L - l - 1); parent >= 0 && s >= 0)
        recv(parent, sharp_piece(net, a, gather, g, s, 0, net.N), RecvMode::copy);
      if (const int64_t s = segment_in(a, round, first + 2 * L - l); s >= 0) {  // down: the whole result
        const SharpPiece whole = sharp_piece(net, a, gather, g, s, 0, net.N);
        sharp_children(net, l, label, j, g, [&](int64_t c, int64_t, int64_t) { send(c, whole); });
      }
    }
  }
}

// Why the machine cannot carry a SHARP tree per rail with switches of kMaxOps ports a step, or
// nullptr: a switch may fold its children's partials of every slice it serves and take the result
// from its parent in one step (and send as many), which must stay within kMaxOps messages.
inline const char* sharp_tree_rejects(const AlgoParams& a, const char* name) {
  static thread_local std::string why;
  const ClusterNet net = ClusterNet::of(a);
  if (net.N < 2) return nullptr;
  int64_t worst = 0;
  const int64_t per_rail = net.G / net.K;
  for (int l = 1; l <= int(net.L); ++l)
    for (int64_t label = 0; label < (net.k == 0 ? net.K : net.per_level()); ++label) {
      int64_t load = 0;
      for (int64_t j = 0; j < net.K; ++j) {
        if (!net.in_tree(l, label, j)) continue;
        int64_t children = 0;
        sharp_children(net, l, label, j, 0, [&](int64_t, int64_t, int64_t) { ++children; });
        load += (children + 1) * per_rail;
      }
      if (load > worst) worst = load;
    }
  if (worst <= kMaxOps) return nullptr;
  why = std::string(name) + ": a switch of this network would fold " + std::to_string(worst) + " messages in one step (at most " +
        std::to_string(kMaxOps) + "); use fewer nodes per rail or a fat tree of smaller arity (--topology cluster-fattree --dims NxGxKxA)";
  return why.c_str();
}

// What every pipelined switch unit refuses: segments without a word, and (sharp: it uses the
// network's SHARP trees) a network whose switches would fold too much in a step.
inline const char* switch_unit_rejects(const AlgoParams& a, const char* name, bool sharp) {
  static thread_local std::string why;
  if (!segments_fit(a)) {
    why = std::string(name) + " needs 1 <= --segments <= --m (a segment carries at least one word)";
    return why.c_str();
  }
  return sharp ? sharp_tree_rejects(a, name) : nullptr;
}

}  // namespace ppsim
