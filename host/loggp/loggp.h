// LogGP / LogGOPS timing of a schedule of sends, receives and local computations, event by event,
// with the rules of LogGOPSim (Hoefler, Schneider, Lumsdaine 2010; spcl/LogGOPSim at 76451de) so
// that every host's finishing time agrees with it to the nanosecond (docs/DESIGN.md §3b).
//
// Each host has CPUs (clock nexto: the next time its overhead o may start) and NICs (clocks nextgs
// and nextgr: the next send and receive the gap g allows). With s the size in bytes:
//   send at t      needs nexto, nextgs <= t;  nexto = t + o + (s-1)·O,  nextgs = t + g + (s-1)·G;
//                  its message is at the receiver at t + o + L; an eager send (s <= S) is done at t,
//                  a rendezvous send (s > S) when its receive matches it (and its host's clocks are
//                  moved up to that moment)
//   message at t   needs the receiver's nexto, nextgr <= t;  nexto = t + o + max((s-1)·O, (s-1)·G),
//                  nextgr = t + g + (s-1)·G; it completes a posted receive that matches it (source and
//                  tag, -1 matching any, the first in posting order) or waits in the unexpected queue
//   receive at t   completes at once from the unexpected queue, or is posted
//   calc of c at t needs nexto <= t;  nexto = t + c
// An operation that cannot start at its time is put back at the time its clocks allow. Operations
// are taken in order of time, ties in order of creation; those that become ready together start
// sends first, then receives, then computations. Sizes are unsigned 64-bit as in LogGOPSim, so
// (s-1) for a 0-byte message wraps: such a message costs g - G on the sending NIC (kept, to agree).
// A host's finishing time is the latest of its CPUs' nexto.
// Effects (both optional): OS noise lengthens a CPU operation (a calc's c, a send's or a message's o)
// by the detours it meets (noise.h); a straggler's o, O and calc take its factor longer (o' = F·o,
// rounded; its messages leave at t + o' + L), as ppsim/stragglers.h says.
//
// The schedule comes from a Source (a GOAL file, goal.h, or an algorithm's rounds, loggp_run.cpp):
//   uint32_t hosts() const; int cpus() const; int nics() const;
//   void roots(uint32_t host, std::vector<ReadyOp>& out);           // ready from the start
//   void started(uint32_t host, uint32_t op, std::vector<ReadyOp>& out);  // ops that irequire it
//   void done(uint32_t host, uint32_t op, std::vector<ReadyOp>& out);     // ops that require it
//   std::string name(uint32_t host, uint32_t op) const;            // for reports: "label l3 (line 12)"
//   std::string never_ready() const;                                  // "" or the first op never ready
// and, where it can tell them from the operation alone and knows every host's receives ahead (then
// a posted receive keeps only its operation's offset, loggp_events.h's PostedSlots):
//   std::pair<uint32_t, uint32_t> receive_of(uint32_t host, uint32_t op) const;  // its (source, tag)
//   uint32_t first_op(uint32_t host) const;  // its operations are first_op(host) .. first_op(host + 1) - 1
//   uint32_t receives(uint32_t host) const;  // how many of them are receives
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loggp/loggp_events.h"
#include "loggp/noise.h"
#include "ppsim/cost.h"
#include "ppsim/stragglers.h"

