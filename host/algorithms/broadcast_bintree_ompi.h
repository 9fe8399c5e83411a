// The segmented binary-tree broadcast as Open MPI runs it (coll_tuned bcast algorithm 5,
// ompi_coll_base_bcast_intra_bintree on the tree of ompi_coll_base_topo_build_tree with fan-out 2):
// on ranks v relative to the root, rank v on level L = floor(lg(v + 1)) has the children v + 2^L
// (left) and v + 2^(L+1) (right), so each level is filled by the left children of the level above
// first, then by their right children:
//
//   p = 7:        0                 p = 5:      0           (broadcast_bintree_pipelined's heap
//              /     \                        /   \          numbering puts 3 and 4 both under 1)
//             1       2                      1     2
//            / \     / \                     |     |
//           3   5   4   6                    3     4
//
// The S segments (--segments) flow down as in broadcast_bintree_pipelined: rank v receives segment s
// in step 2s + lag(v) and sends it to its left child in the next step and to its right one in the
// step after. With v + 1 = 2^L + i, the path from the root turns right once per set bit of i, so
// lag(v) = L + popcount(i) = floor(lg(v + 1)) + popcount(v + 1) - 1: the heap's lag, rank for rank.
// The two trees therefore take the same steps and time (broadcast_bintree_pipelined's closed form)
// and differ only in who sends to whom.
#pragma once
#include "algorithms/broadcast_bintree_pipelined.h"

namespace ppsim {

// The parent of rank v >= 1 in Open MPI's binary tree: v - 2^L when v is a right child (i >= 2^(L-1)), else v - 2^(L-1).
PPSIM_HD inline int64_t ompi_bintree_parent(int64_t v) {
  const int level = floor_log2(v + 1);
  const int64_t i = v + 1 - (int64_t{1} << level);
  return i >= (int64_t{1} << (level - 1)) ? v - (int64_t{1} << level) : v - (int64_t{1} << (level - 1));
}

struct BroadcastBintreeOmpi : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_bintree_ompi";
  static constexpr const char* description =
      "Open MPI's segmented binary tree (coll_tuned 5): v -> v + 2^L, v + 2^(L+1) on level L, S segments (--segments)";
  static constexpr const char* formula_text = "(2(S - 1) + D)(t_s + t_w m/S), D = max depth + right turns ~ 2 log2 p (as broadcast_bintree_pipelined)";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) {
    return segments_fit(a) ? nullptr : "broadcast_bintree_ompi needs 1 <= --segments <= --m (a segment carries at least one word)";
  }

  static int rounds(const AlgoParams& a) { return BroadcastBintreePipelined::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return BroadcastBintreePipelined::formula(a, c); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (a.p == 2) return chain_segments_ops(a, id, round, out);
    const int64_t rank = pos_mod(id - a.root, a.p), lag = heap_lag(rank);
    const int64_t in = round - lag;  // segment in / 2 arrives now when in is even
    if (rank > 0 && in >= 0 && in % 2 == 0 && in / 2 < a.segments)
      recv_segment(a, pos_mod(ompi_bintree_parent(rank) + a.root, a.p), in / 2, out);
    const int64_t sent = round - lag - 1;  // segment sent / 2 leaves now, to the left child when sent is even
    if (sent < 0 || sent / 2 >= a.segments) return;
    const int64_t child = rank + (int64_t{1} << (floor_log2(rank + 1) + int(sent % 2)));
    if (child < a.p) send_segment(a, pos_mod(child + a.root, a.p), sent / 2, out);
  }
};

}  // namespace ppsim
