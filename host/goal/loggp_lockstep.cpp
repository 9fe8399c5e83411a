// The LogGP times of an algorithm, round by round (loggp_run.h, docs/DESIGN.md §3b).
//
// The event engine (loggp.h) takes every operation and message of every processor from one queue
// in LogGOPSim's order: time, then creation. Most algorithms run in lockstep, and then that order
// can be had one processor at a time: each processor's batches (the rounds released together, up to
// the next round with receives, loggp_rounds.h) are timed in turn, with the engine's rules for one
// host, round by round over the whole machine:
//   at its release, a batch's operations alone, from the clocks then: this gives the start of each
//     of its sends, so the arrival of each of its messages;
//   in its round with receives, the same operations and the messages arriving for them, taken in
//     the engine's order; the receive that completes last releases the next batch, at its time,
//     with the clocks as they are then.
// The result is the engine's exactly when nothing from outside a batch falls among its events, and
// these conditions make sure of that; where one fails, the run is left to the event engine:
//   - every message is eager (1 to S bytes): a rendezvous ties the sender to the receiver's time;
//   - with its messages a batch starts every send when it did alone (none arrived in time to delay
//     one: the arrival times other processors were given stay true);
//   - the completing receive is the batch's last event (no send of it left waiting, no message
//     left unmatched), and every message for the next batch comes after it;
//   - events at one time are taken in order of creation as the engine takes them: a processor's own
//     in the order it made them, a message against anything made elsewhere by the time it was made,
//     two made at one time on two processors by when the events that made them were made in turn
//     (those made at the start processor by processor); where the order lies further back still,
//     or on one processor's events elsewhere, the run is left to the engine.
// Memory is O(p) besides the messages of rounds to come; no queue of the whole machine's events.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "goal/huge_alloc.h"
#include "goal/loggp_rounds.h"
#include "goal/loggp_run.h"

namespace ppsim {

namespace {

using loggp::ReadyOp;

// A message of a round, from `from`, started at `sent` (it arrives at sent + o + L); `link` is its
// receiver until it is delivered, then the receiver's next message of the round (-1: none).
struct Msg {
  uint64_t size, sent;
  uint64_t sent_made;  // when its send was made: its sender's batch's release (made_key)
  uint32_t from;
  int32_t link;
};

// When an event was made, as the engine orders events at one time: 0 for those made at the start
// (LogGOPSim numbers them first, processor by processor), else 1 + the time.
inline uint64_t made_key(uint64_t time, bool at_start) { return at_start ? 0 : time + 1; }

// An operation of a batch, in the engine's order; `start`: a send's start when timed alone.
struct Op {
  uint64_t size, start;
  uint32_t peer, tag;
  uint8_t type;
};

struct Clocks {
  uint64_t o = 0, gs = 0, gr = 0;
};

// A processor between two events of the timing: its current batch's release.
struct Proc {
  Clocks at_release;
  uint64_t t_rel = 0;  // the time of the event that released the batch
  // That event: when it was made (made_key) and where the event that made it ran, and when that
  // event was made in turn (made_key).
  uint64_t rel_made = 0, rel_made2 = 0;
  uint32_t rel_host = 0;
  int32_t first = 1;  // the batch's first round
  bool root = true;   // the first batch: ready from the start, before any message
};

// Two events at one time were made by events e1 and e2 that ran at one time on two processors:
// the engine takes them in the order of e1's and e2's own creation: when each was made (made2, a
// made_key) and, for two made at the start, the processor each is on (host2). Returns -1 (first
// before second), 1, or 0 where that order needs events further back.
inline int order_further_back(uint64_t made2_a, uint32_t host2_a, uint64_t made2_b, uint32_t host2_b) {
  if (made2_a != made2_b) return made2_a < made2_b ? -1 : 1;
  if (made2_a == 0 && host2_a != host2_b) return host2_a < host2_b ? -1 : 1;  // both made at the start: by processor
  return 0;
}

// A message for a batch must come after the event that released it: it arrives later, or at that
// time but made after that event was (the engine's order at one time), or the batch is the first.
inline bool after_release(const Msg& m, uint64_t arrival, const Proc& pr) {
  if (pr.root || arrival > pr.t_rel) return true;
  if (arrival < pr.t_rel) return false;
  const uint64_t made = made_key(m.sent, false);
  if (made != pr.rel_made) return made > pr.rel_made;
  if (m.from == pr.rel_host) return false;  // (made at one time on one processor: not for here)
  return order_further_back(pr.rel_made2, pr.rel_host, m.sent_made, m.from) < 0;
}

// One processor's batch under the engine's rules for one host (loggp.h): its operations (the
// order the engine gives them) and the messages that arrive for them.
class BatchTimer {
 public:
  explicit BatchTimer(const loggp::Params& P) : P_(P) {}

