// The segments of the pipelined broadcasts (broadcast_chain, broadcast_bintree_pipelined,
// broadcast_double_binary_tree): the m words travel as S = AlgoParams::segments pieces. When S
// does not divide m, the first r = m mod S segments carry ceil(m/S) words and the others
// floor(m/S), the larger ones first: they leave the pipeline first, so only the steps before the
// last large segment arrives pay for the extra word. S may not exceed m (a segment carries at
// least one word).
//
//   m = 10, S = 4:  | 3 | 3 | 2 | 2 |      segment s starts at s floor(m/S) + min(s, r)
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

PPSIM_HD inline int64_t segment_offset(const AlgoParams& a, int64_t s) {
  const int64_t r = a.m % a.segments;
  return s * (a.m / a.segments) + (s < r ? s : r);
}
PPSIM_HD inline int64_t segment_words(const AlgoParams& a, int64_t s) { return a.m / a.segments + (s < a.m % a.segments ? 1 : 0); }

// Segment s of kData to `to`, or from `from` (copied into place).
PPSIM_HD inline void send_segment(const AlgoParams& a, int64_t to, int64_t s, StepOps& out) {
  out.add_send(to, kData, segment_offset(a, s), segment_words(a, s));
}
PPSIM_HD inline void recv_segment(const AlgoParams& a, int64_t from, int64_t s, StepOps& out) {
  out.add_recv(from, kData, segment_offset(a, s), segment_words(a, s), RecvMode::copy);
}

// The limits every pipelined broadcast shares: at least one word per segment, and a step count
// that fits the clock's int.
inline bool segments_fit(const AlgoParams& a) { return a.segments >= 1 && a.segments <= a.m && a.p + 2 * a.segments < (int64_t{1} << 30); }

// The time of a pipeline of `steps` steps whose last `small_steps` steps carry only segments of
// floor(m/S) words and whose other steps each carry a segment of ceil(m/S) words (when S divides
// m the two sizes agree and small_steps does not matter).
inline double pipelined_time(const AlgoParams& a, const CostParams& c, int64_t steps, int64_t small_steps) {
  const int64_t small = a.m / a.segments, big = small + (a.m % a.segments ? 1 : 0);
  if (big == small) small_steps = 0;
  return double(steps - small_steps) * (c.ts + c.tw * double(big)) + double(small_steps) * (c.ts + c.tw * double(small));
}

// The chain root -> root+1 -> ... (ranks relative to the root): rank i sends segment s in step
// s + i + 1 and receives it in step s + i, so in one step it receives segment s while it sends
// segment s - 1 (one send and one receive: single-port). p - 2 + S steps for p >= 2.
PPSIM_HD inline void chain_segments_ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  const int64_t rank = pos_mod(id - a.root, a.p);
  const int64_t out_seg = round - rank - 1, in_seg = round - rank;
  if (rank + 1 < a.p && out_seg >= 0 && out_seg < a.segments) send_segment(a, pos_mod(id + 1, a.p), out_seg, out);
  if (rank > 0 && in_seg >= 0 && in_seg < a.segments) recv_segment(a, pos_mod(id - 1, a.p), in_seg, out);
}
inline int chain_steps(const AlgoParams& a) { return a.p < 2 ? 0 : int(a.p - 2 + a.segments); }

}  // namespace ppsim
