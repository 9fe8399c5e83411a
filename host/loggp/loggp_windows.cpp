// The LogGP times of an algorithm in windows of time, every processor on its own (loggp_run.h,
// docs/DESIGN.md §3b): for runs the lockstep timing declines, chiefly under independent noise,
// where a processor's partner is often a round ahead and its message lands among the processor's
// own events.
//
// The event engine (loggp.h) takes every event of the machine from one queue in order of time,
// then creation. Only messages cross from one processor to another, and a message sent at t is at
// its receiver at t + o + L. So, with W the earliest time of any event left, every event before
// W + D (D = the least o + L) is the work of its own processor and of messages sent before W: each
// processor can take its events of [W, W + D) alone, in the engine's order, while the messages they
// send wait for the window's end. That order needs, for two events of one processor at one time,
// which was made first: an event carries who made it, every event that made others is logged with
// its own maker, and where two makers ran at one time on two processors their order is read back
// through that log (loggp_makers.h). Makers on two processors meet only in a later window (a
// message takes D), so what a window reads of the log was written before it.
// The processors are split among the threads, each reading its own in order every window (a flat
// array of their earliest events says which have one in it); the times do not depend on the
// threads. Left to the event engine: a rendezvous (size > S ties the sender to the receiver's
// time), a 0-byte message, D = 0, a receive or message left unmatched, and runs whose windows
// would cost more than their events.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "loggp/inline_vec.h"
#include "loggp/loggp_makers.h"
#include "loggp/loggp_rounds.h"
#include "loggp/loggp_run.h"
#include "ppsim/buffers.h"

namespace ppsim {

namespace {

using loggp::InlineVec;
using loggp::ReadyOp;
using loggp_makers::creation_order;
using loggp_makers::Made;
using loggp_makers::MakerLog;
using loggp_makers::PackedMade;

// An operation waiting to run, or a message at (or on its way to) its receiver. 40 bytes, its
// maker packed (loggp_makers.h): a window reads every processor's pending events, and their bytes
// are its wall. Its size, type and `ago` share a word, written whole: as bit-fields, an event built
// on the stack was written in parts and read back whole, a store the read waited for (a tenth of
// taking events).
struct Ev {
  uint64_t time;
  PackedMade made;
  uint32_t peer;  // a send's destination, a receive's source, a message's sender
  uint32_t tag;
  uint64_t meta;  // size (40 bits: loggp::kMaxSize) | type << 40 | ago << 48
  static uint64_t pack(uint64_t size, uint8_t type, uint32_t ago) { return size | uint64_t(type) << 40 | uint64_t(ago) << 48; }
  uint64_t size() const { return meta & loggp::kMaxSize; }
  uint8_t type() const { return uint8_t(meta >> 40); }
  // How far back its maker's own maker ran, from its maker, in windows (rounded up; kAgoUnknown:
  // further than this counts): the oldest entry of the makers' log it can reach.
  uint32_t ago() const { return uint32_t(meta >> 48); }
};
constexpr uint32_t kAgoUnknown = 0xFFFF;
static_assert(sizeof(Ev) == 40);

// A posted receive or an unexpected message: its peer (marked for an unexpected message) and tag.
struct Entry {
  uint32_t peer, tag;  // peer | kUnexpected for an unexpected message
};
constexpr uint32_t kUnexpected = uint32_t(1) << 31;  // (processors are fewer: WindowTiming::run)

struct Host {
  uint64_t o = 0, gs = 0, gr = 0;  // the clocks (loggp.h)
  InlineVec<Ev, 3> pending;        // (a batch's send and receive, and a message)
  InlineVec<Entry, 2> queued;      // posted receives and unexpected messages, each kind in its order
  int32_t next_round = 1;          // the first round not yet released
  int32_t outstanding = 0;         // receives of the released rounds not yet complete
};

// What a thread needs: its own reader and scratch, the messages it sent in the window (by the
// thread whose processors receive them), the log of its processors' makers and its counts.
struct Worker {
  explicit Worker(const RunConfig& c, int threads) : reader(c), out(size_t(threads)) {}
  loggp_rounds::RoundReader reader;
  std::vector<std::vector<std::pair<uint32_t, Ev>>> out;  // (receiver, message) by the receiver's thread
  std::vector<ReadyOp> ready;
  MakerLog makers;
  uint64_t events = 0, messages = 0, visits = 0;
  uint64_t earliest = 0;  // the earliest event left among its processors
  uint64_t reach = 0;     // the oldest time its processors' pending events reach in the makers' logs
  bool failed = false;
};

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr size_t kMaxPending = 256;  // beyond this a processor's scan for its next event costs more than the engine

class WindowTiming {
 public:
  WindowTiming(const RunConfig& c, int threads)
      : P_(c.cost.loggp), effects_(c), rules_(P_, effects_.effects().stragglers), noise_(effects_.effects().noise),
        p_(uint32_t(run_processors(c))), R_(c.algorithm->rounds(c.params)), threads_(thread_count(threads, p_)), hosts_(p_),
        next_(p_, kNever), finish_(p_, 0) {
    if (noise_) noise_per_host_.assign(p_, 0);
    oldest_.assign(p_, kNever);
    window_ = rules_.arrival(0, 0);  // the least o + L
    if (rules_.stragglers())
      for (uint32_t h = 1; h < p_; ++h) window_ = std::min(window_, rules_.arrival(h, 0));
    for (int t = 1; t < threads_; ++t) bounds_.push_back(lo_of(t));
    workers_.reserve(size_t(threads_));
    for (int t = 0; t < threads_; ++t) workers_.emplace_back(c, threads_);
  }

