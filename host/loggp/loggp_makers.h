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
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

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

// A Made in 16 bytes, as the window timing keeps it in its events and its log: time, idx and
// thread in one word (a time below 2^48 ns, an idx below 2^8), a root as ref kRoot, and no seq:
// seq orders only makers of one processor, whose entries lie on one thread's log (MakerLog) in the
// order they ran, so ref is given for it (ordering them alike).
struct PackedMade {
  static constexpr uint32_t kRoot = ~uint32_t(0);
  uint64_t time_idx_thread = 0;  // time << 16 | idx << 8 | thread
  uint32_t host = 0, ref = kRoot;
  static bool fits(const Made& m) { return m.time >> 48 == 0 && m.idx < 256; }
  static PackedMade pack(const Made& m) { return PackedMade{m.time << 16 | uint64_t(m.idx) << 8 | m.thread, m.host, m.root ? kRoot : m.ref}; }
  bool root() const { return ref == kRoot; }
  uint64_t time() const { return time_idx_thread >> 16; }
  Made unpack() const {
    Made m;
    m.time = time_idx_thread >> 16;
    m.idx = uint16_t(time_idx_thread >> 8 & 0xFF);
    m.thread = uint8_t(time_idx_thread);
    m.host = host;
    m.root = root();
    m.ref = m.seq = m.root ? 0 : ref;
    return m;
  }
};
static_assert(sizeof(PackedMade) == 16);

// Every maker's own Made, packed, in the order one thread's processors ran them, in blocks of 2^16
// that are given back once no pending event can reach them (forget_before: a run's every maker
// would be most of its memory) and used again for the entries to come. Entries keep
// their place (the blocks never move), so other threads read earlier windows' entries while this
// one appends. Reading an entry given back throws Gone: a comparison that tied at every step back,
// further than the pending events reach (the timing that keeps the log then declines the run).
class MakerLog {
 public:
  struct Gone {};
  // (the blocks' slots reserved whole, so that they never move, and taken as blocks are written:
  // a run's first block costs no more than its entries)
  MakerLog() { blocks_.reserve(kBlocks); }
  MakerLog(MakerLog&&) noexcept = default;
  MakerLog& operator=(MakerLog&&) noexcept = default;
  MakerLog(const MakerLog&) = delete;
  MakerLog& operator=(const MakerLog&) = delete;
  // Appends m, logged by an event that ran at `at`; its index, or false when the log is full.
  bool push(const PackedMade& m, uint64_t at, uint32_t& index) {
    if (size_ >= kMax) return false;
    if ((size_ >> kBits) == blocks_.size()) blocks_.emplace_back();
    Block& b = blocks_[size_ >> kBits];
    if (!b.entries) {
      if (spare_.empty()) {
        // (uninitialized: a block's pages are taken as entries fill them)
        b.entries.reset(static_cast<Entry*>(std::malloc(sizeof(Entry) << kBits)));
        if (!b.entries) throw std::bad_alloc();
      } else {
        b.entries = std::move(spare_.back());
        spare_.pop_back();
      }
      b.latest = 0;
    }
    b.entries.get()[size_ & kMask] = m;
    b.latest = std::max(b.latest, at);
    index = uint32_t(size_++);
    return true;
  }
  Made operator[](uint32_t i) const {
    const Block& b = blocks_[i >> kBits];
    if (!b.entries) throw Gone{};
    return b.entries.get()[i & kMask].unpack();
  }
  // Gives back the blocks, oldest first, whose entries were all logged by events that ran before
  // `time` (never the block being written).
  void forget_before(uint64_t time) {
    const uint64_t current = size_ >> kBits;
    for (; kept_ < current && blocks_[kept_].latest < time; ++kept_) spare_.push_back(std::move(blocks_[kept_].entries));
  }
  // Entries held (written and not given back), for the tests.
  uint64_t held() const { return size_ - std::min(size_, kept_ << kBits); }

 private:
  static constexpr uint32_t kBits = 16;
  static constexpr uint64_t kMask = (uint64_t(1) << kBits) - 1;
  static constexpr uint64_t kBlocks = uint64_t(1) << (32 - kBits);
  static constexpr uint64_t kMax = (uint64_t(1) << 32) - 1;

  using Entry = PackedMade;
  struct Free {
    void operator()(Entry* e) const { std::free(e); }
  };
  struct Block {
    std::unique_ptr<Entry, Free> entries;  // none: not yet written, or given back
    uint64_t latest = 0;                   // when the latest event that logged an entry here ran
  };
  std::vector<Block> blocks_;  // (never reallocated: other threads read it while this one appends)
  std::vector<std::unique_ptr<Entry, Free>> spare_;
  uint64_t size_ = 0, kept_ = 0;  // entries written; blocks given back
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