  uint64_t events = 0, messages = 0;  // of the last run
  uint64_t release_time = 0;          // when the last receive completed;
  uint64_t release_made = 0, release_made2 = 0;  // the completing event, as Proc::rel_made ...
  uint32_t release_host = 0;

  // Returns false where the lockstep conditions fail. Without messages, records the sends' starts;
  // with them, checks the sends against those and requires every receive to complete.
  // The messages are of round `round` (they match receives of that tag).
  bool run(Clocks& c, uint32_t h, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs, uint32_t round = 0) {
    const bool alone = msgs.empty();
    h_ = h;
    own_made2_ = pr.rel_made;
    msgs_ = &msgs;
    if (nops <= 2 && msgs.size() <= 1)
      if (std::optional<bool> done = plain(c, pr, ops, nops, msgs, round)) return *done;
    ev_.clear();
    rq_.clear();
    uq_.clear();
    ev_.reserve(nops + msgs.size());
    events = messages = 0;
    int outstanding = 0;
    for (uint32_t i = 0; i < nops; ++i) {
      const Op& op = ops[i];
      if (op.type == loggp::kRecv) ++outstanding;
      const uint64_t t = op.type == loggp::kSend ? std::max(c.o, c.gs) : c.o;
      ev_.push_back(Ev{t, pr.t_rel, i, false});
    }
    for (uint32_t j = 0; j < msgs.size(); ++j) {
      const uint64_t at = msgs[j]->sent + P_.o + P_.L;
      if (!after_release(*msgs[j], at, pr)) return false;  // it may come among the previous batch's events
      ev_.push_back(Ev{at, msgs[j]->sent, j, true});
    }
    bool released = false;
    while (!ev_.empty()) {
      if (released) return false;  // an event after the release: the next batch's would interleave
      size_t best = 0;             // the next event: the earliest, ties by creation
      for (size_t k = 1; k < ev_.size(); ++k) {
        const Ev& a = ev_[k];
        const Ev& b = ev_[best];
        if (a.time > b.time) continue;
        if (a.time < b.time || before_at_same_time(a, b, pr.root)) best = k;
      }
      if (fail_) return false;
      Ev& e = ev_[best];
      const uint64_t t = e.time;
      uint64_t ready = 0;  // a later time the event must wait for
      if (e.msg) {
        const Msg& m = *msgs[e.idx];
        ready = std::max(c.o, c.gr);
        if (ready <= t) {
          ready = 0;
          ++events;
          c.o = t + P_.o + std::max((m.size - 1) * P_.O, (m.size - 1) * P_.G);
          c.gr = t + P_.g + (m.size - 1) * P_.G;
          if (take(rq_, [&](uint32_t i) { return ops[i].peer == m.from && ops[i].tag == round; })) released = --outstanding == 0;
          else uq_.push_back(e.idx);
        }
      } else if (Op& op = ops[e.idx]; op.type == loggp::kSend) {
        ready = std::max(c.o, c.gs);
        if (ready <= t) {
          ready = 0;
          ++events;
          ++messages;
          c.o = t + P_.o + (op.size - 1) * P_.O;
          c.gs = t + P_.g + (op.size - 1) * P_.G;
          if (alone) op.start = t;
          else if (op.start != t) return false;  // a message arrived in time to delay it
        }
      } else {
        ++events;
        if (take(uq_, [&](uint32_t j) { return msgs[j]->from == op.peer && round == op.tag; })) released = --outstanding == 0;
        else rq_.push_back(e.idx);
      }
      if (ready > 0) {
        e.time = ready;  // put back for when its clocks allow
      } else {
        if (released) {
          release_time = t;
          if (e.msg) {  // made by a send elsewhere
            release_made = made_key(msgs[e.idx]->sent, false);
            release_host = msgs[e.idx]->from;
            release_made2 = msgs[e.idx]->sent_made;
          } else {  // one of the batch's receives: made by the batch's release
            release_made = made_key(pr.t_rel, pr.root);
            release_host = h_;
            release_made2 = pr.rel_made;
          }
        }
        ev_[best] = ev_.back();
        ev_.pop_back();
      }
    }
    return alone || (released && uq_.empty());
  }

