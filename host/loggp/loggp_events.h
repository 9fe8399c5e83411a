// The events and queues of the LogGP engine (loggp.h): an event per operation or message in
// flight, a bucket queue ordered by (time, creation stamp), and every host's posted receives and
// unexpected messages.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "loggp/huge_alloc.h"

namespace ppsim::loggp {

inline constexpr uint32_t kAny = ~uint32_t(0);  // source or tag -1

enum OpType : uint8_t { kSend = 1, kRecv = 2, kCalc = 3, kMsg = 4 };  // LogGOPSim's order for ties

// An operation that became ready: what the engine needs of it.
struct ReadyOp {
  uint64_t size;  // bytes (send, recv) or ns (calc)
  uint32_t peer;  // destination of a send, source of a receive (kAny: any)
  uint32_t tag;   // kAny: any
  uint32_t op;    // the source's id of the operation (its host's)
  uint8_t cpu, nic, type;
};

namespace detail {

// 40 bytes: the creation stamp (48 bits) shares a word with the CPU, NIC and type, so that the word
// orders events as the stamp does.
struct Event {
  uint64_t time, key, size;  // key: ts << 16 | cpu << 10 | nic << 4 | type
  uint32_t host, target, tag, op;
  uint64_t ts() const { return key >> 16; }
  uint32_t cpu() const { return uint32_t(key >> 10) & 63u; }
  uint32_t nic() const { return uint32_t(key >> 4) & 63u; }
  uint8_t type() const { return uint8_t(key & 15u); }
  void set_ts(uint64_t ts) { key = ts << 16 | (key & 0xFFFFu); }
  void set_type(uint8_t t) { key = (key & ~uint64_t(15)) | t; }
};
inline Event make_event(uint64_t time, uint64_t ts, const ReadyOp& r, uint32_t host) {
  return Event{time, ts << 16 | uint64_t(r.cpu) << 10 | uint64_t(r.nic) << 4 | r.type, r.size, host, r.peer, r.tag, r.op};
}
static_assert(sizeof(Event) == 40);

// Events in order of (time, ts); ts is unique, so the order is total. A bucket per distinct time
// (a min-heap holds the times): schedules put many events at one time (every processor of a
// symmetric algorithm sends at once), and a bucket takes them in O(1). Within a bucket events are
// in ts order: a new event has the largest ts yet, and only an event put back for later (which
// keeps its ts) can arrive out of order; such a bucket is sorted once, when its turn comes.
class EventQueue {
 public:
  bool empty() const { return count_ == 0; }
  void push(const Event& e) {
    uint32_t b;
    Recent& hit = recent_[(e.time ^ (e.time >> 7)) & (kRecent - 1)];
    if (hit.bucket != kNone && hit.time == e.time) {
      b = hit.bucket;
    } else {
      auto [it, fresh] = index_.try_emplace(e.time, 0);
      if (fresh) {
        it->second = new_bucket();
        times_.push_back(e.time);
        std::push_heap(times_.begin(), times_.end(), std::greater<>());
      }
      b = it->second;
      hit = Recent{e.time, b};
    }
    Bucket& k = buckets_[b];
    if (k.size > 0 && k.last_ts > e.key) k.sorted = false;
    k.last_ts = e.key;
    Chunk* tail = chunks_[k.tail].get();
    if (tail->n == kChunk) {
      const uint32_t c = new_chunk();
      chunks_[k.tail]->next = c;
      k.tail = c;
      tail = chunks_[c].get();
    }
    tail->ev[tail->n++] = e;
    ++k.size;
    ++count_;
  }
  Event pop() {
    const uint64_t t = times_.front();
    if (t != current_time_ || current_ == kNone) {
      current_time_ = t;
      current_ = index_.find(t)->second;
    }
    Bucket& k = buckets_[current_];
    if (!k.sorted) sort(k);
    Chunk* head = chunks_[k.head].get();
    if (k.pos == head->n) {  // a spent chunk (the bucket goes on in the next)
      const uint32_t next = head->next;
      free_chunk(k.head);
      k.head = next;
      k.pos = 0;
      head = chunks_[next].get();
    }
    Event e = head->ev[k.pos++];
    --k.size;
    --count_;
    if (k.size == 0) {  // the bucket is spent: recycle it
      free_chunk(k.head);
      free_buckets_.push_back(current_);
      index_.erase(t);
      std::pop_heap(times_.begin(), times_.end(), std::greater<>());
      times_.pop_back();
      Recent& hit = recent_[(t ^ (t >> 7)) & (kRecent - 1)];
      if (hit.bucket == current_) hit.bucket = kNone;
      current_ = kNone;
    }
    return e;
  }

