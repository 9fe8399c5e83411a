// The LogGP times of a GOAL schedule in windows of time, every rank on its own (goal.h's
// simulate; the same reasoning as the algorithms' window timing, loggp/loggp_windows.cpp): the
// event engine (loggp.h) takes every event of the machine from one queue in order of time, then
// creation; only messages cross from one rank to another, and a message sent at t is at its
// receiver at t + o + L. So with W the earliest time of any event left and D the least o + L, each
// rank can take its events of [W, W + D) alone, in the engine's order, while the messages they
// send wait for the window's end. Ranks are read in order, each one's clocks, pending events and
// queued receives in one place, its operations next to those of the ranks before and after it:
// under independent noise the engine's queue visits ranks in no order at all, and its cache misses
// were most of its time. (It runs under independent noise only: usable() says why.)
//
// Two events of one rank at one time run in the engine's order of creation, found through who
// made them (loggp/loggp_makers.h). An event that made others is logged with its own maker; a
// send's message is made before the operations the send makes ready, and those operations in the
// order the engine queues them (its std::sort by type on the same sequence).
//
// Left to the event engine (the caller runs it where this gives nothing): no noise or noise in
// phase, several CPUs or NICs, a rendezvous (a size above S ties the sender to the receiver's
// time), a clock that wraps (a 0-byte message), D = 0, a recorder, a rank with too many events
// pending at once, a receive or message left unmatched, an operation that never runs, a time past
// the limit (or a maker that runs at 2^48 ns or later), a detour longer than the noise trace
// allows, a comparison that reaches a maker no longer kept, and runs whose windows would cost more
// than their events.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_makers_log.h"
#include "goal/goal_waits.h"
#include "goal/goal_window_events.h"
#include "loggp/huge_alloc.h"
#include "loggp/inline_vec.h"
#include "loggp/loggp.h"
#include "loggp/loggp_events.h"
#include "loggp/loggp_makers.h"
#include "ppsim/noise.h"

namespace ppsim::goal::detail {

class WindowTiming {
 public:
  WindowTiming(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx)
      : s_(s), rules_(P, fx.stragglers), noise_(fx.noise), usable_(usable(s, P, fx)), makers_(RecentMakers::bits_for(s.ranks)) {}

  std::optional<loggp::Result> run() {
    if (!usable_) return std::nullopt;
    try {
      start();
      for (uint64_t windows = 0; earliest_ != kNever; ++windows) {
        // (windows too many for their events, each a pass over the ranks: the engine is faster)
        if (failed_ || windows > (uint64_t(1) << 22) || visits_ > 8 * events_ + (uint64_t(1) << 24)) return std::nullopt;
        const uint64_t end = earliest_ + window_ < earliest_ ? kNever : earliest_ + window_;
        run_window(end);
        deliver();
        forget_old_makers();
      }
    } catch (const NoiseError&) {
      return std::nullopt;  // a detour the trace cannot give: the engine names the operation
    } catch (const RecentMakers::Gone&) {
      return std::nullopt;  // a tie traced back past the makers kept (RecentMakers)
    }
    if (failed_) return std::nullopt;
    return result();
  }

 private:
  using Made = loggp_makers::Made;
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  static constexpr uint32_t kMaxPending = 256;  // beyond this a rank's scan for its next event costs more than the engine
  static constexpr uint32_t kMostMade = 65535;  // events one event makes (an index of 16 bits)