 private:
  // The common batches, where the engine's order is plain, in closed form: a send, a receive, or a
  // send then a receive (an exchange), alone or with one message that arrives after they started.
  // Nothing where the order needs the general loop.
  std::optional<bool> plain(Clocks& c, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs, uint32_t round) {
    if (nops == 0) return std::nullopt;
    const bool has_send = ops[0].type == loggp::kSend;
    const bool has_recv = ops[nops - 1].type == loggp::kRecv;
    if ((nops == 2 && !(has_send && has_recv)) || (!msgs.empty() && !has_recv)) return std::nullopt;
    // The send starts as its clocks allow; a receive posted at c.o <= that time runs before it or,
    // at the same time, after it: either way it only waits in the posted queue.
    const uint64_t start = std::max(c.o, c.gs);
    uint64_t arrival = 0;
    if (!msgs.empty()) {
      arrival = msgs[0]->sent + P_.o + P_.L;
      if (!after_release(*msgs[0], arrival, pr)) return false;  // it may come among the previous batch's events
      if (arrival <= (has_send ? start : c.o)) return std::nullopt;
      if (msgs[0]->from != ops[nops - 1].peer || round != ops[nops - 1].tag) return std::nullopt;
    }
    events = messages = 0;
    if (has_send) {
      Op& op = ops[0];
      ++events;
      ++messages;
      c.o = start + P_.o + (op.size - 1) * P_.O;
      c.gs = start + P_.g + (op.size - 1) * P_.G;
      if (msgs.empty()) op.start = start;
      else if (op.start != start) return false;
    }
    if (has_recv) ++events;
    if (!msgs.empty()) {  // the message, when it has arrived and the clocks allow; it completes the receive
      const Msg& m = *msgs[0];
      const uint64_t t = std::max(arrival, std::max(c.o, c.gr));
      ++events;
      c.o = t + P_.o + std::max((m.size - 1) * P_.O, (m.size - 1) * P_.G);
      c.gr = t + P_.g + (m.size - 1) * P_.G;
      release_time = t;
      release_made = made_key(m.sent, false);
      release_host = m.from;
      release_made2 = m.sent_made;
    }
    return true;
  }

  struct Ev {
    uint64_t time, made;  // made: when the event that made it ran
    uint32_t idx;         // into the operations or the messages
    bool msg;
  };
  // The engine's order at one time: by creation. The batch's own operations were made together (in
  // their order), a message when its send started; the root batch's come before any message.
  bool before_at_same_time(const Ev& a, const Ev& b, bool root) {
    if (!a.msg && !b.msg) return a.idx < b.idx;
    if (root && a.msg != b.msg) return !a.msg;
    if (a.made != b.made) return a.made < b.made;
    // Made at one time by events on two processors (on one, it is left to the engine): in the order
    // those events were made. A message's was its send, made by its sender's batch's release; the
    // batch's own operations', the release here, made when rel_made says.
    const uint32_t host_a = a.msg ? msg(a).from : h_, host_b = b.msg ? msg(b).from : h_;
    const int order = host_a == host_b ? 0
                                       : order_further_back(a.msg ? msg(a).sent_made : own_made2_, host_a,
                                                            b.msg ? msg(b).sent_made : own_made2_, host_b);
    if (order == 0) fail_ = true;
    return order < 0;
  }
  // Removes the first entry that matches (the engine's queues are scanned front to back).
  template <class Match>
  static bool take(std::vector<uint32_t>& q, Match match) {
    auto it = std::find_if(q.begin(), q.end(), match);
    if (it == q.end()) return false;
    q.erase(it);
    return true;
  }

  const loggp::Params& P_;
  const Msg& msg(const Ev& e) const { return *(*msgs_)[e.idx]; }
  uint32_t h_ = 0;                                 // the processor
  uint64_t own_made2_ = 0;                         // when its batch's release was made (made_key)
  const std::vector<const Msg*>* msgs_ = nullptr;  // the run's messages
  std::vector<Ev> ev_;
  std::vector<uint32_t> rq_, uq_;  // posted receives (operation indices), unexpected messages
  bool fail_ = false;
};

// The processors whose batch receives in a round, and the messages of a round, kept by round;
// emptied vectors are kept for the next rounds (growing fresh ones each round costs page faults).
template <class T>
class ByRound {
 public:
  // `guess`: what the first two rounds reserve (they are filled before any is done).
  ByRound(int rounds, size_t guess) : v_(size_t(rounds) + 2), largest_(guess) {}
  HugeVector<T>& operator[](int r) {
    HugeVector<T>& v = v_[size_t(r)];
    if (v.capacity() == 0) {
      if (!kept_.empty()) {
        v.swap(kept_.back());
        kept_.pop_back();
      } else {
        v.reserve(largest_);  // as much as a round has needed
        if (++fresh_ == 2 && done_ == 0) largest_ = 0;
      }
    }
    return v;
  }
  // `used`: how many round r had (its vector may have been swapped for an empty one).
  void done(int r, size_t used) {
    HugeVector<T>& v = v_[size_t(r)];
    largest_ = std::max(done_++ == 0 ? 0 : largest_, used);
    v.clear();
    if (kept_.size() < 4) kept_.push_back(std::move(v));
    HugeVector<T>().swap(v);
  }