namespace ppsim::loggp {

using Params = LogGPParams;  // ppsim/cost.h: L, o, g, G, O, S and LogGOPSim's defaults

// Parameter limits: every time stays below 2^62 for any schedule whose sizes are below 2^40.
inline constexpr uint64_t kMaxParam = uint64_t(1) << 40;       // L, o, g, S
inline constexpr uint64_t kMaxPerByte = uint64_t(1) << 20;     // G, O
inline constexpr uint64_t kMaxSize = (uint64_t(1) << 40) - 1;  // bytes of a message, ns of a calc
// (kTimeLimit, the limit of every time: noise.h)

// A schedule that cannot finish, or a time beyond kTimeLimit.
struct StuckError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A time at or past kTimeLimit: not a schedule that cannot finish but a run whose times do not fit,
// refused as a time that overflows to infinity is (exit 2, under --goal as for an algorithm).
struct TimeOverflowError : StuckError {
  using StuckError::StuckError;
};

// Who watches the clocks (--timeline): told of every interval a CPU or a NIC is busy, and of every
// message, on the hosts it watches. `id` ties a message's send to its handling at the receiver.
struct Recorder {
  virtual bool watches(uint32_t h) const = 0;
  // CPU `cpu` of host h busy from `start` for `dur` (kind: "o send", "o recv", "calc"), then for
  // `detour` more (OS noise).
  virtual void cpu(uint32_t h, uint32_t cpu, const char* kind, uint64_t start, uint64_t dur, uint64_t detour, uint32_t peer,
                   uint64_t bytes) = 0;
  // NIC `nic` of host h busy from `start` for `dur`, sending or receiving.
  virtual void nic(uint32_t h, uint32_t nic, bool send, uint64_t start, uint64_t dur) = 0;
  // A message from `from` (its send started at `start` on CPU `cpu`; it leaves at `leaves`, is at
  // `to` at `arrives`) and the time `to` starts handling it.
  virtual void sent(uint32_t from, uint32_t cpu, uint32_t to, uint64_t id, uint64_t start, uint64_t leaves, uint64_t arrives, uint64_t bytes) = 0;
  virtual void handled(uint32_t to, uint32_t cpu, uint32_t from, uint64_t id, uint64_t at) = 0;

 protected:
  ~Recorder() = default;
};

// What perturbs or watches the clocks (null: nothing).
struct Effects {
  const Noise* noise = nullptr;
  const Stragglers* stragglers = nullptr;
  Recorder* recorder = nullptr;  // the event engine only (the lockstep timing records nothing)
};

struct Result {
  std::vector<uint64_t> finish;  // per host
  uint64_t time = 0;             // the latest finish
  uint32_t last_host = 0;        // the lowest host that finishes at `time`
  uint64_t events = 0;           // operations and messages taken from the queue (first takes)
  uint64_t messages = 0;
  // An operation that never ran (its dependencies never completed: a cycle, or a send never
  // completed), named with its rank and label; "" when every operation ran. LogGOPSim prints
  // the times all the same, and so are they here; callers report the schedule as unfinished.
  std::string unfinished;
  // With noise: the detours added to each host's CPU operations, and their sum (else empty, 0).
  std::vector<uint64_t> noise_per_host;
  uint64_t noise = 0;
};

// The rules' costs, written once for the event engine, the lockstep batches (loggp_batch.h) and
// the windows (loggp_windows.cpp): host h's o and O (a straggler's its factor longer), how long a
// send or a handled message of s bytes holds its CPU and its NIC, and when a message sent at t
// arrives. (s - 1 wraps for s = 0, as LogGOPSim's does.)
class Rules {
 public:
  Rules(const Params& P, const Stragglers* slow) : P_(P), slow_(slow && slow->any() ? slow : nullptr) {}
  uint64_t o(uint32_t h) const { return slow_ ? slow_->scaled(h, P_.o) : P_.o; }
  uint64_t O(uint32_t h) const { return slow_ ? slow_->scaled(h, P_.O) : P_.O; }
  uint64_t send_cpu(uint32_t h, uint64_t s) const { return o(h) + (s - 1) * O(h); }
  uint64_t message_cpu(uint32_t h, uint64_t s) const { return o(h) + std::max((s - 1) * O(h), (s - 1) * P_.G); }
  uint64_t nic(uint64_t s) const { return P_.g + (s - 1) * P_.G; }
  uint64_t arrival(uint32_t from, uint64_t sent) const { return sent + o(from) + P_.L; }
  const Stragglers* stragglers() const { return slow_; }

