// The dependencies each operation of a GOAL schedule still waits for, a byte apiece, for its
// timings (goal_timing.cpp, goal_windows.h): six bits of count, and two the caller may keep a state
// in. A count of 63 or more (an operation that requires many: rare) lives in a side table, so that
// a schedule of millions of operations keeps a byte for each instead of five.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "goal/goal.h"

namespace ppsim::goal::detail {

class WaitCounts {
 public:
  explicit WaitCounts(const Schedule& s) : b_(s.size(), 0) {
    s.done.each_entry(s.first, [&](uint32_t j) { add(j); });
    s.start.each_entry(s.first, [&](uint32_t j) { add(j); });
  }
  bool ready(uint32_t i) const { return (b_[i] & kCount) == 0; }
  // One dependency of i met: whether it was the last.
  bool release(uint32_t i) {
    uint8_t& b = b_[i];
    if ((b & kCount) != kCount) return (--b & kCount) == 0;
    auto more = more_.find(i);
    if (--more->second < kCount) {
      b = uint8_t((b & ~kCount) | more->second);
      more_.erase(more);
    }
    return false;
  }
  uint8_t state(uint32_t i) const { return b_[i] >> 6; }
  void prefetch(uint32_t i) const { __builtin_prefetch(&b_[i]); }
  void set_state(uint32_t i, uint8_t s) { b_[i] = uint8_t((b_[i] & kCount) | s << 6); }

 private:
  static constexpr uint8_t kCount = 63;
  void add(uint32_t j) {
    uint8_t& b = b_[j];
    if ((b & kCount) + 1 < kCount) {
      ++b;
    } else if ((b & kCount) + 1 == kCount) {
      b |= kCount;
      more_[j] = kCount;
    } else {
      ++more_[j];
    }
  }
  std::vector<uint8_t> b_;
  std::unordered_map<uint32_t, uint32_t> more_;  // the counts of 63 and more
};

}  // namespace ppsim::goal::detail
