// One processor's batch of the lockstep timing (loggp_lockstep.cpp, which states the conditions
// this timing checks): the engine's rules (loggp.h) applied to one host's operations and the
// messages that arrive for them, and what a processor keeps between two of its batches.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "loggp/loggp.h"

namespace ppsim::lockstep {

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
  BatchTimer(const loggp::Params& P, const loggp::Effects& fx)
      : rules_(P, fx.stragglers), noise_(fx.noise) {}

  uint64_t events = 0, messages = 0;             // of the last run
  uint64_t noise = 0;                            // the detours of the last run (loggp.h's Effects)
  uint64_t release_time = 0;                     // when the last receive completed;
  uint64_t release_made = 0, release_made2 = 0;  // the completing event, as Proc::rel_made ...
  uint32_t release_host = 0;

  // Returns false where the lockstep conditions fail. Without messages, records the sends' starts;
  // with them, checks the sends against those and requires every receive to complete.
  // The messages are of round `round` (they match receives of that tag).
  bool run(Clocks& c, uint32_t h, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs, uint32_t round = 0) {
    begin(h, pr, msgs);
    return run_begun(c, pr, ops, nops, msgs, round);
  }

  // Only the starts of a batch's sends alone, from its release's clocks `c`, where the closed form
  // holds (a send, a receive, or an exchange: the send starts as its clocks allow, and the timing
  // alone cannot fail); false elsewhere (time it alone with run()).
  static bool starts_alone(const Clocks& c, Op* ops, uint32_t nops) {
    if (nops == 0 || nops > 2) return false;
    const bool has_send = ops[0].type == loggp::kSend;
    if (nops == 2 && !(has_send && ops[1].type == loggp::kRecv)) return false;
    if (has_send) ops[0].start = std::max(c.o, c.gs);
    return true;
  }

  // The batch with its messages, from its release's clocks `c`, where the sends' starts alone are
  // not known yet: the closed form needs none (a message it takes arrives after the send started,
  // so the start is the one alone); elsewhere the batch is timed alone first, for them.
  bool run_received(Clocks& c, uint32_t h, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs, uint32_t round) {
    begin(h, pr, msgs);
    if (nops <= 2 && msgs.size() <= 1)
      if (std::optional<bool> done = plain(c, pr, ops, nops, msgs, round)) return *done;
    Clocks alone = c;
    return run(alone, h, pr, ops, nops, none_) && run(c, h, pr, ops, nops, msgs, round);
  }

 private:
  void begin(uint32_t h, const Proc& pr, const std::vector<const Msg*>& msgs) {
    h_ = h;
    own_made2_ = pr.rel_made;
    msgs_ = &msgs;
  }