 private:
  const Params& P_;
  const Stragglers* slow_;  // null when none straggles
};

namespace detail {

// LogGOPSim sorts operations made ready together by type with std::sort: not stable beyond 16
// of them, but the same library sort on the same sequence gives the same order.
inline constexpr auto by_type = [](const ReadyOp& a, const ReadyOp& b) { return a.type < b.type; };

// The event engine over one Source: every host's clocks, the queue of events, the posted receives
// and unexpected messages. run() takes the events in LogGOPSim's order until none is left.
template <class Source>
class Engine {
 public:
  Engine(Source& src, const Params& P, const Effects& fx)
      : src_(src), P_(P), rules_(P, fx.stragglers), noise_(fx.noise), rec_(fx.recorder),
        p_(src.hosts()),
        ncpu_(size_t(src.cpus())), nnic_(size_t(src.nics())), nexto_(p_ * ncpu_, 0), nextgr_(p_ * nnic_, 0), nextgs_(p_ * nnic_, 0),
        rq_(p_), uq_(p_) {
    if (noise_) res_.noise_per_host.assign(p_, 0);
    if constexpr (kPostedByOp)
      rq_.assign(p_, [&](uint32_t h) { return src_.first_op(h); }, [&](uint32_t h) { return src_.receives(h); });
  }

  Result run() {
    take_roots();
    while (!aq_.empty()) handle(aq_.pop());
    throw_if_unmatched();
    res_.unfinished = src_.never_ready();
    record_finish_times();
    return std::move(res_);
  }

 private:
  // The operations ready from the start (LogGOPSim queues them all at time 0, host by host, before
  // anything else, so they come first: they are taken here one host at a time instead of being
  // queued, and every later event is numbered after them).
  void take_roots() {
    uint64_t root_ts = 0;
    std::vector<ReadyOp> roots;
    for (uint32_t h = 0; h < p_; ++h) {
      roots.clear();
      src_.roots(h, roots);
      std::sort(roots.begin(), roots.end(), by_type);
      for (const ReadyOp& r : roots) handle(make_event(0, root_ts++, r, h));
    }
  }

  // One event: its rule runs it (or puts it back for when its clocks allow), then the operations
  // it made ready are queued.
  void handle(const Event& e) {
    ready_.clear();
    marks_.clear();
    first_host_ = kNoHost;
    switch (e.type()) {
      case kCalc: calc(e); break;
      case kSend: send(e); break;
      case kRecv: receive(e); break;
      case kMsg: message(e); break;
      default: break;
    }
    if (!ready_.empty()) queue_ready();
  }

  uint64_t& cpu_clock(const Event& e) { return nexto_[e.host * ncpu_ + e.cpu()]; }

  // Host h's o and O (a straggler's are its factor longer), and a calc of c ns there.
  uint64_t calc_of(uint32_t h, uint64_t c) const { return rules_.stragglers() ? rules_.stragglers()->scaled(h, c) : c; }
  // The noise a CPU operation of h from t for len meets (noise.h), counted.
  uint64_t detour(uint32_t h, uint64_t t, uint64_t len) {
    if (!noise_) return 0;
    uint64_t d;
    if (noise_->cosched()) {
      // (one phase for every host: the detour depends on the start and length alone, and hosts
      // that keep in step ask for the same ones in turn)
      if (!memo_.valid || memo_.t != t || memo_.len != len) memo_ = Memo{t, len, noise_->detour(h, t, len), true};
      d = memo_.d;
    } else {
      d = noise_->detour(h, t, len);
    }
    res_.noise_per_host[h] = add_capped(res_.noise_per_host[h], d);
    res_.noise = add_capped(res_.noise, d);
    return d;
  }

  // An event whose clocks are not free yet goes back in the queue for when they are (it keeps its
  // creation stamp).
  void put_back(Event e, uint64_t when) {
    e.time = when;
    aq_.push(e);
  }

  // A computation of c ns holds its CPU for c.
  void calc(const Event& e) {
    uint64_t& o_clock = cpu_clock(e);
    if (o_clock > e.time) return put_back(e, o_clock);
    const uint64_t c = calc_of(e.host, e.size), d = detour(e.host, e.time, c);
    o_clock = add_capped(e.time + c, d);
    if (rec_ && rec_->watches(e.host)) rec_->cpu(e.host, e.cpu(), "calc", e.time, c, d, e.host, 0);
    ++res_.events;
    mark_started(e.host, e.op);
    mark_done(e.host, e.op);
  }