 private:
  std::vector<HugeVector<T>> v_, kept_;
  size_t largest_, fresh_ = 0, done_ = 0;
};

// What a thread needs to time batches: its own reader, timer and scratch, and the messages and
// waiting processors it makes, by round (gathered from every thread when their round comes).
struct Worker {
  Worker(const RunConfig& c, int rounds, size_t guess) : reader(c), timer(c.cost.loggp), sent(rounds, guess), waiting(rounds, guess) {}
  loggp_rounds::RoundReader reader;
  BatchTimer timer;
  ByRound<Msg> sent;
  ByRound<uint32_t> waiting;
  std::vector<Op> ops;
  std::vector<const Msg*> msgs;
  int nrecv = 0;
  uint64_t events = 0, messages = 0;
  size_t taken = 0;  // messages of the round
  bool failed = false;
};

// Appends every worker's vector of round r to `all`, and gives theirs back (one worker's is taken
// as it is: no copy).
template <class T>
void gather(std::vector<std::unique_ptr<Worker>>& workers, ByRound<T> Worker::*by_round, int r, HugeVector<T>& all) {
  all.clear();
  if (workers.size() == 1) {
    all.swap((*workers[0].*by_round)[r]);
    (*workers[0].*by_round).done(r, all.size());  // (keeps all's former buffer for a later round)
    return;
  }
  size_t n = 0;
  for (auto& w : workers) n += ((*w).*by_round)[r].size();
  all.reserve(n);
  for (auto& w : workers) {
    HugeVector<T>& v = ((*w).*by_round)[r];
    all.insert(all.end(), v.begin(), v.end());
    ((*w).*by_round).done(r, v.size());
  }
}

}  // namespace

std::optional<loggp::Result> loggp_lockstep(const RunConfig& c, int threads) {
  const loggp::Params& P = c.cost.loggp;
  const uint32_t p = uint32_t(c.params.p);
  const int R = c.algorithm->rounds(c.params);
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  threads = int(std::min<int64_t>(threads, std::max<int64_t>(1, p / 4096)));  // a thread's share worth its start

  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) workers.push_back(std::make_unique<Worker>(c, R, t == 0 ? size_t(p) : 0));
  HugeVector<Proc> procs(p);
  std::vector<uint64_t> finish(p, 0);
  HugeVector<int32_t> inbox(p, -1);
  HugeVector<Msg> round_msgs;
  HugeVector<uint32_t> waiting;
  const std::vector<const Msg*> none;