  std::optional<loggp::Result> run() {
    if (window_ == 0 || p_ == 0 || p_ >= kUnexpected) return std::nullopt;
    try {
      return run_windows();
    } catch (const MakerLog::Gone&) {
      return std::nullopt;  // a tie traced back past the makers kept: the event engine times the run
    }
  }

  // Entries of the makers' logs held at the end.
  uint64_t held_makers() const {
    uint64_t n = 0;
    for (const Worker& w : workers_) n += w.makers.held();
    return n;
  }

 private:
  std::optional<loggp::Result> run_windows() {
    // The roots: every processor's first batch, made at the start.
    in_parallel([&](Worker& w, uint32_t lo, uint32_t hi) {
      w.earliest = kNever;
      for (uint32_t h = lo; h < hi && !w.failed; ++h) {
        Host& x = hosts_[h];
        w.ready.clear();
        int nrecv = 0;
        x.next_round = read(w, h, 1, nrecv);
        x.outstanding = nrecv;
        Made m;
        m.root = true;
        for (size_t k = 0; k < w.ready.size() && !w.failed; ++k) {
          m.idx = uint16_t(k);
          add_op(w, x, w.ready[k], m, 0);
        }
        for (uint32_t k = 0; k < x.pending.size(); ++k) next_[h] = std::min(next_[h], x.pending[k].time);
        w.earliest = std::min(w.earliest, next_[h]);
      }
    });
    uint64_t windows = 0;
    for (;;) {
      uint64_t at = kNever;
      for (const Worker& w : workers_) {
        if (w.failed) return std::nullopt;
        at = std::min(at, w.earliest);
      }
      if (at == kNever) break;
      if (++windows > (uint64_t(1) << 20)) return std::nullopt;
      const uint64_t end = at + window_ < at ? kNever : at + window_;
      in_parallel([&](Worker& w, uint32_t lo, uint32_t hi) { run_window(w, lo, hi, end); });
      for (const Worker& w : workers_)
        if (w.failed) return std::nullopt;
      in_parallel([&](Worker& w, uint32_t, uint32_t) { deliver(w, int(&w - workers_.data())); });
      uint64_t events = 0, visits = 0, reach = kNever;
      for (const Worker& w : workers_) {
        events += w.events;
        visits += w.visits;
        reach = std::min(reach, w.reach);
      }
      for (Worker& w : workers_) w.makers.forget_before(reach);
      if (visits > 8 * events + (uint64_t(1) << 24)) return std::nullopt;  // windows too many for their events: the engine is faster
    }
    return result();
  }

  static int thread_count(int threads, uint32_t p) {
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    return int(std::min<int64_t>({threads, std::max<int64_t>(1, p / 4096), 256}));  // (a maker's thread is 8 bits)
  }