  // A send holds its CPU for o + (s-1)O and its NIC for g + (s-1)G; its message is at the receiver
  // at t + o + L.
  void send(const Event& e) {
    uint64_t& o_clock = cpu_clock(e);
    uint64_t& gs = nextgs_[e.host * nnic_ + e.nic()];
    if (std::max(o_clock, gs) > e.time) return put_back(e, std::max(o_clock, gs));
    ++res_.events;
    ++res_.messages;
    mark_started(e.host, e.op);
    const uint64_t d = detour(e.host, e.time, rules_.o(e.host));
    o_clock = add_capped(e.time + rules_.send_cpu(e.host, e.size), d);
    gs = e.time + rules_.nic(e.size);
    Event m = e;
    m.set_type(kMsg);
    m.host = e.target;
    m.target = e.host;
    m.time = rules_.arrival(e.host, e.time);
    m.set_ts(aqtime_++);
    if (rec_) record_send(e, m, d);
    aq_.push(m);
    if (e.size <= P_.S) mark_done(e.host, e.op);  // eager: done when handed to the NIC
  }

  // A receive completes at once with a message already there, or is posted.
  void receive(const Event& e) {
    ++res_.events;
    mark_started(e.host, e.op);
    QueueEntry got;
    if (uq_.take(e.host, [&](const QueueEntry& u) { return matches(e.target, e.tag, u.src, u.tag); }, got)) {
      if (e.size > P_.S) rendezvous_done(got.src, got.op, e.cpu(), e.nic(), e.time);
      mark_done(e.host, e.op);
    } else if constexpr (kPostedByOp) {
      rq_.post(e.host, src_.first_op(e.host), e.op, e.target);
    } else {
      rq_.append(e.host, QueueEntry{e.target, e.tag, e.op, -1});
    }
  }

  // A message holds the receiver's CPU for o + max((s-1)O, (s-1)G) and its NIC for g + (s-1)G;
  // it completes a posted receive, or waits for one.
  void message(const Event& e) {
    uint64_t& o_clock = cpu_clock(e);
    uint64_t& gr = nextgr_[e.host * nnic_ + e.nic()];
    if (std::max(o_clock, gr) > e.time) return put_back(e, std::max(o_clock, gr));
    ++res_.events;
    const uint64_t d = detour(e.host, e.time, rules_.o(e.host)), busy = rules_.message_cpu(e.host, e.size);
    o_clock = add_capped(e.time + busy, d);
    gr = e.time + rules_.nic(e.size);
    if (rec_ && rec_->watches(e.host)) {
      rec_->cpu(e.host, e.cpu(), "o recv", e.time, busy, d, e.target, e.size);
      rec_->nic(e.host, e.nic(), false, e.time, gr - e.time);
      rec_->handled(e.host, e.cpu(), e.target, e.ts(), e.time);
    }
    if (uint32_t got; take_posted(e, got)) {
      if (e.size > P_.S) rendezvous_done(e.target, e.op, e.cpu(), e.nic(), e.time);
      mark_done(e.host, got);
    } else {
      uq_.append(e.host, QueueEntry{e.target, e.tag, e.op, -1});
    }
  }

  // A send as the recorder sees it: its CPU and NIC intervals, and its message.
  void record_send(const Event& e, const Event& m, uint64_t d) {
    if (rec_->watches(e.host)) {
      rec_->cpu(e.host, e.cpu(), "o send", e.time, rules_.send_cpu(e.host, e.size), d, e.target, e.size);
      rec_->nic(e.host, e.nic(), true, e.time, nextgs_[e.host * nnic_ + e.nic()] - e.time);
    }
    if (rec_->watches(e.host) || rec_->watches(e.target)) rec_->sent(e.host, e.cpu(), e.target, m.ts(), e.time, e.time + rules_.o(e.host), m.time, e.size);
  }