  // h's batch from round `first`, in the engine's order: each round's sends, then its receives, and
  // only the last round receives, so they are sorted by type already; the engine's std::sort keeps
  // them so up to 16 (insertion sort), beyond that it is called as the engine calls it (on the same
  // sequence of types: the same order). `next`: the round after it; false: not all eager.
  auto read = [&](Worker& w, uint32_t h, int first, int& next) {
    w.ops.clear();
    w.nrecv = 0;
    next = first;
    if (first <= R) {
      try {
        next = loggp_rounds::read_batch(w.reader, h, first, [&](const ReadyOp& o) { w.ops.push_back(Op{o.size, 0, o.peer, o.tag, o.type}); },
                                        w.nrecv);
      } catch (const loggp::StuckError&) {
        return false;  // more operations in a round than a step holds: the event engine reports it
      }
    }
    if (w.ops.size() > 16) std::sort(w.ops.begin(), w.ops.end(), [](const Op& a, const Op& b) { return a.type < b.type; });
    for (const Op& o : w.ops)
      if (o.size == 0 || o.size > P.S || o.peer >= p) return false;  // rendezvous, or a 0-byte clock wrap
    return true;
  };
  // Times h's batch from its release alone: its messages go out, and it waits for the round it
  // receives in (where it is read again).
  auto release = [&](Worker& w, uint32_t h) {
    Proc& pr = procs[h];
    int next = 0;
    Clocks clk = pr.at_release;
    if (!read(w, h, pr.first, next) || !w.timer.run(clk, h, pr, w.ops.data(), uint32_t(w.ops.size()), none)) return false;
    for (const Op& o : w.ops)
      if (o.type == loggp::kSend) w.sent[int(o.tag)].push_back(Msg{o.size, o.start, made_key(pr.t_rel, pr.root), h, int32_t(o.peer)});
    if (w.nrecv > 0) {
      w.waiting[next - 1].push_back(h);
    } else {  // nothing to wait for: its last batch
      finish[h] = clk.o;
      w.events += w.timer.events;
      w.messages += w.timer.messages;
    }
    return true;
  };
  // Times h's batch with the messages of round r, then releases its next.
  auto receive = [&](Worker& w, uint32_t h, int r) {
    Proc& pr = procs[h];
    w.msgs.clear();
    for (int32_t k = inbox[h]; k >= 0; k = round_msgs[size_t(k)].link) w.msgs.push_back(&round_msgs[size_t(k)]);
    inbox[h] = -1;
    w.taken += w.msgs.size();
    if (w.msgs.empty()) return false;  // a receive no message matches: the engine reports it
    int next = 0;
    Clocks clk = pr.at_release;
    read(w, h, pr.first, next);
    if (!w.timer.run(clk, h, pr, w.ops.data(), uint32_t(w.ops.size()), none) ||
        !w.timer.run(clk = pr.at_release, h, pr, w.ops.data(), uint32_t(w.ops.size()), w.msgs, uint32_t(r)))
      return false;
    w.events += w.timer.events;
    w.messages += w.timer.messages;
    pr.at_release = clk;
    pr.t_rel = w.timer.release_time;
    pr.rel_made = w.timer.release_made;
    pr.rel_made2 = w.timer.release_made2;
    pr.rel_host = w.timer.release_host;
    pr.first = r + 1;
    pr.root = false;
    return release(w, h);
  };
  // f(worker, i) for i in [0, n), the range split among the threads.
  auto in_parallel = [&](size_t n, auto&& f) {
    // (an exception on a thread, say memory running out, is thrown again on the caller's)
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    auto part = [&](int t, int parts) {
      Worker& w = *workers[size_t(t)];
      const size_t lo = n * size_t(t) / size_t(parts), hi = n * size_t(t + 1) / size_t(parts);
      try {
        for (size_t i = lo; i < hi && !w.failed; ++i) w.failed = !f(w, i);
      } catch (...) {
        errors[size_t(t)] = std::current_exception();
      }
    };
    const int parts = n < 4096 ? 1 : threads;
    std::vector<std::thread> pool;
    for (int t = 1; t < parts; ++t) pool.emplace_back(part, t, parts);
    part(0, parts);
    for (auto& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  };
  auto failed = [&] {
    for (auto& w : workers)
      if (w->failed) return true;
    return false;
  };

  in_parallel(p, [&](Worker& w, size_t h) { return release(w, uint32_t(h)); });
  if (failed()) return std::nullopt;
  for (int r = 1; r <= R; ++r) {
    // The messages of round r to their receivers, and the batches that receive in round r.
    gather(workers, &Worker::sent, r, round_msgs);
    gather(workers, &Worker::waiting, r, waiting);
    if (round_msgs.size() > size_t(INT32_MAX)) return std::nullopt;  // (the links are 32 bits)
    for (size_t k = 0; k < round_msgs.size(); ++k) {
      Msg& m = round_msgs[k];
      const uint32_t to = uint32_t(m.link);
      m.link = inbox[to];
      inbox[to] = int32_t(k);
    }
    in_parallel(waiting.size(), [&](Worker& w, size_t i) { return receive(w, waiting[i], r); });
    if (failed()) return std::nullopt;
    size_t taken = 0;
    for (auto& w : workers) taken += std::exchange(w->taken, 0);
    if (taken != round_msgs.size()) return std::nullopt;  // a message no receive of its round takes
  }

  loggp::Result res;
  for (auto& w : workers) {
    res.events += w->events;
    res.messages += w->messages;
  }
  for (uint32_t h = 0; h < p; ++h) {
    if (finish[h] >= loggp::kTimeLimit) return std::nullopt;  // the event engine reports it
    if (finish[h] > res.time) {
      res.time = finish[h];
      res.last_host = h;
    }
  }
  res.finish = std::move(finish);
  return res;
}

}  // namespace ppsim
