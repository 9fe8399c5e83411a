// Who made an event of the window timing (loggp_windows.cpp), and the engine's order of creation
// (loggp.h numbers events as it makes them) between two events of one processor at one time:
//   - the roots (the first batch's operations, made at the start) come before any other event, in
//     their order;
//   - otherwise the one whose maker ran earlier, then, makers that ran at one time in the order
//     they ran (then in the order they made their events). On one processor that is the order it
//     took them; across processors it is a rank among all the makers that ran at that time, which
//     MakerRanking gives each window's makers at its end, by the same rules one step back (two
//     roots by processor), those made at that time after those made before it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ppsim::loggp_makers {

// Who made an event: the event that made it (its maker), or the start.
struct Made {
  uint64_t time = 0;            // when the maker ran
  uint32_t host = 0, seq = 0;   // where it ran, and its number among that processor's events
  uint32_t rank = 0;            // its place among the makers that ran at that time (once ranked)
  uint32_t ref = 0;             // its record in its processor's thread (until ranked)
  uint16_t idx = 0;             // the event's place among its maker's events (a root's: among the roots)
  uint8_t thread = 0;           // the thread of the maker's processor (where its record is)
  bool root = false;            // made at the start
  bool ranked = false;
};

// The engine's order of two events of one processor at one time: -1 (a first), 1, or 0 where it
// is not known here.
inline int creation_order(const Made& a, const Made& b) {
  auto by = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (a.root || b.root) return a.root && b.root ? by(a.idx, b.idx) : (a.root ? -1 : 1);
  if (a.time != b.time) return by(a.time, b.time);
  if (a.host == b.host) return a.seq != b.seq ? by(a.seq, b.seq) : by(a.idx, b.idx);
  if (!a.ranked || !b.ranked) return 0;
  return a.rank != b.rank ? by(a.rank, b.rank) : by(a.idx, b.idx);
}

// An event that made others, for ranking: when and where it ran, and who made it.
struct Record {
  uint64_t time;
  uint32_t host, seq;
  Made self;
};

// A record being ranked, with where it is kept (its thread and index).
struct Item {
  uint64_t time;
  Made self;
  uint32_t host, seq, thread, index;
};

constexpr uint32_t kUnranked = ~uint32_t(0);

// The makers a thread ran in a window, and their ranks once ranked.
struct MakerRecords {
  std::vector<Record> records;
  std::vector<uint32_t> rank_of;
};

class MakerRanking {
 public:
  // The makers of every thread (of(t): thread t's; their times lie in [at, end)), ranked among
  // those that ran at one time, into each thread's rank_of. False where a maker's own maker is
  // never ranked (cannot be).
  template <class Of>
  bool rank(uint32_t threads, Of&& of, uint64_t at, uint64_t end) {
    items_.clear();
    for (uint32_t t = 0; t < threads; ++t) {
      MakerRecords& w = of(t);
      w.rank_of.assign(w.records.size(), kUnranked);
      for (uint32_t i = 0; i < uint32_t(w.records.size()); ++i) {
        const Record& r = w.records[i];
        items_.push_back(Item{r.time, r.self, r.host, r.seq, t, i});
      }
    }
    // By time: counting by the offset into the window where it is short, else a sort.
    const uint64_t span = end - at;
    if (span <= (uint64_t(1) << 20) && span <= 4 * items_.size()) {
      count_.assign(size_t(span) + 1, 0);
      for (const Item& r : items_) ++count_[size_t(r.time - at) + 1];
      for (size_t k = 1; k < count_.size(); ++k) count_[k] += count_[k - 1];
      sorted_.resize(items_.size());
      for (const Item& r : items_) sorted_[count_[size_t(r.time - at)]++] = r;
      items_.swap(sorted_);
    } else {
      std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.time < b.time; });
    }
    // Within a time, the events made at that time come after those made before it (the engine
    // numbers them as it makes them), so a group is ranked in layers: first the makers made before
    // it, then those made by the layer before, and so on.
    for (size_t lo = 0; lo < items_.size();) {
      size_t hi = lo + 1;
      while (hi < items_.size() && items_[hi].time == items_[lo].time) ++hi;
      uint32_t next_rank = 0;
      for (size_t from = lo; from < hi;) {
        // The layer: those whose maker is ranked, moved to the front of what is left.
        size_t layer = from;
        for (size_t k = from; k < hi; ++k) {
          Made& m = items_[k].self;
          if (!m.root && !m.ranked) {
            const uint32_t rank = of(m.thread).rank_of[m.ref];
            if (rank == kUnranked) continue;
            m.rank = rank;
            m.ranked = true;
          }
          if (layer != k) std::swap(items_[layer], items_[k]);
          ++layer;
        }
        if (layer == from) return false;
        // The layer in that order, sorted by a key of two words that gives it (it was sorted with
        // `before` itself on the whole items, twice as long; a third of the window timing): roots by
        // processor and number, the others by when their maker ran, its rank and their place.
        keys_.clear();
        for (size_t k = from; k < layer; ++k) keys_.push_back(order_key(items_[k], uint32_t(k)));
        if (keys_.size() > 1) std::sort(keys_.begin(), keys_.end());
        for (const Key& q : keys_) of(items_[q.pos].thread).rank_of[items_[q.pos].index] = next_rank++;
        from = layer;
      }
      lo = hi;
    }
    return true;
  }

 private:
  // Two makers at one time: on one processor in the order it ran them, else by who made them
  // (roots first, by processor; then by when and in what order their own makers ran). As one key:
  // a root's (0, processor, number), another's (1 + its maker's time, rank, its place); the two
  // agree on one processor, where the order it ran them is the order they were made.
  struct Key {
    uint64_t first, second;
    uint32_t pos;
    bool operator<(const Key& o) const { return first != o.first ? first < o.first : second < o.second; }
  };
  static Key order_key(const Item& r, uint32_t pos) {
    if (r.self.root) return Key{0, uint64_t(r.host) << 32 | r.seq, pos};
    return Key{1 + r.self.time, uint64_t(r.self.rank) << 16 | r.self.idx, pos};
  }

  std::vector<Key> keys_;
  std::vector<Item> items_, sorted_;
  std::vector<size_t> count_;
};

}  // namespace ppsim::loggp_makers