 private:
  static constexpr uint32_t kNone = ~uint32_t(0);
  // 8192 events (384 KB, above malloc's mmap threshold): a chunk freed goes back to the system.
  static constexpr uint32_t kChunk = 8192;
  static constexpr size_t kKeptChunks = 8;
  struct Chunk {
    Event ev[kChunk];
    uint32_t n = 0, next = kNone;
  };
  struct Bucket {
    uint32_t head = kNone, tail = kNone, pos = 0;
    uint64_t size = 0, last_ts = 0;
    bool sorted = true;
  };
  // Spent chunks are kept for reuse up to as many as are in use (so the queue holds at most twice
  // what it needs, and a steady stream of events allocates nothing); beyond that they are freed.
  void free_chunk(uint32_t c) {
    --live_;
    if (free_chunks_.size() < std::max(kKeptChunks, live_)) {
      free_chunks_.push_back(c);
    } else {
      chunks_[c].reset();
      dead_chunks_.push_back(c);
    }
  }
  uint32_t new_chunk() {
    ++live_;
    uint32_t c;
    if (free_chunks_.empty() && !dead_chunks_.empty()) {
      c = dead_chunks_.back();
      dead_chunks_.pop_back();
      chunks_[c] = std::unique_ptr<Chunk>(new Chunk);
    } else if (free_chunks_.empty()) {
      c = uint32_t(chunks_.size());
      chunks_.push_back(std::unique_ptr<Chunk>(new Chunk));
    } else {
      c = free_chunks_.back();
      free_chunks_.pop_back();
    }
    chunks_[c]->n = 0;
    chunks_[c]->next = kNone;
    return c;
  }
  uint32_t new_bucket() {
    uint32_t b;
    if (free_buckets_.empty()) {
      b = uint32_t(buckets_.size());
      buckets_.emplace_back();
    } else {
      b = free_buckets_.back();
      free_buckets_.pop_back();
    }
    Bucket& k = buckets_[b];
    k = Bucket{};
    k.head = k.tail = new_chunk();
    return b;
  }
  // Puts a bucket's events (an event put back for later arrived out of ts order) in ts order.
  void sort(Bucket& k) {
    std::vector<Event> all;
    all.reserve(k.size);
    for (uint32_t c = k.head, from = k.pos; c != kNone; c = chunks_[c]->next, from = 0)
      all.insert(all.end(), chunks_[c]->ev + from, chunks_[c]->ev + chunks_[c]->n);
    std::sort(all.begin(), all.end(), [](const Event& x, const Event& y) { return x.key < y.key; });
    size_t i = 0;
    for (uint32_t c = k.head, from = k.pos; c != kNone; c = chunks_[c]->next, from = 0)
      for (uint32_t j = from; j < chunks_[c]->n; ++j) chunks_[c]->ev[j] = all[i++];
    k.sorted = true;
  }
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<uint32_t> free_chunks_, dead_chunks_;  // kept for reuse; given back
  size_t live_ = 0;                                  // chunks holding events
  std::vector<Bucket> buckets_;
  std::vector<uint32_t> free_buckets_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint64_t> times_;  // min-heap of the times with a bucket
  uint64_t count_ = 0, current_time_ = 0;
  uint32_t current_ = kNone;
  // The buckets of recently used times (a symmetric schedule puts events at a few times in turn).
  struct Recent {
    uint64_t time = 0;
    uint32_t bucket = kNone;
  };
  static constexpr size_t kRecent = 16;
  Recent recent_[kRecent];
};

// Whether a message from src with tag meets a receive from rsrc with rtag (or the reverse): -1 on
// either side matches anything.
inline bool matches(uint32_t src, uint32_t tag, uint32_t rsrc, uint32_t rtag) {
  return (src == kAny || rsrc == kAny || rsrc == src) && (tag == kAny || rtag == kAny || rtag == tag);
}

// A queue entry: an operation with its source and tag (16 bytes; the unexpected messages, and the
// posted receives where the source cannot tell a receive's source and tag from its operation).
// (The size that decides eager or rendezvous is the event's, not the entry's.)
struct QueueEntry {
  uint32_t src, tag, op;
  int32_t next;
};

// Posted receives where every host's receives are known ahead (a GOAL schedule: a schedule may
// post millions at once). A receive is posted at most once, so host h's never outnumber its
// receives, and each host has a slice of one array that many slots long: its posted receives lie
// in [head, tail) of it, in posting order, each as its operation's offset from the host's first
// operation, in 2 bytes where no host has more than 2^16 operations (else 4), with 2 more for the
// low bits of its source: a linked pool took 8 bytes a receive posted, and a schedule that posts
// every receive at its start (a dissemination barrier's) had that for each.
class PostedSlots {
 public:
  // Host h's operations are first(h) .. first(h + 1) - 1, receives(h) of them receives; start(h, at)
  // is told where its slice starts (its head and tail, while it is empty).
  template <class First, class Receives, class Start>
  void assign(uint32_t hosts, First&& first, Receives&& receives, Start&& start) {
    uint64_t at = 0;
    bool narrow = true;
    for (uint32_t h = 0; h < hosts; ++h) {
      start(h, uint32_t(at));
      at += receives(h);
      narrow = narrow && first(h + 1) - first(h) < kTaken16;  // (an offset is never kTaken16)
    }
    if (narrow) narrow_.resize(at);
    else wide_.resize(at);
    source_.resize(at);
  }
  // Operation op of a host whose operations start at `first`, a receive from `src` (kAny: any),
  // posted at its tail.
  void post(uint32_t& tail, uint32_t first, uint32_t op, uint32_t src) {
    source_[tail] = filter(src);
    set(tail++, op - first);
  }
  // The first operation in [head, tail) with match(op), removed: marked as taken where others come
  // before it (so the order stays, and nothing moves), and passed over with the taken ones after it
  // where it is the first (so that `head` is always a receive still posted). Only receives whose
  // source could be `src`, the message's sender, are asked: a message passes over most of what its
  // receiver posted (a dissemination barrier's receives are all posted at its start, in the order
  // LogGOPSim's sort leaves them), and reading each one's operation was most of the time a
  // message took.
  template <class Match>
  bool take(uint32_t& head, uint32_t tail, uint32_t first, uint32_t src, Match&& match, uint32_t& out) {
    const uint16_t f = filter(src);
    for (uint32_t i = head; i < tail; ++i) {
      if (source_[i] != f && source_[i] != kAnySource) continue;
      const uint32_t offset = get(i);
      if (offset == taken()) continue;
      if (match(first + offset)) {
        if (i == head) {
          for (++head; head < tail && get(head) == taken();) ++head;
        } else {
          set(i, taken());
          source_[i] = kTakenSource;
        }
        out = first + offset;
        return true;
      }
    }
    return false;
  }
  uint32_t at(uint32_t i, uint32_t first) const { return first + get(i); }

