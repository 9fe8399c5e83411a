// Pipelined binary-tree broadcast: the S segments (--segments) flow down the binary tree in heap
// numbering on ranks relative to the root (rank i's children are 2i + 1 and 2i + 2). Single-port:
// a processor sends each segment to its left child, then in the next step to its right one, so it
// passes one segment on every two steps; rank i receives segment s in step 2s + lag(i) and sends it
// in steps 2s + lag(i) + 1 (left) and + 2 (right), where lag(i) = depth + right turns on the way
// down = floor(log2(i+1)) + popcount(i+1) - 1. In a step a processor receives at most one segment
// and sends at most one.
//
//   rank (lag), p = 7:          0 (0)             step 1: 0->1 seg 0
//                            /       \            step 2: 0->2 seg 0, 1->3 seg 0
//                        1 (1)       2 (2)        step 3: 0->1 seg 1, 1->4 seg 0, 2->5 seg 0
//                        /   \       /   \        step 4: 0->2 seg 1, 1->3 seg 1, 2->6 seg 0
//                    3 (2) 4 (3) 5 (3) 6 (4)      ... the last arrival: seg S-1 at 6 in step 2(S-1) + 4
//
// Steps: 2(S - 1) + D with D = max over ranks 1..p-1 of lag = max_{2 <= x <= p} floor(log2 x) +
// popcount(x) - 1 (D = 2(h - 1) for a complete tree of p = 2^h - 1); p = 2 is the chain (S steps).
// Every step from the first to the last arrival of segment r - 1 carries a large segment
// (pipeline_segments.h), the last 2(S - r) only small ones:
//   T = (2(S - 1) + D)(t_s + t_w n/S)                                       when S divides n = m,
//   T = (2(r - 1) + D)(t_s + t_w ceil(n/S)) + 2(S - r)(t_s + t_w floor(n/S))  otherwise.
#pragma once
#include <algorithm>

#include "algorithms/pipeline_segments.h"

namespace ppsim {

PPSIM_HD inline int64_t heap_lag(int64_t rank) { return floor_log2(rank + 1) + popcount64(rank + 1) - 1; }

// D = the largest lag of ranks 1..p-1 (p >= 2): with h = floor(log2 p), the best x <= p is p itself,
// 2^h - 1, or p with one set bit j < h cleared and every bit below j set.
inline int64_t heap_max_lag(int64_t p) {
  const int h = floor_log2(p);
  int64_t best = std::max<int64_t>(2 * h - 1, h + popcount64(p));
  for (int j = 0; j < h; ++j)
    if ((p >> j) & 1) best = std::max<int64_t>(best, h + popcount64(p >> (j + 1)) + j);
  return best - 1;
}

struct BroadcastBintreePipelined : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_bintree_pipelined";
  static constexpr const char* description = "S segments down a heap-numbered binary tree, each sent to the left then the right child";
  static constexpr const char* formula_text = "(2(S - 1) + D)(t_s + t_w m/S), D = max depth + right turns ~ 2 log2 p";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static const char* rejects(const AlgoParams& a) {
    return segments_fit(a) ? nullptr : "broadcast_bintree_pipelined needs 1 <= --segments <= --m (a segment carries at least one word)";
  }

  static int rounds(const AlgoParams& a) { return a.p <= 2 ? chain_steps(a) : int(2 * (a.segments - 1) + heap_max_lag(a.p)); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int64_t small_segments = a.segments - a.m % a.segments;
    if (a.p <= 2) return pipelined_time(a, c, rounds(a), a.p < 2 ? 0 : small_segments);
    return pipelined_time(a, c, rounds(a), 2 * small_segments);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (a.p == 2) return chain_segments_ops(a, id, round, out);
    const int64_t rank = pos_mod(id - a.root, a.p), lag = heap_lag(rank);
    const int64_t in = round - lag;  // segment in / 2 arrives now when in is even
    if (rank > 0 && in >= 0 && in % 2 == 0 && in / 2 < a.segments) recv_segment(a, pos_mod((rank - 1) / 2 + a.root, a.p), in / 2, out);
    const int64_t sent = round - lag - 1;  // segment sent / 2 leaves now, to the left child when sent is even
    const int64_t child = 2 * rank + 1 + (sent % 2);
    if (sent >= 0 && sent / 2 < a.segments && child < a.p) send_segment(a, pos_mod(child + a.root, a.p), sent / 2, out);
  }
};

}  // namespace ppsim
