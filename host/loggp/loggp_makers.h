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
#include <cstdlib>
#include <new>
#include <memory>
#include <utility>

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
// Block k holds 2^(10 + k) entries: a small run takes 24 KB, and 22 blocks hold 2^32 - 2^10.
class MakerLog {
 public:
  // Appends m; its index, or false when the log is full.
  bool push(const Made& m, uint32_t& index) {
    if (size_ >= kMax) return false;
    const auto [b, at] = place(uint32_t(size_));
    if (!blocks_[b]) {
      // (uninitialized: a large block's pages are taken as entries fill them, not all at once)
      blocks_[b].reset(static_cast<Made*>(std::malloc(sizeof(Made) << (kFirstBits + b))));
      if (!blocks_[b]) throw std::bad_alloc();
    }
    blocks_[b].get()[at] = m;
    index = uint32_t(size_++);
    return true;
  }
  const Made& operator[](uint32_t i) const {
    const auto [b, at] = place(i);
    return blocks_[b].get()[at];
  }

 private:
  static constexpr uint32_t kFirstBits = 10;
  static constexpr uint32_t kBlocks = 32 - kFirstBits;
  static constexpr uint64_t kMax = (uint64_t(1) << 32) - (uint64_t(1) << kFirstBits);
  // Entry i's block and place in it: i + 2^10 lies in [2^(10+b), 2^(11+b)).
  static std::pair<uint32_t, uint64_t> place(uint32_t i) {
    const uint64_t j = uint64_t(i) + (uint64_t(1) << kFirstBits);
    const uint32_t top = 63 - uint32_t(__builtin_clzll(j));
    return {top - kFirstBits, j - (uint64_t(1) << top)};
  }

  struct Free {
    void operator()(Made* m) const { std::free(m); }
  };
  std::unique_ptr<Made, Free> blocks_[kBlocks];
  uint64_t size_ = 0;
};

// The engine's order of two events of one processor at one time: -1 (a first) or 1; 0 only for
// one event. log(t) is thread t's MakerLog.
template <class Log>
int creation_order(const Made& first, const Made& second, Log&& log) {
  auto by = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  // (copies: a log may give its entries by value)
  Made a = first, b = second;
  for (;;) {
    if (a.root || b.root) return a.root && b.root ? by(a.idx, b.idx) : (a.root ? -1 : 1);
    if (a.time != b.time) return by(a.time, b.time);
    if (a.host == b.host) return a.seq != b.seq ? by(a.seq, b.seq) : by(a.idx, b.idx);
    // Two makers that ran at one time on two processors: made at the start, by processor; else
    // in the order of their own makers (the same question one step back).
    const Made ma = log(a.thread)[a.ref];
    const Made mb = log(b.thread)[b.ref];
    if (ma.root || mb.root) return ma.root && mb.root ? by(a.host, b.host) : (ma.root ? -1 : 1);
    a = ma;
    b = mb;
  }
}

}  // namespace ppsim::loggp_makers