 private:
  // A posted receive's source in 16 bits: its low bits, or kAnySource for any (and for a source
  // whose low bits are those: such a receive is always asked).
  static constexpr uint16_t kAnySource = 0xFFFF;
  static uint16_t filter(uint32_t src) { return src == kAny ? kAnySource : uint16_t(src); }
  // A taken slot's offset (hosts of fewer than 2^16 - 1 operations keep offsets in 16 bits), and a
  // source it keeps (any other than kAnySource: a message from a sender of those low bits asks it,
  // and passes over it).
  static constexpr uint32_t kTaken16 = 0xFFFF, kTaken32 = ~uint32_t(0);
  static constexpr uint16_t kTakenSource = 0xFFFE;
  uint32_t taken() const { return narrow_.empty() ? kTaken32 : kTaken16; }
  uint32_t get(uint32_t i) const { return narrow_.empty() ? wide_[i] : narrow_[i]; }
  void set(uint32_t i, uint32_t v) {
    if (narrow_.empty()) wide_[i] = v;
    else narrow_[i] = uint16_t(v);
  }
  std::vector<uint16_t, HugeAlloc<uint16_t>> narrow_;
  std::vector<uint32_t, HugeAlloc<uint32_t>> wide_;
  std::vector<uint16_t, HugeAlloc<uint16_t>> source_;  // each slot's receive's source (filter())
};

// Host by host queues over PostedSlots, for the event engine (loggp.h).
class PostedQueues {
 public:
  explicit PostedQueues(size_t hosts) : head_(hosts, 0), tail_(hosts, 0) {}
  template <class First, class Receives>
  void assign(uint32_t hosts, First&& first, Receives&& receives) {
    slots_.assign(hosts, first, receives, [&](uint32_t h, uint32_t at) { head_[h] = tail_[h] = at; });
  }
  void post(uint32_t h, uint32_t first, uint32_t op, uint32_t src) {
    slots_.post(tail_[h], first, op, src);
    ++count_;
  }
  template <class Match>
  bool take(uint32_t h, uint32_t first, uint32_t src, Match&& match, uint32_t& op) {
    if (!slots_.take(head_[h], tail_[h], first, src, match, op)) return false;
    --count_;
    return true;
  }
  size_t count() const { return count_; }
  // Host h's first posted receive, if any.
  bool first(uint32_t h, uint32_t first, uint32_t& op) const {
    if (head_[h] == tail_[h]) return false;
    op = slots_.at(head_[h], first);
    return true;
  }

