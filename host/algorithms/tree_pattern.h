// The binomial-tree pattern shared by the broadcast and reduce algorithms (textbook Algs. 4-1..4-3,
// Fig. 4-2): n participants with ranks 0..n-1 (rank 0 the root), d = ceil(log2 n) rounds, the
// round using distance 2^i.
//
//   spread (broadcast), farthest first, n = 8:     round 1: 0->4
//                                                  round 2: 0->2, 4->6
//                                                  round 3: 0->1, 2->3, 4->5, 6->7
//   spread, nearest first: round 1: 0->1; round 2: 0->2, 1->3; round 3: 0..3 -> 4..7.
//
// A collect (reduction) runs a spread backwards: its round r is the spread's round d+1-r with
// every message reversed. Any n >= 1 works (textbook exercise 4.1): a partner >= n is skipped.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

enum class TreeRole : int8_t { idle, send, recv };
struct TreeStep {
  TreeRole role = TreeRole::idle;
  int64_t partner = -1;  // rank
};

PPSIM_HD inline TreeStep tree_spread_step(int64_t rank, int64_t n, int round, bool farthest_first) {
  int d = ceil_log2(n);
  int i = farthest_first ? d - round : round - 1;
  int64_t bit = int64_t{1} << i;
  TreeStep s;
  if (farthest_first) {
    int64_t r = rank & (2 * bit - 1);
    if (r == 0 && rank + bit < n) s = {TreeRole::send, rank + bit};
    else if (r == bit) s = {TreeRole::recv, rank - bit};
  } else {
    if (rank < bit && rank + bit < n) s = {TreeRole::send, rank + bit};
    else if (rank >= bit && rank < 2 * bit) s = {TreeRole::recv, rank - bit};
  }
  return s;
}

PPSIM_HD inline TreeStep tree_collect_step(int64_t rank, int64_t n, int round, bool spread_farthest_first) {
  TreeStep s = tree_spread_step(rank, n, ceil_log2(n) + 1 - round, spread_farthest_first);
  if (s.role == TreeRole::send) s.role = TreeRole::recv;
  else if (s.role == TreeRole::recv) s.role = TreeRole::send;
  return s;
}

// How a processor id becomes a tree rank: relative to the root (any p; Fig. 4-2) or by XOR with
// the root (textbook Alg. 4-2; p a power of two). XOR keeps every subtree an aligned block of ids.
enum class RankMap : int8_t { relative, xor_root };

PPSIM_HD inline int64_t tree_rank(RankMap map, int64_t id, int64_t root, int64_t p) {
  return map == RankMap::xor_root ? (id ^ root) : pos_mod(id - root, p);
}
PPSIM_HD inline int64_t tree_id(RankMap map, int64_t rank, int64_t root, int64_t p) {
  return map == RankMap::xor_root ? (rank ^ root) : pos_mod(rank + root, p);
}

// Broadcast of buffer kData[0, m) from a.root over the binomial tree.
template <class Ops>
PPSIM_HD void tree_broadcast_ops(const AlgoParams& a, int64_t id, int round, bool farthest_first, RankMap map, Ops& out) {
  TreeStep s = tree_spread_step(tree_rank(map, id, a.root, a.p), a.p, round, farthest_first);
  if (s.role == TreeRole::idle) return;
  int64_t partner = tree_id(map, s.partner, a.root, a.p);
  if (s.role == TreeRole::send) out.add_send(partner, kData, 0, a.m);
  else out.add_recv(partner, kData, 0, a.m, RecvMode::copy);
}

// Reduction of kData[0, m) to a.root: the broadcast tree run backwards. When the partials are
// contiguous blocks of ids, the fold keeps processor order (lower ids on the left).
PPSIM_HD inline void tree_reduce_ops(const AlgoParams& a, int64_t id, int round, bool spread_farthest_first, RankMap map, StepOps& out) {
  TreeStep s = tree_collect_step(tree_rank(map, id, a.root, a.p), a.p, round, spread_farthest_first);
  if (s.role == TreeRole::idle) return;
  int64_t partner = tree_id(map, s.partner, a.root, a.p);
  if (s.role == TreeRole::send) {
    out.add_send(partner, kData, 0, a.m);
  } else {
    out.add_recv(partner, kData, 0, a.m, fold_mode(id, partner));
  }
}

}  // namespace ppsim
