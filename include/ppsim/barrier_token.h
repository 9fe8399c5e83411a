// A barrier's knowledge token (docs/DESIGN.md §6): a barrier moves no data, so to verify one every
// processor holds one word saying which ranks it knows to have entered the barrier — through a
// causal chain of messages — and every message carries its sender's word. The word is a cyclic
// interval of ranks: start, start + 1, ..., start + len - 1 (mod p).
//
//   word = kTokenTag | start << 32 | len     with start < p and 1 <= len <= p
//
// Processor i starts with (i, 1). A receive merges the tokens (token_merge: the union when the two
// intervals overlap or touch, else kTokenPoison, which is no token and spoils every merge it
// enters). Every step of this keeps a token a subset of what its holder truly knows, so a token
// that covers all p ranks (canonically (0, p)) proves that its holder has heard from everyone; a
// pattern whose knowledge is not one interval at some receive is refused (poison) rather than
// verified: false alarms are possible for exotic schedules, a wrong barrier passing is not.
// Words without the tag (every operator's "unset", a zeroed word) are not tokens either.
#pragma once
#include "ppsim/hd.h"

namespace ppsim {

inline constexpr uint64_t kTokenTag = uint64_t{1} << 63;
inline constexpr uint64_t kTokenPoison = 0;

PPSIM_HD inline uint64_t token_make(int64_t start, int64_t len) { return kTokenTag | (uint64_t(start) << 32) | uint64_t(len); }
PPSIM_HD inline int64_t token_start(uint64_t w) { return int64_t((w >> 32) & 0x7FFFFFFFu); }
PPSIM_HD inline int64_t token_len(uint64_t w) { return int64_t(uint32_t(w)); }
PPSIM_HD inline bool token_valid(uint64_t w, int64_t p) {
  return (w & kTokenTag) != 0 && token_start(w) < p && token_len(w) >= 1 && token_len(w) <= p;
}
// Every rank known: the token a processor must hold when it leaves the barrier.
PPSIM_HD inline uint64_t token_full(int64_t p) { return token_make(0, p); }

// The union of two tokens of a p-processor run, or kTokenPoison when it is not one cyclic interval.
PPSIM_HD inline uint64_t token_merge(uint64_t x, uint64_t y, int64_t p) {
  if (!token_valid(x, p) || !token_valid(y, p)) return kTokenPoison;
  const int64_t s1 = token_start(x), l1 = token_len(x), s2 = token_start(y), l2 = token_len(y);
  const int64_t d = pos_mod(s2 - s1, p);  // where y starts, counted from x's start
  if (d <= l1) {                          // y starts inside x or right after it: x's start begins the union
    const int64_t len = l1 > d + l2 ? l1 : d + l2;
    return len >= p ? token_full(p) : token_make(s1, len);
  }
  if (d + l2 >= p) {  // a gap after x, but y runs round to x's start: y's start begins the union
    const int64_t len = l2 > p + l1 - d ? l2 : p + l1 - d;
    return len >= p ? token_full(p) : token_make(s2, len);
  }
  return kTokenPoison;  // gaps on both sides
}

}  // namespace ppsim