  bool run_begun(Clocks& c, const Proc& pr, Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs, uint32_t round) {
    const bool alone = msgs.empty();
    if (nops <= 2 && msgs.size() <= 1)
      if (std::optional<bool> done = plain(c, pr, ops, nops, msgs, round)) return *done;
    if (!queue_events(c, pr, ops, nops, msgs)) return false;
    // The events in the engine's order, each run when its clocks allow (else put back for then).
    while (!ev_.empty()) {
      if (released_) return false;  // an event after the release: the next batch's would interleave
      const size_t best = next_event(pr.root);
      if (fail_) return false;
      Ev& e = ev_[best];
      const uint64_t t = e.time;
      uint64_t wait = 0;  // a later time the event must wait for
      if (e.msg) {
        wait = take_message(e, c, ops, round);
      } else if (Op& op = ops[e.idx]; op.type == loggp::kSend) {
        wait = take_send(t, c, op);
        if (wait == 0 && alone) op.start = t;
        else if (wait == 0 && op.start != t) return false;  // a message arrived in time to delay it
      } else {
        take_receive(e, op, round);
      }
      if (wait > 0) {
        e.time = wait;
        continue;
      }
      if (released_) record_release(e, pr);
      ev_[best] = ev_.back();
      ev_.pop_back();
    }
    return alone || (released_ && uq_.empty());
  }

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
      arrival = arrival_of(*msgs[0]);
      if (!after_release(*msgs[0], arrival, pr)) return false;  // it may come among the previous batch's events
      if (arrival <= (has_send ? start : c.o)) return std::nullopt;
      if (msgs[0]->from != ops[nops - 1].peer || round != ops[nops - 1].tag) return std::nullopt;
    }
    events = messages = noise = 0;
    if (has_send) {
      Op& op = ops[0];
      ++events;
      ++messages;
      send_at(start, c, op.size);
      op.start = start;  // (with a message, the start alone: it arrived after)
    }
    if (has_recv) ++events;
    if (!msgs.empty()) {  // the message, when it has arrived and the clocks allow; it completes the receive
      const Msg& m = *msgs[0];
      const uint64_t t = std::max(arrival, std::max(c.o, c.gr));
      ++events;
      message_at(t, c, m.size);
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

  // The batch's operations, ready at its release as their clocks allow, and its messages at their
  // arrivals. False: a message may come among the previous batch's events.
  bool queue_events(const Clocks& c, const Proc& pr, const Op* ops, uint32_t nops, const std::vector<const Msg*>& msgs) {
    ev_.clear();
    rq_.clear();
    uq_.clear();
    ev_.reserve(nops + msgs.size());
    events = messages = noise = 0;
    outstanding_ = 0;
    released_ = false;
    for (uint32_t i = 0; i < nops; ++i) {
      const Op& op = ops[i];
      if (op.type == loggp::kRecv) ++outstanding_;
      const uint64_t t = op.type == loggp::kSend ? std::max(c.o, c.gs) : c.o;
      ev_.push_back(Ev{t, pr.t_rel, i, false});
    }
    for (uint32_t j = 0; j < msgs.size(); ++j) {
      const uint64_t at = arrival_of(*msgs[j]);
      if (!after_release(*msgs[j], at, pr)) return false;  // it may come among the previous batch's events
      ev_.push_back(Ev{at, msgs[j]->sent, j, true});
    }
    return true;
  }

  // The next event: the earliest, ties by creation.
  size_t next_event(bool root) {
    size_t best = 0;
    for (size_t k = 1; k < ev_.size(); ++k) {
      const Ev& a = ev_[k];
      const Ev& b = ev_[best];
      if (a.time > b.time) continue;
      if (a.time < b.time || before_at_same_time(a, b, root)) best = k;
    }
    return best;
  }

  // A message at its time: 0 once it has run (it completes a posted receive, or waits as
  // unexpected), else the later time its clocks allow.
  uint64_t take_message(const Ev& e, Clocks& c, const Op* ops, uint32_t round) {
    const Msg& m = msg(e);
    const uint64_t ready = std::max(c.o, c.gr);
    if (ready > e.time) return ready;
    ++events;
    message_at(e.time, c, m.size);
    if (take(rq_, [&](uint32_t i) { return ops[i].peer == m.from && ops[i].tag == round; })) released_ = --outstanding_ == 0;
    else uq_.push_back(e.idx);
    return 0;
  }
  // A send at t: 0 once it has started, else the later time its clocks allow.
  uint64_t take_send(uint64_t t, Clocks& c, const Op& op) {
    const uint64_t ready = std::max(c.o, c.gs);
    if (ready > t) return ready;
    ++events;
    ++messages;
    send_at(t, c, op.size);
    return 0;
  }
  // A receive completes with an unexpected message already there, or is posted.
  void take_receive(const Ev& e, const Op& op, uint32_t round) {
    ++events;
    const std::vector<const Msg*>& msgs = *msgs_;
    if (take(uq_, [&](uint32_t j) { return msgs[j]->from == op.peer && round == op.tag; })) released_ = --outstanding_ == 0;
    else rq_.push_back(e.idx);
  }

  // The event that completed the batch's last receive, as the next batch's release.
  void record_release(const Ev& e, const Proc& pr) {
    release_time = e.time;
    if (e.msg) {  // made by a send elsewhere
      release_made = made_key(msg(e).sent, false);
      release_host = msg(e).from;
      release_made2 = msg(e).sent_made;
    } else {  // one of the batch's receives: made by the batch's release
      release_made = made_key(pr.t_rel, pr.root);
      release_host = h_;
      release_made2 = pr.rel_made;
    }
  }

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
    const int order =
        host_a == host_b ? 0
                         : order_further_back(a.msg ? msg(a).sent_made : own_made2_, host_a, b.msg ? msg(b).sent_made : own_made2_, host_b);
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

  // The engine's rules (loggp.h) on this processor's clocks: a send, or a message handled, at t;
  // a message's arrival; a detour. (Kept inline: out of line, as GCC left them where the lockstep
  // timing is built twice over, they cost a tenth of its instructions.)
  [[gnu::always_inline]] void send_at(uint64_t t, Clocks& c, uint64_t size) {
    c.o = with_detour(t, t + rules_.send_cpu(h_, size));
    c.gs = t + rules_.nic(size);
  }
  [[gnu::always_inline]] void message_at(uint64_t t, Clocks& c, uint64_t size) {
    c.o = with_detour(t, t + rules_.message_cpu(h_, size));
    c.gr = t + rules_.nic(size);
  }
  uint64_t arrival_of(const Msg& m) const { return rules_.arrival(m.from, m.sent); }
  // The CPU's clock `done` after work that started at t, delayed by the noise's detour (their sum
  // held at loggp::kTimeLimit, which the run then refuses); without noise, `done` as it is.
  [[gnu::always_inline]] uint64_t with_detour(uint64_t t, uint64_t done) {
    if (!noise_) return done;
    const uint64_t d = noise_->detour(h_, t, rules_.o(h_));
    noise = loggp::add_capped(noise, d);
    return loggp::add_capped(done, d);
  }

  const loggp::Rules rules_;
  const loggp::Noise* noise_;
  const Msg& msg(const Ev& e) const { return *(*msgs_)[e.idx]; }
  uint32_t h_ = 0;                                 // the processor
  uint64_t own_made2_ = 0;                         // when its batch's release was made (made_key)
  const std::vector<const Msg*>* msgs_ = nullptr;  // the run's messages
  std::vector<Ev> ev_;
  std::vector<uint32_t> rq_, uq_;  // posted receives (operation indices), unexpected messages
  const std::vector<const Msg*> none_;
  int outstanding_ = 0;            // receives of the batch not yet complete
  bool released_ = false;          // the last of them completed
  bool fail_ = false;
};

}  // namespace ppsim::lockstep