 private:
  PostedSlots slots_;
  std::vector<uint32_t> head_, tail_;
  size_t count_ = 0;
};

// A host's posted receives (or unexpected messages), in arrival order; all hosts share one pool.
template <class Entry>
class MatchQueues {
 public:
  explicit MatchQueues(size_t hosts) : head_(hosts, -1), tail_(hosts, -1) {}
  void append(uint32_t host, const Entry& e) {
    int32_t i;
    if (free_ >= 0) {
      i = free_;
      free_ = pool_[size_t(i)].next;
      pool_[size_t(i)] = e;
    } else {
      i = int32_t(pool_.size());
      pool_.push_back(e);  // (the entries live in blocks: growing copies nothing)
    }
    pool_[size_t(i)].next = -1;
    if (tail_[host] >= 0) pool_[size_t(tail_[host])].next = i;
    else head_[host] = i;
    tail_[host] = i;
    ++count_;
  }
  // The first entry e with match(e) (the caller's source and tag rule); removed.
  template <class Match>
  bool take(uint32_t host, Match&& match, Entry& out) {
    int32_t prev = -1;
    for (int32_t i = head_[host]; i >= 0; prev = i, i = pool_[size_t(i)].next) {
      const Entry& e = pool_[size_t(i)];
      if (match(e)) {
        out = e;
        if (prev >= 0) pool_[size_t(prev)].next = e.next;
        else head_[host] = e.next;
        if (tail_[host] == i) tail_[host] = prev;
        pool_[size_t(i)].next = free_;
        free_ = i;
        --count_;
        return true;
      }
    }
    return false;
  }
  size_t count() const { return size_t(count_); }
  int32_t first(uint32_t host) const { return head_[host]; }
  const Entry& at(int32_t i) const { return pool_[size_t(i)]; }

 private:
  std::vector<int32_t> head_, tail_;
  // The entries, in blocks of 2^16 (a schedule may post millions of receives: growing copies nothing).
  class Pool {
   public:
    size_t size() const { return n_; }
    Entry& operator[](size_t i) { return blocks_[i >> 16][i & 0xFFFF]; }
    const Entry& operator[](size_t i) const { return blocks_[i >> 16][i & 0xFFFF]; }
    void push_back(const Entry& e) {
      if ((n_ >> 16) == blocks_.size()) blocks_.emplace_back(new Entry[size_t(1) << 16]);
      (*this)[n_++] = e;
    }

   private:
    std::vector<std::unique_ptr<Entry[]>> blocks_;
    size_t n_ = 0;
  };
  Pool pool_;
  int32_t free_ = -1;
  int64_t count_ = 0;
};

}  // namespace detail

}  // namespace ppsim::loggp
