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
//     left unmatched), and every message for the next batch arrives after it;
//   - events at one time are taken in order of creation as the engine takes them: a processor's own
//     in the order it made them, a message against anything made elsewhere by the time it was made
//     (two made at one time on two processors: the engine's order would depend on events further
//     back, so the run is left to it).
// Memory is O(p) besides the messages of rounds to come; no queue of the whole machine's events.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "goal/huge_alloc.h"
#include "goal/loggp_rounds.h"
#include "goal/loggp_run.h"

namespace ppsim {

namespace {

using loggp::ReadyOp;

// A message of round `round` from `from` to `to`, started at `sent` (it arrives at sent + o + L).
struct Msg {
  uint64_t size, sent;
  uint32_t from, to, round;
  int32_t next;  // the receiver's next message of this round (-1: none)
};

// An operation of a batch waiting for its round with receives: `start`, a send's start found when
// the batch was timed alone.
struct Op {
  uint64_t size, start;
  uint32_t peer, tag;
  uint8_t type;
};

// A batch waiting for its round with receives: its processor and where its operations are kept.
struct Waiting {
  uint32_t h, nops;
  size_t first_op;
};

struct Clocks {
  uint64_t o = 0, gs = 0, gr = 0;
};

// A processor between two events of the timing: its current batch's release.
struct Proc {
  Clocks at_release;
  uint64_t t_rel = 0;  // the time of the event that released the batch
  int32_t first = 1;   // the batch's first round
  bool root = true;    // the first batch: ready from the start, before any message
};

// One processor's batch under the engine's rules for one host (loggp.h): its operations (the
// order the engine gives them) and the messages that arrive for them.
class BatchTimer {
 public:
  explicit BatchTimer(const loggp::Params& P) : P_(P) {}

  uint64_t events = 0, messages = 0;  // of the last run
  uint64_t release_time = 0;          // when the last receive completed