  // A rendezvous send completes when its receive matches it: its host's clocks (of the CPU and
  // NIC numbers the matching event carries, as in LogGOPSim) move up to that moment.
  void rendezvous_done(uint32_t sender, uint32_t op, uint32_t cpu, uint32_t nic, uint64_t now) {
    mark_done(sender, op);
    uint64_t& so = nexto_[sender * ncpu_ + cpu];
    uint64_t& sg = nextgs_[sender * nnic_ + nic];
    so = std::max(so, now);
    sg = std::max(sg, now);
  }

  // What the source makes ready when h's operation starts or completes, noted with its host.
  void mark_started(uint32_t h, uint32_t op) {
    const size_t before = ready_.size();
    src_.started(h, op, ready_);
    note_ready(h, before);
  }
  void mark_done(uint32_t h, uint32_t op) {
    const size_t before = ready_.size();
    src_.done(h, op, ready_);
    note_ready(h, before);
  }
  // (marks_ is written only once a second host has operations made ready: most events make ready
  // only their own host's)
  void note_ready(uint32_t h, size_t before) {
    if (ready_.size() == before) return;
    if (first_host_ == kNoHost) first_host_ = h;
    if (marks_.empty() && h == first_host_) return;
    if (marks_.empty())
      for (size_t i = 0; i < before; ++i) marks_.emplace_back(first_host_, uint32_t(i));
    for (size_t i = before; i < ready_.size(); ++i) marks_.emplace_back(h, uint32_t(i));
  }

  // Hosts in increasing order; each host's newly ready operations in the order they became
  // ready, then by type; each gets its creation stamp.
  void queue_ready() {
    if (marks_.empty()) return stamp(first_host_, ready_);  // the common case: one host's
    hosts_touched_.clear();
    for (const auto& m : marks_) hosts_touched_.push_back(m.first);
    std::sort(hosts_touched_.begin(), hosts_touched_.end());
    hosts_touched_.erase(std::unique(hosts_touched_.begin(), hosts_touched_.end()), hosts_touched_.end());
    for (uint32_t h : hosts_touched_) {
      batch_.clear();
      for (const auto& [mh, i] : marks_)
        if (mh == h) batch_.push_back(ready_[i]);
      if (!batch_.empty()) stamp(h, batch_);
    }
  }
  void stamp(uint32_t h, std::vector<ReadyOp>& ops) {
    if (ops.size() > 1) std::sort(ops.begin(), ops.end(), by_type);
    for (const ReadyOp& r : ops) {
      uint64_t t = nexto_[h * ncpu_ + r.cpu];
      if (r.type == kSend) t = std::max(t, nextgs_[h * nnic_ + r.nic]);
      aq_.push(make_event(t, aqtime_++, r, h));
    }
  }

  // Everything must have run: no receive left posted, no message left unreceived.
  void throw_if_unmatched() const {
    if (rq_.count() == 0 && uq_.count() == 0) return;
    for (uint32_t h = 0; h < p_; ++h) {
      if (uint32_t op, src, tag; first_posted(h, op, src, tag)) {
        throw StuckError("rank " + std::to_string(h) + ": receive " + src_.name(h, op) + " from " +
                         (src == kAny ? std::string("any rank") : "rank " + std::to_string(src)) + " (tag " +
                         (tag == kAny ? std::string("any") : std::to_string(tag)) + ") is never matched by a send");
      }
      if (int32_t i = uq_.first(h); i >= 0) {
        const auto& q = uq_.at(i);
        throw StuckError("rank " + std::to_string(q.src) + ": send " + src_.name(q.src, q.op) + " to rank " + std::to_string(h) + " (tag " +
                         std::to_string(q.tag) + ") is never received");
      }
    }
  }

