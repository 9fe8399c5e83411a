// NCCL's tree all-reduce: a double binary tree between the N = p/G nodes of a two-level machine
// (G = AlgoParams::node_size; G = 1, N = p on any other topology), a chain inside every node,
// reduce going up and broadcast coming down, pipelined in S segments (--segments): tree A carries
// segments 0, 2, 4, ..., tree B 1, 3, 5, ...
//
// Between nodes (NCCL's double binary tree): tree A is the in-order binary tree on node labels
// 1 .. N-1 (InorderTree) under node 0, whose one child is the largest power of two <= N - 1; tree
// B is tree A with node v renamed N - 1 - v (N even: mirrored) or (v + 1) mod N (N odd: shifted),
// so the leaves of one tree (odd labels) are interior in the other.
// Inside a node (NCCL's intra-node chain): tree b's chain starts at its head, local index
// h_b = b G/2, and runs h_b, h_b + 1, ... (mod G); the head talks to the network (to the heads of
// the parent and child nodes), every other accelerator only to its chain neighbours.
//
//   N = 4, G = 2, tree A:  node 0 (ranks 0 > 1) - node 2 (4 > 5) - node 1 (2 > 3)
//                                                              \ - node 3 (6 > 7)
//
// Heights and depths in the whole tree: a chain member k >= 1 places from its head has height
// G - 1 - k; a head has height hn + G - 1, hn its node's height in the node tree (for node label
// y >= 1 the exponent of y's lowest set bit, for node 0 1 + floor(log2(N - 1))); the tree's
// height H = hn(0) + G - 1 (N >= 2), and a rank at node depth dn, k places down its chain, has
// depth dn + k. The i-th segment of a tree leaves a rank of height h for its parent in step
// i + h + 1 (the children's partials, sent no later than i + h, are folded in on receipt); the root
// has it whole after step i + H and sends it down in step i + H + 1; a rank at depth d receives it
// in step i + H + d and passes it on in the next step. Partials fold in tree order: ⊕ must be
// commutative.
//   steps = ceil(S/2) - 1 + 2H;  T = (ceil(S/2) - 1 + H)(t_s + (t_w + gamma) b) + H (t_s + t_w b),
//   b = m/S (S | m), under 8 ports (a head may send up, send down to three children and receive
//   from them in one step, in each tree) and without congestion.
// With C channels (--channels, C <= G/2), as NCCL runs a pair of trees a channel: pair c has its
// heads at local indices c (G/2)/C and G/2 + c (G/2)/C, so the 2C trees reach the network through
// 2C distinct accelerators (and their NICs) of every node; tree j carries segments j, j + 2C, ...,
// and steps = ceil(S/2C) - 1 + 2H. A rank may then head two trees and be a chain member of the
// others: 4C + 4 ports at most.
#pragma once
#include "algorithms/broadcast_double_binary_tree.h"  // InorderTree