  using Ev = PendingEvent;
  static constexpr uint32_t kTagInSchedule = PendingEvent::kTagInSchedule;
  // An event at `time` made as m; failed_ where its maker ran too long before it (or after it).
  Ev event(uint64_t time, const PackedMade& m, uint64_t size, uint8_t type, uint32_t tag, uint32_t peer, uint32_t arg) {
    bool fits = true;
    const Ev e = Ev::of(time, m, size, type, tag, peer, arg, fits);
    if (!fits) failed_ = true;
    return e;
  }
  // The tag of operation event e, from e where it is kept there.
  uint32_t tag_of(const Ev& e) const { return e.tag() != kTagInSchedule ? e.tag() : s_.peer_tag(e.arg).second; }
  static constexpr uint32_t kNoOp = ~uint32_t(0);
  // A rank's state, in two cache lines. A posted receive is its operation alone (the schedule has
  // its source and tag), in the rank's slice of posted_: a rank may post many at once.
  struct alignas(64) Rank {
    uint64_t o = 0, gs = 0, gr = 0;  // the clocks (loggp.h)
    loggp::InlineVec<Ev, 2> pending;
    UnexpectedQueue uq;
    uint32_t rq_head = 0, rq_tail = 0;  // its posted receives, in posted_
    uint32_t first_posted = kNoOp;      // the operation of the first of them (kNoOp: none)
  };
  static_assert(sizeof(Rank) == 128);

  // Without noise, or with one phase for all, every rank's events come at the same few times: the
  // engine's queue takes them rank by rank already, and the windows' ties between makers cost more
  // than they save (a quiet run took 1.7 times as long); independent phases scatter them.
  static bool usable(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx) {
    if (!fx.noise || fx.noise->cosched()) return false;
    if (fx.recorder || s.cpus != 1 || s.nics != 1 || s.ranks == 0) return false;
    for (uint32_t i = 0; i < s.size(); ++i)
      if (const OpFields op = s.op(i); op.type != loggp::kCalc && op.size > P.S) return false;
    return true;
  }