  // A host's finishing time is the latest of its CPUs' clocks. Clocks are unsigned and wrap as
  // LogGOPSim's do (a 0-byte message with o or g below G moves a clock back by G); a finishing
  // time that wrapped past 2^64, or that detours took to kTimeLimit (add_capped), is refused
  // rather than reported, and so are detours that add up to it over all hosts.
  void record_finish_times() {
    res_.finish.assign(p_, 0);
    for (uint32_t h = 0; h < p_; ++h) {
      uint64_t f = 0;
      for (size_t c = 0; c < ncpu_; ++c) f = std::max(f, nexto_[h * ncpu_ + c]);
      if (f >= kTimeLimit)
        throw TimeOverflowError("rank " + std::to_string(h) + " would finish at " + std::to_string(f) +
                                " ns, not below 2^62: a clock wrapped past 2^64 (a 0-byte message with o or g below G, sizes too "
                                "large, or OS noise detours that add up past 2^62 ns)");
      res_.finish[h] = f;
      if (f > res_.time) {
        res_.time = f;
        res_.last_host = h;
      }
    }
    if (res_.noise >= kTimeLimit)
      throw TimeOverflowError("the OS noise detours of all ranks add up past 2^62 ns, more than a report can hold");
  }

  struct Memo {
    uint64_t t = 0, len = 0, d = 0;
    bool valid = false;
  };
  Memo memo_;  // the last co-scheduled detour looked up
  Source& src_;
  const Params& P_;
  const Rules rules_;
  const Noise* noise_;
  Recorder* rec_;
  const uint32_t p_;
  const size_t ncpu_, nnic_;
  std::vector<uint64_t> nexto_, nextgr_, nextgs_;  // per host and CPU; per host and NIC
  // A posted receive is its operation alone where the source can tell its source and tag from that.
  static constexpr bool kPostedByOp = requires(const Source& s, uint32_t h, uint32_t op) {
    s.receive_of(h, op);
    s.first_op(h);
    s.receives(h);
  };
  // The first receive host e.host posted that message e matches, removed.
  bool take_posted(const Event& e, uint32_t& op) {
    if constexpr (kPostedByOp) {
      auto posted = [&](uint32_t r) {
        const auto [src, tag] = src_.receive_of(e.host, r);
        return matches(e.target, e.tag, src, tag);
      };
      return rq_.take(e.host, src_.first_op(e.host), e.target, posted, op);
    } else {
      QueueEntry got;
      if (!rq_.take(e.host, [&](const QueueEntry& r) { return matches(e.target, e.tag, r.src, r.tag); }, got)) return false;
      op = got.op;
      return true;
    }
  }
  // Host h's first posted receive, its source and tag, if any (for a report).
  bool first_posted(uint32_t h, uint32_t& op, uint32_t& src, uint32_t& tag) const {
    if constexpr (kPostedByOp) {
      if (!rq_.first(h, src_.first_op(h), op)) return false;
      std::tie(src, tag) = src_.receive_of(h, op);
    } else {
      const int32_t i = rq_.first(h);
      if (i < 0) return false;
      op = rq_.at(i).op, src = rq_.at(i).src, tag = rq_.at(i).tag;
    }
    return true;
  }

  EventQueue aq_;
  std::conditional_t<kPostedByOp, PostedQueues, MatchQueues<QueueEntry>> rq_;  // posted receives
  MatchQueues<QueueEntry> uq_;  // unexpected messages
  // Creation stamps: the roots are numbered from 0, every later event after them (stamps have
  // 48 bits: 2^46 roots and 2^47 other events at most).
  uint64_t aqtime_ = uint64_t(1) << 46;
  Result res_;
  std::vector<ReadyOp> ready_;                        // made ready in this event, in order
  std::vector<std::pair<uint32_t, uint32_t>> marks_;  // (host, index into ready_) of this event
  std::vector<ReadyOp> batch_;                        // one host's share of ready_
  std::vector<uint32_t> hosts_touched_;
  static constexpr uint32_t kNoHost = ~uint32_t(0);
  uint32_t first_host_ = kNoHost;  // the first host with operations made ready by this event
};

}  // namespace detail

// Runs the schedule; throws StuckError when a receive or a message is left unmatched (LogGOPSim
// then prints no times), names the first operation that never ran in Result::unfinished.
template <class Source>
Result simulate(Source& src, const Params& P, const Effects& fx = {}) {
  return detail::Engine<Source>(src, P, fx).run();
}

}  // namespace ppsim::loggp