namespace ppsim {

struct NcclTree {
  int64_t p, g, n;     // processors, accelerators per node, nodes
  int b;               // 0: tree A, 1: tree B
  int64_t first = 0;   // the local index of tree A's head (a channel's pair of trees: its own heads)
  PPSIM_HD int64_t head() const { return (first + b * (g / 2)) % g; }
  PPSIM_HD int64_t node_of_label(int64_t v) const { return b == 0 ? v : n % 2 == 0 ? n - 1 - v : (v + 1) % n; }
  PPSIM_HD int64_t label_of_node(int64_t x) const { return b == 0 ? x : n % 2 == 0 ? n - 1 - x : (x + n - 1) % n; }
  PPSIM_HD int64_t chain_index(int64_t r) const { return pos_mod(r % g - head(), g); }
  PPSIM_HD int64_t rank(int64_t node, int64_t k) const { return node * g + (head() + k) % g; }
  PPSIM_HD int node_height(int64_t v) const {
    if (n < 2) return 0;
    return v == 0 ? 1 + floor_log2(n - 1) : floor_log2(v & -v);
  }
  PPSIM_HD int height(int64_t r) const {
    const int64_t k = chain_index(r);
    return k > 0 ? int(g - 1 - k) : node_height(label_of_node(r / g)) + int(g - 1);
  }
  PPSIM_HD int tree_height() const { return node_height(0) + int(g - 1); }
  PPSIM_HD int depth(int64_t r) const {
    const int64_t v = label_of_node(r / g);
    return (v == 0 ? 0 : InorderTree{n - 1}.depth(v)) + int(chain_index(r));
  }
  PPSIM_HD int64_t parent(int64_t r) const {  // -1: the root
    const int64_t k = chain_index(r), x = r / g;
    if (k > 0) return rank(x, k - 1);
    const int64_t v = label_of_node(x);
    return v == 0 ? -1 : rank(node_of_label(InorderTree{n - 1}.parent(v)), 0);
  }
  // The children of r (at most three: the chain's next, two node heads); returns how many.
  PPSIM_HD int children(int64_t r, int64_t out[3]) const {
    const int64_t k = chain_index(r), x = r / g;
    int count = 0;
    if (k + 1 < g) out[count++] = rank(x, k + 1);
    if (k > 0 || n < 2) return count;
    const int64_t v = label_of_node(x);
    const InorderTree t{n - 1};
    const int64_t kids[2] = {v == 0 ? t.top() : t.left(v), v == 0 ? 0 : t.right(v)};
    for (int64_t y : kids)
      if (y != 0) out[count++] = rank(node_of_label(y), 0);
    return count;
  }
};

// Tree b of channel c: channel c's pair has its heads at local indices c (G/2)/C and G/2 + c (G/2)/C,
// so C pairs (C <= G/2) bring C trees A and C trees B to distinct accelerators and NICs of a node.
PPSIM_HD inline NcclTree nccl_tree(const AlgoParams& a, int b, int c = 0) {
  const int64_t g = a.node_size >= 1 && a.p % a.node_size == 0 ? a.node_size : 1;
  const int64_t pairs = a.channels > 1 ? a.channels : 1;
  return NcclTree{a.p, g, a.p / g, b, int64_t(c) * (g / 2) / pairs};
}

struct AllreduceNcclTree : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_nccl_tree";
  static constexpr const char* description =
      "NCCL's tree: a double binary tree between nodes, a chain inside each, reduce up and broadcast down, pipelined in "
      "--segments segments; --channels pairs of trees with heads of their own; 8 ports (4C + 4 with C channels)";
  static constexpr const char* formula_text =
      "(ceil(S/2) - 1 + H)(t_s + (t_w + gamma) m/S) + H (t_s + t_w m/S), H = floor(log2(N-1)) + G (S | m)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr int sends_per_step = 8;
  static const char* rejects(const AlgoParams& a) {
    if (!segments_fit(a)) return "allreduce_nccl_tree needs 1 <= --segments <= --m (a segment carries at least one word)";
    const int64_t g = a.node_size >= 1 && a.p % a.node_size == 0 ? a.node_size : 1;
    if (a.channels > 1 && a.channels > g / 2)
      return "allreduce_nccl_tree's --channels (pairs of trees, each with heads of its own) is at most half a node's accelerators";
    if (a.channels > 1 && a.segments < 2 * a.channels) return "allreduce_nccl_tree needs --segments >= 2 --channels (a segment for every tree)";
    return nullptr;
  }
  // The trees of C channels: tree j carries segments j, j + 2C, j + 4C, ... (channel j / 2, A where j
  // is even).
  PPSIM_HD static int64_t trees(const AlgoParams& a) { return 2 * (a.channels > 1 ? a.channels : 1); }

  PPSIM_HD static int rounds(const AlgoParams& a) {
    return a.p < 2 ? 0 : int((a.segments + trees(a) - 1) / trees(a) - 1 + 2 * nccl_tree(a, 0).tree_height());
  }
  // Step by step: the largest segment moving up (it combines) and the largest moving down (one
  // channel: several share the chains' links, which this form does not count).
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.channels > 1) return no_formula();
    const int64_t half = (a.segments + 1) / 2, h = nccl_tree(a, 0).tree_height();
    double t = 0;
    for (int64_t step = 1; step <= rounds(a); ++step) {
      const int64_t up = step - h > 0 ? step - h : 0, down = step - 2 * h > 0 ? step - 2 * h : 0;  // tree A's first in flight
      const double up_time = up < half && up <= step - 1 ? largest_message_time(c, segment_words(a, 2 * up), true) : 0.0;
      const double down_time = down < half && down <= step - h - 1 ? largest_message_time(c, segment_words(a, 2 * down), false) : 0.0;
      t += up_time > down_time ? up_time : down_time;
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t nt = trees(a);
    for (int64_t j = 0; j < nt; ++j) {
      const NcclTree tree = nccl_tree(a, int(j % 2), int(j / 2));
      const int64_t count = (a.segments + nt - 1 - j) / nt, hh = tree.tree_height();
      const int64_t h = tree.height(id), d = tree.depth(id), parent = tree.parent(id);
      int64_t kids[3];
      const int nkids = tree.children(id, kids);
      auto seg = [&](int64_t i) { return nt * i + j; };
      if (const int64_t i = round - h - 1; parent >= 0 && i >= 0 && i < count)  // up: my partial to my parent
        out.add_send(parent, kData, segment_offset(a, seg(i)), segment_words(a, seg(i)));
      for (int k = 0; k < nkids; ++k)  // up: a child's partial, sent in step i + h(child) + 1
        if (const int64_t i = round - tree.height(kids[k]) - 1; i >= 0 && i < count)
          out.add_recv(kids[k], kData, segment_offset(a, seg(i)), segment_words(a, seg(i)), RecvMode::recv_op_slot);
      if (const int64_t i = round - hh - d; parent >= 0 && i >= 0 && i < count)  // down: the result from my parent
        out.add_recv(parent, kData, segment_offset(a, seg(i)), segment_words(a, seg(i)), RecvMode::copy);
      if (const int64_t i = round - hh - d - 1; i >= 0 && i < count)  // down: the result to my children
        for (int k = 0; k < nkids; ++k) out.add_send(kids[k], kData, segment_offset(a, seg(i)), segment_words(a, seg(i)));
    }
  }
};

}  // namespace ppsim