  // The processors [lo, hi) of each thread.
  uint32_t lo_of(int t) const { return uint32_t(uint64_t(p_) * uint64_t(t) / uint64_t(threads_)); }
  // (a division per message was 7 % of taking events: the boundaries are compared instead)
  int thread_of(uint32_t h) const { return int(std::upper_bound(bounds_.begin(), bounds_.end(), h) - bounds_.begin()); }

  template <class F>
  void in_parallel(F&& f) {
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads_));
    auto part = [&](int t) {
      try {
        f(workers_[size_t(t)], lo_of(t), lo_of(t + 1));
      } catch (...) {
        errors[size_t(t)] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(part, t);
    part(0);
    for (auto& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

  // h's operations from round `first` up to its next round with receives, in the order the engine
  // makes them ready (its std::sort by type on the same sequence). Returns the round after them.
  int read(Worker& w, uint32_t h, int first, int& nrecv) {
    nrecv = 0;
    if (first > R_) return first;
    int next = first;
    try {
      next = loggp_rounds::read_batch(w.reader, h, first, [&](const ReadyOp& r) { w.ready.push_back(r); }, nrecv);
    } catch (const loggp::StuckError&) {
      w.failed = true;  // more operations in a round than a step holds: the event engine reports it
      return next;
    }
    std::sort(w.ready.begin(), w.ready.end(), loggp::detail::by_type);
    return next;
  }

  // An operation made ready at the clocks as they are (a send also waits for its NIC).
  void add_op(Worker& w, Host& x, const ReadyOp& r, const Made& m, uint32_t ago) {
    if (r.size == 0 || r.size > P_.S || r.peer >= p_ || x.pending.size() >= kMaxPending) {
      w.failed = true;  // a rendezvous, a 0-byte clock wrap, or too many at once
      return;
    }
    if (!PackedMade::fits(m)) {
      w.failed = true;  // a time past 2^48 ns, or more than 2^8 made at once
      return;
    }
    const uint64_t t = r.type == loggp::kSend ? std::max(x.o, x.gs) : x.o;
    x.pending.push_back(Ev{t, PackedMade::pack(m), r.peer, r.tag, Ev::pack(r.size, r.type, ago)});
  }

  // The windows back (rounded up) from an event that ran at t, made as `self`, to the oldest entry
  // of the makers' logs that the events it makes reach: its own (logged at t) and its maker's
  // (logged when that ran).
  uint32_t ago_of(uint64_t t, const PackedMade& self) const {
    if (self.root()) return 0;
    const uint64_t d = t - self.time();
    return uint32_t(std::min<uint64_t>(kAgoUnknown, d / window_ + (d % window_ != 0)));
  }
  // The oldest time an event reaches back in the makers' logs (kNever: a root reaches none).
  uint64_t reach_of(const Ev& e) const {
    if (e.made.root()) return kNever;
    if (e.ago() == kAgoUnknown) return 0;
    const uint64_t back = uint64_t(e.ago()) * window_;
    return e.made.time() > back ? e.made.time() - back : 0;
  }

  // The next event of x: the earliest, ties by creation.
  uint32_t next_event(const Host& x) const {
    auto log_of = [this](uint8_t t) -> const MakerLog& { return workers_[t].makers; };
    uint32_t best = 0;
    for (uint32_t k = 1; k < x.pending.size(); ++k) {
      const Ev& a = x.pending[k];
      const Ev& b = x.pending[best];
      if (a.time < b.time || (a.time == b.time && creation_order(a.made.unpack(), b.made.unpack(), log_of) < 0)) best = k;
    }
    return best;
  }

  // Each of w's processors [lo, hi) takes its events before `end` (in processor order: their
  // states are read as they lie in memory).
  void run_window(Worker& w, uint32_t lo, uint32_t hi, uint64_t end) {
    w.earliest = kNever;
    w.reach = kNever;
    w.visits += hi - lo;
    for (uint32_t h = lo; h < hi; ++h) {
      if (h + kAhead < hi) prefetch(hosts_[h + kAhead]);
      if (next_[h] >= end) {  // nothing in this window (kNever: nothing left)
        w.earliest = std::min(w.earliest, next_[h]);
        w.reach = std::min(w.reach, oldest_[h]);
        continue;
      }
      Host& x = hosts_[h];
      while (!x.pending.empty()) {
        const uint32_t k = next_event(x);
        if (x.pending[k].time >= end) break;
        take(w, h, x, k);
        if (w.failed) return;
      }
      x.pending.shrink();  // (a processor held up by noise has had many pending; most of the time it has a few)
      next_[h] = oldest_[h] = kNever;
      for (uint32_t k = 0; k < x.pending.size(); ++k) {
        next_[h] = std::min(next_[h], x.pending[k].time);
        oldest_[h] = std::min(oldest_[h], reach_of(x.pending[k]));
      }
      w.earliest = std::min(w.earliest, next_[h]);
      w.reach = std::min(w.reach, oldest_[h]);
      if (x.pending.empty()) finish_[h] = x.o;
    }
  }

  // The messages sent to w's processors in the window, to their receivers (only this thread reads
  // or clears the part of each thread's messages that is for its processors).
  void deliver(Worker& w, int t) {
    for (Worker& from : workers_) put_all(w, from.out[size_t(t)]);
  }
  static constexpr size_t kHeld = 4096;
  // Messages for w's processors, to their receivers.
  void put_all(Worker& w, std::vector<std::pair<uint32_t, Ev>>& msgs) {
    for (size_t i = 0; i < msgs.size(); ++i) {
      // (each receiver's state is a cache miss: fetched a few messages ahead)
      if (i + kAhead < msgs.size()) prefetch(hosts_[msgs[i + kAhead].first]);
      put(w, msgs[i].first, msgs[i].second);
    }
    msgs.clear();
  }
  // Message m at its receiver `to`, one of w's processors.
  void put(Worker& w, uint32_t to, const Ev& m) {
    Host& x = hosts_[to];
    if (x.pending.size() >= kMaxPending) w.failed = true;
    x.pending.push_back(m);
    next_[to] = std::min(next_[to], m.time);
    w.earliest = std::min(w.earliest, m.time);
    const uint64_t reach = reach_of(m);
    oldest_[to] = std::min(oldest_[to], reach);
    w.reach = std::min(w.reach, reach);
  }
  // A processor's pending events, asked for ahead of their use: the loops over processors and
  // messages read each processor's state once, a cache miss that cost a fifth of the window timing.
  static constexpr size_t kAhead = 8;
  static void prefetch(const Host& x) {
    for (size_t at = 0; at < sizeof x.pending; at += 64) __builtin_prefetch(reinterpret_cast<const char*>(&x.pending) + at, 1);
  }
  // Event k of h at its time: it runs when its clocks allow, else waits for them.
  void take(Worker& w, uint32_t h, Host& x, uint32_t k) {
    Ev& e = x.pending[k];
    const uint64_t t = e.time;
    if (e.type() == loggp::kSend) {
      const uint64_t ready = std::max(x.o, x.gs);
      if (ready > t) {
        e.time = ready;
        return;
      }
      ++w.events;
      ++w.messages;
      x.o = loggp::add_capped(t + rules_.send_cpu(h, e.size()), detour(h, t, rules_.o(h)));
      x.gs = t + rules_.nic(e.size());
      const Made by = made_by(w, h, t, e.made);
      if (!PackedMade::fits(by)) w.failed = true;  // a time past 2^48 ns
      const Ev m{rules_.arrival(h, t), PackedMade::pack(by), h, e.tag, Ev::pack(e.size(), loggp::kMsg, ago_of(t, e.made))};
      const size_t to = size_t(thread_of(e.peer));
      w.out[to].emplace_back(e.peer, m);
      // This thread's own receivers get theirs a few thousand at a time, not all at the window's
      // end (a message arrives at the end or later, so it is not taken in this window): the
      // messages of a window are not all kept at once (3 MB at 2^16 processors).
      if (to == size_t(&w - workers_.data()) && w.out[to].size() >= kHeld) put_all(w, w.out[to]);
      remove(x, k);
      return;
    }
    if (e.type() == loggp::kMsg) {
      const uint64_t ready = std::max(x.o, x.gr);
      if (ready > t) {
        e.time = ready;
        return;
      }
      ++w.events;
      x.o = loggp::add_capped(t + rules_.message_cpu(h, e.size()), detour(h, t, rules_.o(h)));
      x.gr = t + rules_.nic(e.size());
      const Ev done = e;
      remove(x, k);
      if (take_entry(x.queued, done.peer, done.tag)) complete_receive(w, h, x, t, done.made);
      else x.queued.push_back(Entry{done.peer | kUnexpected, done.tag});
      return;
    }
    // A receive: completes with an unexpected message, or is posted.
    ++w.events;
    const Ev done = e;
    remove(x, k);
    if (take_entry(x.queued, done.peer | kUnexpected, done.tag)) complete_receive(w, h, x, t, done.made);
    else x.queued.push_back(Entry{done.peer, done.tag});
  }

  // A receive of h completed at t by an event made as `made`: the batch's last releases the next.
  void complete_receive(Worker& w, uint32_t h, Host& x, uint64_t t, const PackedMade& made) {
    if (--x.outstanding > 0) return;
    w.ready.clear();
    int nrecv = 0;
    x.next_round = read(w, h, x.next_round, nrecv);
    x.outstanding = nrecv;
    if (w.ready.empty()) return;
    const Made by = made_by(w, h, t, made);
    const uint32_t ago = ago_of(t, made);
    for (size_t k = 0; k < w.ready.size() && !w.failed; ++k) {
      Made m = by;
      m.idx = uint16_t(k);
      add_op(w, x, w.ready[k], m, ago);
    }
  }

  // What an event of h made as `self`, run at t, gives the events it makes (the first; the others
  // differ in idx). `self` goes into w's log, for the order of makers at one time; the place it
  // takes there orders h's makers as their numbers among h's events would (PackedMade).
  Made made_by(Worker& w, uint32_t h, uint64_t t, const PackedMade& self) const {
    Made m;
    m.thread = uint8_t(&w - workers_.data());
    m.time = t;
    m.host = h;
    if (!w.makers.push(self, t, m.ref)) w.failed = true;  // 2^32 makers on one thread
    m.seq = m.ref;
    return m;
  }

  template <class Queue>
  static bool take_entry(Queue& q, uint32_t peer, uint32_t tag) {
    for (uint32_t i = 0; i < q.size(); ++i)
      if (q[i].peer == peer && q[i].tag == tag) {
        q.erase(i);
        return true;
      }
    return false;
  }
  static void remove(Host& x, uint32_t k) {
    x.pending[k] = x.pending.back();
    x.pending.pop_back();
  }

  uint64_t detour(uint32_t h, uint64_t t, uint64_t len) { return loggp::counted_detour(noise_, noise_per_host_, h, t, len); }

  // The times, once every processor has run all its rounds; nothing where one has not (a receive
  // or a message left unmatched: the event engine reports it) or a clock wrapped.
  std::optional<loggp::Result> result() {
    uint64_t events = 0, messages = 0;
    for (const Worker& w : workers_) {
      events += w.events;
      messages += w.messages;
    }
    for (const Host& x : hosts_)
      if (x.outstanding != 0 || x.next_round <= R_ || !x.queued.empty()) return std::nullopt;
    return loggp_rounds::finished(std::move(finish_), std::move(noise_per_host_), events, messages);
  }

  const loggp::Params& P_;
  const loggp_rounds::RunEffects effects_;
  const loggp::Rules rules_;
  const loggp::Noise* noise_;
  const uint32_t p_;
  const int R_;
  const int threads_;
  uint64_t window_ = 0;
  std::vector<Host> hosts_;
  std::vector<uint64_t> next_;    // each processor's earliest event (kNever: none)
  std::vector<uint64_t> oldest_;  // the oldest time its pending events reach in the makers' logs (reach_of)
  std::vector<uint64_t> finish_;
  std::vector<uint64_t> noise_per_host_;
  std::vector<Worker> workers_;
  std::vector<uint32_t> bounds_;  // where each thread's processors after the first begin
};

}  // namespace

std::optional<loggp::Result> loggp_windows(const RunConfig& c, int threads, uint64_t* held_makers) {
  WindowTiming timing(c, threads);
  std::optional<loggp::Result> r = timing.run();
  if (held_makers) *held_makers = timing.held_makers();
  return r;
}

}  // namespace ppsim