  // Returns false where the lockstep conditions fail. Without messages, records the sends' starts;
  // with them, checks the sends against those and requires every receive to complete.
  bool run(Clocks& c, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs) {
    const bool alone = msgs.empty();
    if (nops <= 2 && msgs.size() <= 1)
      if (std::optional<bool> done = plain(c, pr, ops, nops, msgs)) return *done;
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
      if (!pr.root && at <= pr.t_rel) return false;  // it may come among the previous batch's events
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
          if (take(rq_, [&](uint32_t i) { return ops[i].peer == m.from && ops[i].tag == m.round; })) released = --outstanding == 0;
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
        if (take(uq_, [&](uint32_t j) { return msgs[j]->from == op.peer && msgs[j]->round == op.tag; })) released = --outstanding == 0;
        else rq_.push_back(e.idx);
      }
      if (ready > 0) {
        e.time = ready;  // put back for when its clocks allow
      } else {
        if (released) release_time = t;
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
  std::optional<bool> plain(Clocks& c, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs) {
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
      if (!pr.root && arrival <= pr.t_rel) return false;  // it may come among the previous batch's events
      if (arrival <= (has_send ? start : c.o)) return std::nullopt;
      if (msgs[0]->from != ops[nops - 1].peer || msgs[0]->round != ops[nops - 1].tag) return std::nullopt;
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
    if (a.made == b.made) {
      fail_ = true;  // made at the same time by two processors' events
      return false;
    }
    return a.made < b.made;
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
  void done(int r) {
    HugeVector<T>& v = v_[size_t(r)];
    largest_ = std::max(done_++ == 0 ? 0 : largest_, v.size());
    v.clear();
    if (kept_.size() < 4) kept_.push_back(std::move(v));
    HugeVector<T>().swap(v);
  }

 private:
  std::vector<HugeVector<T>> v_, kept_;
  size_t largest_, fresh_ = 0, done_ = 0;
};

}  // namespace

std::optional<loggp::Result> loggp_lockstep(const RunConfig& c) {
  const loggp::Params& P = c.cost.loggp;
  const uint32_t p = uint32_t(c.params.p);
  loggp_rounds::RoundReader reader(c);
  const int R = reader.rounds();

  HugeVector<Proc> procs(p);
  std::vector<uint64_t> finish(p, 0);
  ByRound<Msg> sent(R, p);           // messages by round
  ByRound<Waiting> waiting(R, p);    // batches by their round with receives
  ByRound<Op> waiting_ops(R, 2 * size_t(p));  // and their operations
  HugeVector<int32_t> inbox(p, -1);
  std::vector<ReadyOp> ready;
  HugeVector<Op> last_ops;
  std::vector<const Msg*> none, msgs;
  BatchTimer timer(P);
  loggp::Result res;

  // Times h's batch from its release alone: its messages go out, and it waits for the round it
  // receives in. The operations come in the engine's order: each round's sends, then its receives,
  // and only the last round receives, so they are sorted by type already; the engine's std::sort
  // keeps them so up to 16 (insertion sort), beyond that it is called as the engine calls it.
  auto release = [&](uint32_t h) {
    Proc& pr = procs[h];
    ready.clear();
    int nrecv = 0;
    const int next = pr.first <= R ? loggp_rounds::read_batch(reader, h, pr.first, [&](const ReadyOp& o) { ready.push_back(o); }, nrecv) : pr.first;
    if (ready.size() > 16) std::sort(ready.begin(), ready.end(), [](const ReadyOp& a, const ReadyOp& b) { return a.type < b.type; });
    HugeVector<Op>& ops = nrecv > 0 ? waiting_ops[next - 1] : last_ops;
    if (nrecv == 0) ops.clear();
    const size_t first_op = ops.size();
    for (const ReadyOp& o : ready) {
      if (o.size == 0 || o.size > P.S || o.peer >= p) return false;  // rendezvous, or a 0-byte clock wrap
      ops.push_back(Op{o.size, 0, o.peer, o.tag, o.type});
    }
    Clocks clk = pr.at_release;
    if (!timer.run(clk, pr, ops.data() + first_op, uint32_t(ready.size()), none)) return false;
    for (size_t i = first_op; i < ops.size(); ++i)
      if (ops[i].type == loggp::kSend) sent[int(ops[i].tag)].push_back(Msg{ops[i].size, ops[i].start, h, ops[i].peer, ops[i].tag, -1});
    if (nrecv > 0) {
      waiting[next - 1].push_back(Waiting{h, uint32_t(ready.size()), first_op});
    } else {  // nothing to wait for: its last batch
      finish[h] = clk.o;
      res.events += timer.events;
      res.messages += timer.messages;
    }
    return true;
  };

  for (uint32_t h = 0; h < p; ++h)
    if (!release(h)) return std::nullopt;
  for (int r = 1; r <= R; ++r) {
    // The messages of round r to their receivers, and the batches that receive in round r.
    HugeVector<Msg>& round_msgs = sent[r];
    for (size_t k = 0; k < round_msgs.size(); ++k) {
      Msg& m = round_msgs[k];
      m.next = inbox[m.to];
      inbox[m.to] = int32_t(k);
    }
    size_t taken = 0;
    HugeVector<Op>& ops = waiting_ops[r];
    for (const Waiting& w : waiting[r]) {
      Proc& pr = procs[w.h];
      msgs.clear();
      for (int32_t k = inbox[w.h]; k >= 0; k = round_msgs[size_t(k)].next) msgs.push_back(&round_msgs[size_t(k)]);
      inbox[w.h] = -1;
      taken += msgs.size();
      if (msgs.empty()) return std::nullopt;  // a receive no message matches: the engine reports it
      Clocks clk = pr.at_release;
      if (!timer.run(clk, pr, ops.data() + w.first_op, w.nops, msgs)) return std::nullopt;
      res.events += timer.events;
      res.messages += timer.messages;
      pr.at_release = clk;
      pr.t_rel = timer.release_time;
      pr.first = r + 1;
      pr.root = false;
      if (!release(w.h)) return std::nullopt;
    }
    if (taken != round_msgs.size()) return std::nullopt;  // a message no receive of its round takes
    sent.done(r);
    waiting.done(r);
    waiting_ops.done(r);
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
