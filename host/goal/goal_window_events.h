// What the GOAL window timing (goal_windows.h) keeps for each rank: its pending events, in 32
// bytes each, and its unexpected messages; and the engine's order of operations made ready
// together.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "goal/goal_makers_log.h"
#include "loggp/loggp_events.h"

namespace ppsim::goal::detail {

// An operation waiting to run, or a message at (or on its way to) its receiver, in 32 bytes. Who
// made it (a PackedMade) is kept as how long before it its maker ran, its maker's entry in the log
// and its place among what its maker made; its maker's rank is its own where it is an operation
// (an operation is made ready by an event of its rank: a dependency never leaves its rank,
// DepLists) and its sender where it is a message. An operation's tag is kept in it where it is
// below kTagInSchedule, so that a send or a receive need not read its operation again (a cache
// miss: the operation was read when it was made ready, windows before); else it is read from the
// schedule.
struct PendingEvent {
  static constexpr uint32_t kTagInSchedule = 31;
  uint64_t time;
  uint32_t made_ago;  // time minus its maker's (below 2^32, else the timing declines)
  uint32_t made_ref;  // its maker's entry in the log (PackedMade::kRoot: made at the start)
  uint64_t meta;      // size (below 2^40: loggp::kMaxSize) | type << 40 | made idx << 43 | tag << 59 (an operation's)
  uint32_t peer;      // a send's destination, a receive's source, a message's sender
  uint32_t arg;       // an operation's index, a message's tag
  uint64_t size() const { return meta & ((uint64_t(1) << 40) - 1); }
  uint8_t type() const { return uint8_t(meta >> 40 & 7); }
  uint16_t made_idx() const { return uint16_t(meta >> 43); }
  uint32_t tag() const { return uint32_t(meta >> 59); }
  bool root() const { return made_ref == PackedMade::kRoot; }
  // Who made it, as the log and the comparisons read it; h: the rank it is at.
  PackedMade made(uint32_t h) const {
    if (root()) return PackedMade::root(made_idx());
    return PackedMade{(time - made_ago) << 16 | made_idx(), type() == loggp::kMsg ? peer : h, made_ref};
  }
  // An event at `time` made as m; `fits` false where its maker ran 2^32 ns or more before it, or
  // after it.
  static PendingEvent of(uint64_t time, const PackedMade& m, uint64_t size, uint8_t type, uint32_t tag, uint32_t peer, uint32_t arg,
                         bool& fits) {
    const uint64_t made_at = m.time_idx >> 16, ago = m.is_root() ? 0 : time - made_at;
    fits = m.is_root() || (time >= made_at && ago >> 32 == 0);
    return PendingEvent{time, uint32_t(ago), m.ref,
                        size | uint64_t(type) << 40 | uint64_t(uint16_t(m.time_idx)) << 43 |
                            uint64_t(tag < kTagInSchedule ? tag : kTagInSchedule) << 59,
                        peer, arg};
  }
};
static_assert(sizeof(PendingEvent) == 32);

// An unexpected message: its sender and tag.
struct Unexpected {
  uint32_t peer, tag;
};

// A rank's unexpected messages, in order, wholly on the heap and nothing while there are none (most
// ranks of most schedules have none most of the time): one pointer in the rank's state, its first
// element holding the count and the room.
class UnexpectedQueue {
 public:
  uint32_t size() const { return q_ ? q_[0].peer : 0; }
  bool empty() const { return size() == 0; }
  const Unexpected& operator[](uint32_t i) const { return q_[i + 1]; }
  void push_back(const Unexpected& u) {
    const uint32_t n = size();
    if (!q_ || n == q_[0].tag) {  // (full: twice the room)
      const uint32_t room = q_ ? 2 * q_[0].tag : 2;
      std::unique_ptr<Unexpected[]> more(new Unexpected[room + 1]);
      for (uint32_t i = 1; i <= n; ++i) more[i] = q_[i];
      more[0] = Unexpected{n, room};
      q_ = std::move(more);
    }
    q_[n + 1] = u;
    ++q_[0].peer;
  }
  // Element i removed, the later ones moved up; the queue given back once empty.
  void erase(uint32_t i) {
    const uint32_t n = size();
    for (uint32_t k = i + 1; k < n; ++k) q_[k] = q_[k + 1];
    if (--q_[0].peer == 0) q_.reset();
  }

 private:
  std::unique_ptr<Unexpected[]> q_;
};

// The order in which the engine runs operations made ready together: its std::sort by type, on
// the same sequence. Which order std::sort leaves depends on the types alone (it moves elements as
// their comparisons say), so it is found by sorting the types with their places, and the last
// order found is used again for the same sequence of types (a generator's ranks start alike).
class ReadyOrder {
 public:
  // `ready` in the engine's order; type(i): operation i's type.
  template <class Type>
  void sort(std::vector<uint32_t>& ready, Type&& type) {
    if (ready.size() >= 2) sort_many(ready, type);  // (most events make one operation ready, or none)
  }

 private:
  struct Typed {
    uint8_t type;
    uint32_t at;
  };
  static constexpr auto by_type = [](const Typed& a, const Typed& b) { return a.type < b.type; };
  static constexpr uint32_t kKept = 19;  // (19 types of 3 bits and their count in 64 bits)
  template <class Type>
  [[gnu::noinline]] void sort_many(std::vector<uint32_t>& ready, Type& type) {
    const uint32_t n = uint32_t(ready.size());
    if (n > kKept) {
      typed_.clear();
      for (uint32_t k = 0; k < n; ++k) typed_.push_back(Typed{type(ready[k]), k});
      std::sort(typed_.begin(), typed_.end(), by_type);
      unsorted_.assign(ready.begin(), ready.end());
      for (uint32_t k = 0; k < n; ++k) ready[k] = unsorted_[typed_[k].at];
      return;
    }
    uint64_t key = n;  // (the types, 3 bits each, and their count)
    for (uint32_t k = 0; k < n; ++k) key = key << 3 | type(ready[k]);
    if (key != last_types_) {
      std::array<Typed, kKept> typed;
      for (uint32_t k = 0; k < n; ++k) typed[k] = Typed{uint8_t(key >> (3 * (n - 1 - k)) & 7), k};
      std::sort(typed.begin(), typed.begin() + n, by_type);
      for (uint32_t k = 0; k < n; ++k) last_order_[k] = uint8_t(typed[k].at);
      last_types_ = key;
    }
    std::array<uint32_t, kKept> unsorted;
    std::copy(ready.begin(), ready.end(), unsorted.begin());
    for (uint32_t k = 0; k < n; ++k) ready[k] = unsorted[last_order_[k]];
  }
  std::vector<Typed> typed_;  // for more than kKept
  std::vector<uint32_t> unsorted_;
  std::array<uint8_t, kKept> last_order_{};
  uint64_t last_types_ = 0;  // (0: none; a key of 2 or more types is not 0)
};

}  // namespace ppsim::goal::detail