  // Dependency counters, the window length, and every rank's operations ready from the start, in
  // the order the engine takes them (at time 0, by type), run up to the end of the first window.
  void start() {
    const uint32_t p = s_.ranks;
    window_ = rules_.arrival(0, 0);
    if (rules_.stragglers())
      for (uint32_t h = 1; h < p; ++h) window_ = std::min(window_, rules_.arrival(h, 0));
    if (window_ == 0) {
      failed_ = true;
      return;
    }
    waits_.emplace(s_);
    ranks_.resize(p);
    auto first = [&](uint32_t h) { return s_.first[h]; };
    auto receives = [&](uint32_t h) {
      uint32_t n = 0;
      for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i) n += s_.type(i) == loggp::kRecv;
      return n;
    };
    posted_.assign(p, first, receives, [&](uint32_t h, uint32_t at) { ranks_[h].rq_head = ranks_[h].rq_tail = at; });
    next_.assign(p, kNever);
    oldest_.assign(p, kNoMaker);
    if (noise_) noise_per_rank_.assign(p);
    for (uint32_t h = 0; h < p && !failed_; ++h) {
      ready_.clear();
      for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i)
        if (waits_->ready(i)) ready_.push_back(i);
      if (ready_.size() > kMostMade || ready_.size() > kMaxPending) failed_ = true;
      sort_by_type();
      // (every operation ready at the start runs at 0 before anything made later, in this order:
      // each is taken as it is added, instead of found again among all of them, which cost a
      // comparison with each of the others for every one taken)
      roots_.assign(ready_.begin(), ready_.end());  // (take() fills ready_ anew)
      Rank& x = ranks_[h];
      for (uint32_t k = 0; k < roots_.size() && !failed_; ++k) {
        add(x, roots_[k], PackedMade::root(uint16_t(k)), true);
        if (!failed_) take(h, x, x.pending.size() - 1);
      }
      run_rank(h, window_);  // the first window at once: its receives posted, not held as events
      ranks_[h].pending.shrink();
      if (out_.size() >= kHeld) deliver();
    }
    deliver();
  }

  // The operations made ready together, in the engine's order (ReadyOrder).
  void sort_by_type() {
    order_.sort(ready_, [this](uint32_t i) { return s_.type(i); });
  }

  // Operation i made ready as `m`, at the time its clocks allow (a send also waits for its NIC; at
  // the start, time 0).
  void add(Rank& x, uint32_t i, const PackedMade& m, bool start = false) {
    if (x.pending.size() >= kMaxPending) {
      failed_ = true;
      return;
    }
    const OpFields o = s_.op(i);
    const uint64_t at = start ? 0 : o.type == loggp::kSend ? std::max(x.o, x.gs) : x.o;
    x.pending.push_back(event(at, m, o.size, o.type, o.type == loggp::kCalc ? kTagInSchedule : o.tag, o.peer, i));
  }

  // Each rank's events before `end`, rank by rank (their states are read as they lie in memory).
  // The ranks with events in the window are listed first, so that what each reads is fetched a
  // few of them ahead however sparse they are.
  void run_window(uint64_t end) {
    earliest_ = kNever;
    visits_ += s_.ranks;
    active_.clear();
    for (uint32_t h = 0; h < s_.ranks; ++h) {
      if (next_[h] < end) active_.push_back(h);
      else earliest_ = std::min(earliest_, next_[h]);  // (kNever: nothing left)
    }
    const size_t n = active_.size();
    for (size_t i = 0; i < n && !failed_; ++i) {
      if (i + kAhead < n) prefetch(ranks_[active_[i + kAhead]]);
      // (a message takes the first posted receive, and what completes it reads the operations
      // next to it: fetched once the rank's state, fetched before, says where they are)
      if (i + kAhead / 2 < n) {
        const Rank& y = ranks_[active_[i + kAhead / 2]];
        if (const uint32_t op = y.first_posted; op != kNoOp) {
          s_.prefetch_op(op);
          s_.done.prefetch(op);
          waits_->prefetch(op);
        }
        // (and what finding its next event and its oldest maker reads: its events beyond the
        // two kept in its state, and their makers)
        y.pending.prefetch_heap();
        for (uint32_t k = 0; k < std::min<uint32_t>(y.pending.size(), 2); ++k)
          if (!y.pending[k].root()) makers_.prefetch(y.pending[k].made_ref);
      }
      run_rank(active_[i], end);
      if (out_.size() >= kHeld) deliver();
    }
  }

  // Rank h's events before `end`, in the engine's order.
  void run_rank(uint32_t h, uint64_t end) {
    Rank& x = ranks_[h];
    while (!x.pending.empty() && !failed_) {
      const uint32_t k = next_event(h, x);
      if (x.pending[k].time >= end) break;
      take(h, x, k);
    }
    x.pending.shrink();  // (a rank held up by noise has had many pending; most of the time it has a few)
    next_[h] = kNever;
    oldest_[h] = kNoMaker;
    for (uint32_t k = 0; k < x.pending.size(); ++k) {
      next_[h] = std::min(next_[h], x.pending[k].time);
      oldest_[h] = std::min(oldest_[h], reach(x.pending[k].made_ref));
    }
    earliest_ = std::min(earliest_, next_[h]);
  }

  // The makers no pending event can reach, given back: those before the makers of every pending
  // event's maker. (Events made later reach back through the pending ones, so no further.)
  void forget_old_makers() {
    uint64_t keep = makers_.size();
    for (uint32_t r : oldest_) keep = std::min<uint64_t>(keep, r);
    makers_.forget_before(keep);
  }
  // The oldest maker an event whose maker is entry `ref` reaches in two steps (kNoMaker: none, a
  // root).
  static constexpr uint32_t kNoMaker = ~uint32_t(0);
  uint32_t reach(uint32_t ref) const {
    if (ref == PackedMade::kRoot) return kNoMaker;
    const Made up = makers_[ref];
    return up.root ? ref : up.ref;
  }

  // The messages sent in the window so far, to their receivers: after each rank once kHeld of them
  // are held, and at the window's end. Each arrives at the window's end or later (D is the least
  // o + L), so a receiver that has yet to run in this window does not take it, and what each
  // rank takes stays the same; only the queue of messages held is short (it was 48 bytes for each
  // message of a window: 3 MB at 2^16 ranks).
  static constexpr size_t kHeld = 4096;
  void deliver() {
    for (size_t i = 0; i < out_.size(); ++i) {
      if (i + kAhead < out_.size()) prefetch(ranks_[out_[i + kAhead].to]);
      const auto& [to, reach, m] = out_[i];
      Rank& x = ranks_[to];
      if (x.pending.size() >= kMaxPending) failed_ = true;
      x.pending.push_back(m);
      next_[to] = std::min(next_[to], m.time);
      oldest_[to] = std::min(oldest_[to], reach);
      earliest_ = std::min(earliest_, m.time);
    }
    out_.clear();
  }
  // A rank's state, asked for a few ranks ahead of its use: ranks are read in order, but only some
  // in each window (and messages reach them in no order), and each one's state is a cache miss.
  static constexpr uint32_t kAhead = 8;
  static void prefetch(const Rank& x) {
    for (size_t at = 0; at < sizeof x; at += 64) __builtin_prefetch(reinterpret_cast<const char*>(&x) + at, 1);
  }

  // The next event of x: the earliest, ties by creation.
  uint32_t next_event(uint32_t h, const Rank& x) const {
    auto log_of = [this](uint8_t) -> const RecentMakers& { return makers_; };
    uint32_t best = 0;
    for (uint32_t k = 1; k < x.pending.size(); ++k) {
      const Ev& a = x.pending[k];
      const Ev& b = x.pending[best];
      if (a.time < b.time || (a.time == b.time && made_before(a.made(h), b.made(h), log_of))) best = k;
    }
    return best;
  }

  // Whether an event made as a comes before one made as b at the same time: at once where their
  // makers ran at different times or on one rank (most ties), else by loggp_makers::creation_order.
  template <class Log>
  static bool made_before(const PackedMade& a, const PackedMade& b, Log&& log_of) {
    if (!a.is_root() && !b.is_root()) {
      if (a.time_idx >> 16 != b.time_idx >> 16) return a.time_idx < b.time_idx;
      if (a.host == b.host) return a.ref != b.ref ? a.ref < b.ref : a.time_idx < b.time_idx;
      return loggp_makers::creation_order(a.unpack(), b.unpack(), log_of) < 0;
    }
    // (made at the start: before anything made later, and among themselves by idx, as
    // creation_order says)
    return a.is_root() && b.is_root() ? uint16_t(a.time_idx) < uint16_t(b.time_idx) : a.is_root();
  }

  // Event k of rank h at its time: it runs when its clocks allow, else waits for them.
  void take(uint32_t h, Rank& x, uint32_t k) {
    Ev& e = x.pending[k];
    if (const uint64_t free = free_at(x, e); free > e.time) {
      // (its maker's time kept: later by as much as it waits)
      if (!e.root() && (free - e.time + e.made_ago) >> 32) failed_ = true;
      e.made_ago += uint32_t(free - e.time);
      e.time = free;
      return;
    }
    const Ev ev = e;
    x.pending[k] = x.pending.back();
    x.pending.pop_back();
    ++events_;
    ready_.clear();
    switch (ev.type()) {
      case loggp::kSend: return send(h, x, ev);
      case loggp::kRecv: return receive(h, x, ev);
      case loggp::kMsg: return message(h, x, ev);
      default: return calc(h, x, ev);
    }
  }

  // When the clocks an event needs are free (a receive needs none).
  static uint64_t free_at(const Rank& x, const Ev& e) {
    switch (e.type()) {
      case loggp::kSend: return std::max(x.o, x.gs);
      case loggp::kMsg: return std::max(x.o, x.gr);
      case loggp::kCalc: return x.o;
      default: return 0;
    }
  }

  // A calc of c ns holds its CPU for c (a straggler's longer) and its detours.
  void calc(uint32_t h, Rank& x, const Ev& e) {
    const uint64_t c = rules_.stragglers() ? rules_.stragglers()->scaled(h, e.size()) : e.size();
    x.o = loggp::add_capped(e.time + c, detour(h, e.time, c));
    release(s_.start, h, e.arg);
    release(s_.done, h, e.arg);
    ++done_;
    made(h, x, e, 0);
  }

  // A send holds its CPU and NIC; its message (made first) is at the receiver at t + o + L; an
  // eager send is done at once.
  void send(uint32_t h, Rank& x, const Ev& e) {
    const uint64_t t = e.time;
    ++messages_;
    release(s_.start, h, e.arg);
    x.o = loggp::add_capped(t + rules_.send_cpu(h, e.size()), detour(h, t, rules_.o(h)));
    x.gs = t + rules_.nic(e.size());
    if (x.o < t || x.gs < t) failed_ = true;  // a clock that wrapped (a 0-byte message)
    release(s_.done, h, e.arg);
    ++done_;
    const PackedMade by = made(h, x, e, 1);
    // (the oldest maker it reaches, reach(by.ref), is the send's maker, or the send where that was a root)
    const Ev m = event(rules_.arrival(h, t), by, e.size(), loggp::kMsg, kTagInSchedule, h, tag_of(e));
    out_.push_back(Sent{e.peer, e.root() ? by.ref : e.made_ref, m});
  }

  // A receive completes at once with a message already there, or is posted.
  void receive(uint32_t h, Rank& x, const Ev& e) {
    release(s_.start, h, e.arg);
    const uint32_t tag = tag_of(e);
    auto sent = [&](const Unexpected& u) { return loggp::detail::matches(e.peer, tag, u.peer, u.tag); };
    if (Unexpected got; take_first(x.uq, sent, got)) complete(h, e.arg);
    else post(h, x, e.arg, e.peer);
    made(h, x, e, 0);
  }

  // A message holds the receiver's CPU and NIC; it completes a posted receive, or waits for one.
  void message(uint32_t h, Rank& x, const Ev& e) {
    const uint64_t t = e.time;
    x.o = loggp::add_capped(t + rules_.message_cpu(h, e.size()), detour(h, t, rules_.o(h)));
    x.gr = t + rules_.nic(e.size());
    if (x.o < t || x.gr < t) failed_ = true;
    auto posted = [&](uint32_t r) {
      const auto [peer, tag] = s_.peer_tag(r);
      return loggp::detail::matches(e.peer, e.arg, peer, tag);
    };
    if (uint32_t got; posted_.take(x.rq_head, x.rq_tail, s_.first[h], e.peer, posted, got)) {
      x.first_posted = x.rq_head != x.rq_tail ? posted_.at(x.rq_head, s_.first[h]) : kNoOp;
      complete(h, got);
    } else {
      x.uq.push_back(Unexpected{e.peer, e.arg});
    }
    made(h, x, e, 0);
  }

  // Receive `op` of h, from src, posted.
  void post(uint32_t h, Rank& x, uint32_t op, uint32_t src) {
    if (x.rq_head == x.rq_tail) x.first_posted = op;
    posted_.post(x.rq_tail, s_.first[h], op, src);
  }

  void complete(uint32_t h, uint32_t op) {
    release(s_.done, h, op);
    ++done_;
  }

  // The operations that wait for h's `op` (one of the schedule's dependency lists), into ready_
  // where it was the last they waited for.
  void release(const DepLists& lists, uint32_t h, uint32_t op) {
    lists.each(s_.first, h, op, [&](uint32_t j) {
      if (waits_->release(j)) ready_.push_back(j);
    });
  }

  // The event `e` of h just run: it becomes a maker when it made anything (a message counts as
  // `first` made before the operations in ready_), and those operations are queued at h's
  // clocks. Returns how it made them (idx 0).
  PackedMade made(uint32_t h, Rank& x, const Ev& e, uint32_t first) {
    PackedMade by;
    if (first == 0 && ready_.empty()) return by;
    if (ready_.size() + first > kMostMade || !PackedMade::fits(e.time)) failed_ = true;
    by.time_idx = e.time << 16;
    by.host = h;
    if (!makers_.push(e.made(h), by.ref)) failed_ = true;  // 2^32 makers
    sort_by_type();
    for (uint32_t k = 0; k < ready_.size() && !failed_; ++k)
      add(x, ready_[k], by.with_idx(uint16_t(first + k)));
    return by;
  }

  // The first entry that matches (the source and tag rule of the engine's MatchQueues); removed.
  template <class Queue, class Match, class Entry>
  static bool take_first(Queue& q, Match&& match, Entry& out) {
    for (uint32_t i = 0; i < q.size(); ++i) {
      if (match(q[i])) {
        out = q[i];
        q.erase(i);
        return true;
      }
    }
    return false;
  }

  uint64_t detour(uint32_t h, uint64_t t, uint64_t len) {
    if (!noise_) return 0;
    const uint64_t d = noise_->detour(h, t, len);
    noise_per_rank_.add(h, d);
    return d;
  }

  // The times, once every operation has run and every message was received; nothing where one
  // has not, or a time passed the limit (the engine reports either).
  std::optional<loggp::Result> result() {
    if (done_ != s_.size()) return std::nullopt;
    // (what the times no longer need given back first: the finishing times come at the run's peak)
    makers_ = RecentMakers();
    waits_.reset();
    posted_ = loggp::detail::PostedSlots();
    std::vector<uint64_t>().swap(next_);
    std::vector<uint32_t>().swap(oldest_);
    loggp::Result res;
    res.events = events_;
    res.messages = messages_;
    res.finish.resize(s_.ranks);
    for (uint32_t h = 0; h < s_.ranks; ++h) {
      const Rank& x = ranks_[h];
      if (x.rq_head != x.rq_tail || !x.uq.empty() || x.o >= loggp::kTimeLimit) return std::nullopt;
      res.finish[h] = x.o;
      if (x.o > res.time) {
        res.time = x.o;
        res.last_host = h;
      }
    }
    std::vector<uint64_t> noise_per_rank = noise_per_rank_.take();
    for (uint64_t n : noise_per_rank) res.noise = loggp::add_capped(res.noise, n);
    if (res.noise >= loggp::kTimeLimit) return std::nullopt;
    res.noise_per_host = std::move(noise_per_rank);
    return res;
  }

  const Schedule& s_;
  const loggp::Rules rules_;
  const loggp::Noise* noise_;
  const bool usable_;
  uint64_t window_ = 0, earliest_ = kNever;
  std::optional<WaitCounts> waits_;  // dependencies each operation still waits for
  std::vector<Rank> ranks_;
  loggp::detail::PostedSlots posted_;  // every rank's posted receives
  std::vector<uint64_t> next_;     // each rank's earliest event (kNever: none)
  std::vector<uint32_t> oldest_;   // the oldest maker each rank's pending events reach (reach())
  loggp::DetourTotals noise_per_rank_;
  struct Sent {
    uint32_t to, reach;  // its receiver; the oldest maker it reaches (reach())
    Ev m;
  };
  std::vector<Sent> out_;  // the messages sent in this window
  std::vector<uint32_t> ready_;               // operations made ready by the event being run
  std::vector<uint32_t> active_;              // the ranks with events in the window
  std::vector<uint32_t> roots_;               // a rank's operations ready at the start
  ReadyOrder order_;
  RecentMakers makers_;
  uint64_t events_ = 0, messages_ = 0, done_ = 0, visits_ = 0;
  bool failed_ = false;
};

}  // namespace ppsim::goal::detail
