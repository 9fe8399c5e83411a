// Who made an event of the window timing (loggp_windows.cpp), and the engine's order of creation
// (loggp.h numbers events as it makes them) between two events of one processor at one time:
//   - the roots (the first batch's operations, made at the start) come before any other event, in
//     their order;
//   - otherwise the one whose maker ran earlier, then, makers that ran at one time in the order
//     they ran (then in the order they made their events). On one processor that is the order it
//     took them. Across processors it is the engine's order among all the makers that ran at that
//     time, by the same rules one step back: two makers made at the start by processor, then
//     number; a maker made at the start before any other; else by when and in what order their own
//     makers ran, and so on back, through the log of every maker's own maker (MakerLog).
// Ties between makers of two processors are rare (under independent noise at 2^18 processors, about
// one event in 7,000 compares two such), so the order is found only where two events ask for it.
#pragma once
#include <cstdint>
#include <memory>

namespace ppsim::loggp_makers {

// Who made an event: the event that made it (its maker), or the start.
struct Made {
  uint64_t time = 0;            // when the maker ran
  uint32_t host = 0, seq = 0;   // where it ran, and its number among that processor's events
  uint32_t ref = 0;             // the maker's own Made in the log of its processor's thread
  uint16_t idx = 0;             // the event's place among its maker's events (a root's: among the roots)
  uint8_t thread = 0;           // the thread of the maker's processor (whose log holds it)
  bool root = false;            // made at the start
};

// Every maker's own Made, in the order one thread's processors ran them; entries keep their place
// (blocks that never move), so other threads read earlier windows' entries while this one appends.
class MakerLog {
 public:
  static constexpr uint32_t kBlockBits = 16;
  static constexpr uint32_t kBlocks = uint32_t(1) << 16;  // 2^32 entries at most

  MakerLog() : blocks_(new std::unique_ptr<Made[]>[kBlocks]) {}
  // Appends m; its index, or false when the log is full.
  bool push(const Made& m, uint32_t& index) {
    const uint64_t i = size_;
    const uint64_t b = i >> kBlockBits;
    if (b >= kBlocks) return false;
    if (!blocks_[b]) blocks_[b].reset(new Made[size_t(1) << kBlockBits]);
    blocks_[b][i & ((uint64_t(1) << kBlockBits) - 1)] = m;
    index = uint32_t(i);
    ++size_;
    return true;
  }
  const Made& operator[](uint32_t i) const { return blocks_[i >> kBlockBits][i & ((uint32_t(1) << kBlockBits) - 1)]; }
  uint64_t size() const { return size_; }

 private:
  std::unique_ptr<std::unique_ptr<Made[]>[]> blocks_;
  uint64_t size_ = 0;
};

// The engine's order of two events of one processor at one time: -1 (a first) or 1; 0 only for
// one event. log(t) is thread t's MakerLog.
template <class Log>
int creation_order(const Made& first, const Made& second, Log&& log) {
  auto by = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  const Made* a = &first;
  const Made* b = &second;
  for (;;) {
    if (a->root || b->root) return a->root && b->root ? by(a->idx, b->idx) : (a->root ? -1 : 1);
    if (a->time != b->time) return by(a->time, b->time);
    if (a->host == b->host) return a->seq != b->seq ? by(a->seq, b->seq) : by(a->idx, b->idx);
    // Two makers that ran at one time on two processors: made at the start, by processor; else
    // in the order of their own makers (the same question one step back).
    const Made& ma = log(a->thread)[a->ref];
    const Made& mb = log(b->thread)[b->ref];
    if (ma.root || mb.root) return ma.root && mb.root ? by(a->host, b->host) : (ma.root ? -1 : 1);
    a = &ma;
    b = &mb;
  }
}

}  // namespace ppsim::loggp_makers
