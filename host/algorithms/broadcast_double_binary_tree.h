// Double binary tree broadcast (NCCL's trees, Sanders-Speck-Traff's two-tree idea): the p - 1
// processors other than the root (ranks 1..q, q = p - 1, relative to the root) form two binary trees,
// and the root feeds the even segments to tree A and the odd ones to tree B. Tree A is NCCL's
// in-order tree on 1..q: its top is the largest power of two <= q, x with lowest set bit 2^j has the
// children x - 2^(j-1) and the first of x + 2^(j-1), x + 2^(j-2), ... that is <= q; the odd ranks
// are its leaves. Tree B is tree A mirrored (x -> q + 1 - x) when q is even, shifted (x -> x mod q + 1)
// when q is odd: the interior ranks of each tree are leaves of the other, so every processor is a
// leaf in at least one.
//
//   q = 6:   tree A:    4          tree B (mirror):    3      interior of A: 2, 4, 6
//                     /   \                          /   \    interior of B: 1, 3, 5
//                    2     6                        5     1
//                   / \   /                        / \   /
//                  1   3 5                        6   4 2
//
// Ports: 2 (--ports 2; sends_per_step = 2). In every step the root sends one segment to each top,
// an interior processor sends the segment it received last to both its children at once, and a
// processor receives from its parent in A and its parent in B. A node at depth d (the tops have
// depth 1) receives the i-th segment of its tree in step i + d and passes it on in step i + d + 1.
// Both trees have height H = floor(log2 q) + 1 below the root, so with ceil(S/2) segments in A:
//   steps = ceil(S/2) + floor(log2(p - 1))   (p >= 3; p = 2 is the chain: S steps, one link)
//   T = (ceil(S/2) + floor(log2(p - 1)))(t_s + t_w n/S)                      when S divides n = m,
// otherwise (pipeline_segments.h) the last ceil(S/2) - ceil(r/2) steps carry floor(n/S) words and
// the others ceil(n/S). With 2 ports this halves the chain's bandwidth term: ~ (n/2) t_w.
#pragma once
#include "algorithms/pipeline_segments.h"

namespace ppsim {

// The in-order binary tree on positions 1..q (NCCL's btree without its rank 0).
struct InorderTree {
  int64_t q;
  PPSIM_HD int64_t top() const { return int64_t{1} << floor_log2(q); }
  PPSIM_HD int64_t parent(int64_t y) const {  // 0: y is the top
    if (y == top()) return 0;
    const int64_t bit = y & -y, up = (y ^ bit) | (bit << 1);
    return up > q ? (y ^ bit) : up;
  }
  PPSIM_HD int64_t left(int64_t y) const { return (y & 1) ? 0 : y - (y & -y) / 2; }  // 0: none
  PPSIM_HD int64_t right(int64_t y) const {
    int64_t h = (y & -y) / 2;
    while (h >= 1 && y + h > q) h /= 2;
    return h >= 1 ? y + h : 0;
  }
  PPSIM_HD int depth(int64_t y) const {  // the top: 1 (one link below the broadcast root)
    int d = 1;
    for (; y != top(); y = parent(y)) ++d;
    return d;
  }
};

// Tree B's relabeling of tree A's positions, and back (0 stays 0: the broadcast root).
PPSIM_HD inline int64_t tree_b_label(int64_t q, int64_t y) { return y == 0 ? 0 : q % 2 == 0 ? q + 1 - y : y % q + 1; }
PPSIM_HD inline int64_t tree_b_position(int64_t q, int64_t x) { return x == 0 ? 0 : q % 2 == 0 ? q + 1 - x : (x + q - 2) % q + 1; }

struct BroadcastDoubleBinaryTree : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_double_binary_tree";
  static constexpr const char* description =
      "two in-order binary trees (NCCL), each carrying half of the S segments; every processor a leaf in one; 2 ports";
  static constexpr const char* formula_text = "(ceil(S/2) + floor(log2(p - 1)))(t_s + t_w m/S) under 2 ports";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr int sends_per_step = 2;
  static const char* rejects(const AlgoParams& a) {
    return segments_fit(a) ? nullptr : "broadcast_double_binary_tree needs 1 <= --segments <= --m (a segment carries at least one word)";
  }

  static int rounds(const AlgoParams& a) { return a.p <= 2 ? chain_steps(a) : int((a.segments + 1) / 2 + floor_log2(a.p - 1)); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int64_t r = a.m % a.segments;
    if (a.p <= 2) return pipelined_time(a, c, rounds(a), a.p < 2 ? 0 : a.segments - r);
    return pipelined_time(a, c, rounds(a), (a.segments + 1) / 2 - (r + 1) / 2);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (a.p == 2) return chain_segments_ops(a, id, round, out);
    const InorderTree tree{a.p - 1};
    const int64_t rank = pos_mod(id - a.root, a.p), q = tree.q;
    auto proc = [&](int64_t label) { return pos_mod(label + a.root, a.p); };
    // Tree A carries segments 0, 2, 4, ... (its i-th: 2i); tree B 1, 3, 5, ... (2i + 1).
    for (int b = 0; b < 2; ++b) {
      const int64_t count = (a.segments + 1 - b) / 2;
      auto label = [&](int64_t y) { return b ? tree_b_label(q, y) : y; };
      if (rank == 0) {  // the root feeds the tree's top its i-th segment in step i + 1
        if (round - 1 < count) send_segment(a, proc(label(tree.top())), 2 * (round - 1) + b, out);
        continue;
      }
      const int64_t y = b ? tree_b_position(q, rank) : rank;
      const int64_t d = tree.depth(y), in = round - d, sent = round - d - 1;
      if (in >= 0 && in < count) recv_segment(a, proc(label(tree.parent(y))), 2 * in + b, out);
      if (sent >= 0 && sent < count) {
        if (const int64_t l = tree.left(y)) send_segment(a, proc(label(l)), 2 * sent + b, out);
        if (const int64_t r = tree.right(y)) send_segment(a, proc(label(r)), 2 * sent + b, out);
      }
    }
  }
};

}  // namespace ppsim
