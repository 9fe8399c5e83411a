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
#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "loggp/huge_alloc.h"
#include "loggp/loggp_batch.h"
#include "loggp/loggp_rounds.h"
#include "loggp/loggp_run.h"
#include "ppsim/buffers.h"

namespace ppsim {

namespace {

using lockstep::BatchTimer;
using lockstep::Clocks;
using lockstep::made_key;
using lockstep::Msg;
using lockstep::Op;
using lockstep::Proc;
using loggp::ReadyOp;

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

// A message of a round as the timing keeps it. With two lanes (the run with its noise and without
// it, timed in one pass) it carries its send's start in each; one lane keeps the timer's Msg itself.
template <int Lanes>
struct LaneMsg {
  uint64_t size;
  uint64_t sent[Lanes], sent_made[Lanes];
  uint32_t from;
  int32_t link;
};
template <int Lanes>
using RoundMsg = std::conditional_t<Lanes == 1, Msg, LaneMsg<Lanes>>;

// What a thread needs to time batches: its own reader, a timer per lane and scratch, and the
// messages and waiting processors it makes, by round (gathered from every thread when their round
// comes).
template <int Lanes>
struct Worker {
  Worker(const RunConfig& c, const std::array<const loggp::Effects*, Lanes>& fx, int rounds, size_t guess)
      : reader(c), sent(rounds, guess), waiting(rounds, guess) {
    for (int l = 0; l < Lanes; ++l) timers.emplace_back(c.cost.loggp, *fx[size_t(l)]);
  }
  loggp_rounds::RoundReader reader;
  std::vector<BatchTimer> timers;
  ByRound<RoundMsg<Lanes>> sent;
  ByRound<uint32_t> waiting;
  std::vector<Op> ops;
  std::vector<const Msg*> msgs;
  std::vector<Msg> lane_msgs;      // (two lanes) the round's messages as one lane sees them
  std::vector<int32_t> inbox;      // (two lanes) the processor's messages of the round
  std::vector<uint64_t> starts;    // (two lanes) the batch's sends' starts, lane by lane
  int nrecv = 0;
  uint64_t events[Lanes] = {}, messages[Lanes] = {};
  size_t taken = 0;  // messages of the round
  bool failed = false;
  bool lane_failed[Lanes] = {};  // (two lanes) a lane whose conditions failed on this thread
  bool stopped_early = false;    // and that ended the pass (LockstepTiming::run's `early`)
};

// Appends every worker's vector of round r to `all`, and gives theirs back (one worker's is taken
// as it is: no copy).
template <class W, class T>
void gather(std::vector<std::unique_ptr<W>>& workers, ByRound<T> W::*by_round, int r, HugeVector<T>& all) {
  all.clear();
  if (workers.size() == 1) {
    all.swap((*workers[0].*by_round)[r]);
    (*workers[0].*by_round).done(r, all.size());  // (keeps all's former buffer for a later round)
    return;
  }
  // Each worker's part copied on a thread of its own (a round's messages at 2^18 processors are
  // 12 MB, which one thread copying alone made a serial part of every round).
  std::vector<size_t> at(workers.size() + 1, 0);
  for (size_t t = 0; t < workers.size(); ++t) at[t + 1] = at[t] + ((*workers[t]).*by_round)[r].size();
  all.resize(at.back());  // (default-initialized: HugeAlloc writes nothing)
  auto copy = [&](size_t t) {
    const HugeVector<T>& v = ((*workers[t]).*by_round)[r];
    std::copy(v.begin(), v.end(), all.begin() + std::ptrdiff_t(at[t]));
  };
  if (at.back() < 16384) {  // (one thread copies a small round; test_loggp_lockstep's 2^14 runs use threads)
    for (size_t t = 0; t < workers.size(); ++t) copy(t);
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers.size(); ++t) pool.emplace_back(copy, t);
    copy(0);
    for (auto& th : pool) th.join();
  }
  for (size_t t = 0; t < workers.size(); ++t) ((*workers[t]).*by_round).done(r, at[t + 1] - at[t]);
}

// The lockstep timing of one run: every processor between two of its batches, the messages of the
// round being timed, and a worker per thread that times batches. Lane 0 is the run as configured;
// a second lane is the same run without noise, timed in the same pass (the lanes share the batches,
// their operations and their messages' receivers; only the times differ), so a noisy run reads its
// rounds once for both timings.
template <int Lanes>
class LockstepTiming {
  using W = Worker<Lanes>;
  using M = RoundMsg<Lanes>;

 public:
  LockstepTiming(const RunConfig& c, int threads)
      : P_(c.cost.loggp), effects_{make_effects(c)}, p_(uint32_t(run_processors(c))), R_(c.algorithm->rounds(c.params)),
        threads_(thread_count(threads, p_)), procs_(p_), inbox_(p_, -1) {
    std::array<const loggp::Effects*, Lanes> fx{};
    for (int l = 0; l < Lanes; ++l) {
      fx[size_t(l)] = &effects_[size_t(l)]->effects();
      finish_[size_t(l)].assign(p_, 0);
      if (fx[size_t(l)]->noise) noise_[size_t(l)].assign(p_, 0);
    }
    for (int t = 0; t < threads_; ++t) workers_.push_back(std::make_unique<W>(c, fx, R_, t == 0 ? size_t(p_) : 0));
  }

  // Every processor's first batch at its release, then round by round the batches that receive in
  // it; nothing where a lockstep condition fails. One result per lane. With two lanes, one whose
  // own conditions fail (the times of a batch's events: mostly the noisy lane, under independent
  // noise) is dropped at once and the other goes on alone; nothing only for the lanes dropped or
  // where the batches themselves fail (a receive no message matches, an operation not eager).
  // With `early`, a lane that fails in the first quarter of the rounds ends the pass there and
  // then (*early: the other lane alone in the two lanes' records costs half as much again as its
  // own timing, and the rest of the round would be lost as well).
  std::optional<std::array<std::optional<loggp::Result>, Lanes>> run(bool* early = nullptr) {
    if (early) *early = false;
    stop_early_ = early != nullptr;
    in_parallel(p_, [&](W& w, size_t h) { return release(w, uint32_t(h)); });
    if (any_failed() || !merge_dropped()) return stopped(early);
    for (int r = 1; r <= R_; ++r) {
      round_ = r;
      if (!time_round(r) || !merge_dropped()) return stopped(early);
    }
    std::array<std::optional<loggp::Result>, Lanes> out;
    for (int l = 0; l < Lanes; ++l)
      if (!dropped_[l]) out[size_t(l)] = result(l);
    return out;
  }
  // Lane l was dropped (its conditions failed) before the pass ended.
  bool dropped(int l) const { return dropped_[l]; }

 private:
  static std::array<std::unique_ptr<const loggp_rounds::RunEffects>, Lanes> make_effects(const RunConfig& c) {
    std::array<std::unique_ptr<const loggp_rounds::RunEffects>, Lanes> fx;
    for (int l = 0; l < Lanes; ++l) fx[size_t(l)] = std::make_unique<const loggp_rounds::RunEffects>(c, l > 0);
    return fx;
  }
  static int thread_count(int threads, uint32_t p) {
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    return int(std::min<int64_t>(threads, std::max<int64_t>(1, p / 4096)));  // a thread's share worth its start
  }

  // The pass failed: where a lane's own checks ended it early, *early says so and dropped() which.
  std::nullopt_t stopped(bool* early) {
    bool lane_ended = false, batches_failed = false;  // (the batches failing: every lane declines)
    for (auto& w : workers_) {
      lane_ended = lane_ended || w->stopped_early;
      batches_failed = batches_failed || (w->failed && !w->stopped_early);
    }
    if (early) *early = lane_ended && !batches_failed;
    merge_dropped();
    return std::nullopt;
  }
  // Whether lane l is no longer timed (dropped in an earlier round, or on this thread in this one).
  bool skip(const W& w, int l) const { return dropped_[l] || w.lane_failed[l]; }
  // Lane l's conditions failed on w's thread: with two lanes it is dropped and the timing goes on
  // while a lane is left; false: the whole timing fails.
  bool drop(W& w, int l) {
    if constexpr (Lanes == 1) return false;
    w.lane_failed[l] = true;
    if (stop_early_ && 4 * (round_ - 1) <= R_) {
      w.stopped_early = true;
      return false;
    }
    for (int k = 0; k < Lanes; ++k)
      if (!skip(w, k)) return true;
    return false;
  }
  // The lanes dropped on any thread, dropped for all; false when none is left.
  bool merge_dropped() {
    bool left = false;
    for (int l = 0; l < Lanes; ++l) {
      for (auto& w : workers_) dropped_[l] = dropped_[l] || w->lane_failed[l];
      left = left || !dropped_[l];
    }
    return left;
  }

  // h's batch from round `first`, in the engine's order: each round's sends, then its receives, and
  // only the last round receives, so they are sorted by type already; the engine's std::sort keeps
  // them so up to 16 (insertion sort), beyond that it is called as the engine calls it (on the same
  // sequence of types: the same order). `next`: the round after it; false: not all eager.
  bool read(W& w, uint32_t h, int first, int& next) {
    w.ops.clear();
    w.nrecv = 0;
    next = first;
    if (first <= R_) {
      auto add = [&](const ReadyOp& o) { w.ops.push_back(Op{o.size, 0, o.peer, o.tag, o.type}); };
      try {
        next = loggp_rounds::read_batch(w.reader, h, first, add, w.nrecv);
      } catch (const loggp::StuckError&) {
        return false;  // more operations in a round than a step holds: the event engine reports it
      }
    }
    if (w.ops.size() > 16) std::sort(w.ops.begin(), w.ops.end(), [](const Op& a, const Op& b) { return a.type < b.type; });
    for (const Op& o : w.ops)
      if (o.size == 0 || o.size > P_.S || o.peer >= p_) return false;  // rendezvous, or a 0-byte clock wrap
    return true;
  }

  // A batch's last timing in lane l: its events, messages and detours counted, its finish kept
  // where it is h's last batch.
  void count(W& w, int l, uint32_t h) {
    const BatchTimer& t = w.timers[size_t(l)];
    w.events[l] += t.events;
    w.messages[l] += t.messages;
    if (!noise_[size_t(l)].empty()) noise_[size_t(l)][h] = loggp::add_capped(noise_[size_t(l)][h], t.noise);
  }

  // Times h's batch from its release alone, in each lane: its messages go out, and it waits for
  // the round it receives in (where it is read again).
  bool release(W& w, uint32_t h) {
    int next = 0;
    if (!read(w, h, procs_[h][0].first, next)) return false;
    const uint32_t n = uint32_t(w.ops.size());
    size_t sends = 0;
    if constexpr (Lanes > 1) {
      for (const Op& o : w.ops) sends += o.type == loggp::kSend;
      w.starts.assign(sends * Lanes, 0);  // (a dropped lane's stay 0: nobody reads them)
    }
    for (int l = 0; l < Lanes; ++l) {
      if (skip(w, l)) continue;
      Proc& pr = procs_[h][size_t(l)];
      Clocks clk = pr.at_release;
      // (a batch that receives needs only its sends' starts here: it is timed whole in its round)
      if (!(w.nrecv > 0 && BatchTimer::starts_alone(clk, w.ops.data(), n)) && !w.timers[size_t(l)].run(clk, h, pr, w.ops.data(), n, none_)) {
        if (!drop(w, l)) return false;
        continue;
      }
      if constexpr (Lanes > 1) {
        size_t k = size_t(l) * sends;
        for (const Op& o : w.ops)
          if (o.type == loggp::kSend) w.starts[k++] = o.start;
      }
      if (w.nrecv == 0) {  // nothing to wait for: its last batch
        finish_[size_t(l)][h] = clk.o;
        count(w, l, h);
      }
    }
    size_t k = 0;
    for (const Op& o : w.ops) {
      if (o.type != loggp::kSend) continue;
      if constexpr (Lanes == 1) {
        const Proc& pr = procs_[h][0];
        w.sent[int(o.tag)].push_back(Msg{o.size, o.start, made_key(pr.t_rel, pr.root), h, int32_t(o.peer)});
      } else {
        M m{};
        m.size = o.size;
        m.from = h;
        m.link = int32_t(o.peer);
        for (int l = 0; l < Lanes; ++l) {
          const Proc& pr = procs_[h][size_t(l)];
          m.sent[l] = w.starts[size_t(l) * sends + k];
          m.sent_made[l] = made_key(pr.t_rel, pr.root);
        }
        w.sent[int(o.tag)].push_back(m);
      }
      ++k;
    }
    if (w.nrecv > 0) w.waiting[next - 1].push_back(h);
    return true;
  }

  // The messages of round r for h, as lane l sees them, into w.msgs (with one lane, the round's
  // own, which receive() put there; with two, copies from the inbox it read into w.inbox).
  void lane_messages(W& w, int l) {
    if constexpr (Lanes > 1) {
      w.msgs.clear();
      w.lane_msgs.clear();
      for (int32_t k : w.inbox) {
        const M& m = round_msgs_[size_t(k)];
        w.lane_msgs.push_back(Msg{m.size, m.sent[l], m.sent_made[l], m.from, m.link});
      }
      for (const Msg& m : w.lane_msgs) w.msgs.push_back(&m);
    }
  }

  // Times h's batch with the messages of round r, in each lane, then releases its next.
  bool receive(W& w, uint32_t h, int r) {
    w.inbox.clear();
    w.msgs.clear();
    for (int32_t k = inbox_[h]; k >= 0; k = round_msgs_[size_t(k)].link) {
      if constexpr (Lanes == 1) w.msgs.push_back(&round_msgs_[size_t(k)]);
      else w.inbox.push_back(k);
    }
    inbox_[h] = -1;
    const size_t got = Lanes == 1 ? w.msgs.size() : w.inbox.size();
    w.taken += got;
    if (got == 0) return false;  // a receive no message matches: the engine reports it
    int next = 0;
    read(w, h, procs_[h][0].first, next);
    const uint32_t n = uint32_t(w.ops.size());
    for (int l = 0; l < Lanes; ++l) {
      Proc& pr = procs_[h][size_t(l)];
      pr.first = r + 1;  // (in every lane: the batches are read by lane 0's, dropped or not)
      if (skip(w, l)) continue;
      BatchTimer& timer = w.timers[size_t(l)];
      lane_messages(w, l);
      Clocks clk = pr.at_release;
      if (!timer.run_received(clk, h, pr, w.ops.data(), n, w.msgs, uint32_t(r))) {
        if (!drop(w, l)) return false;
        continue;
      }
      count(w, l, h);
      pr.at_release = clk;
      pr.t_rel = timer.release_time;
      pr.rel_made = timer.release_made;
      pr.rel_made2 = timer.release_made2;
      pr.rel_host = timer.release_host;
      pr.root = false;
    }
    return release(w, h);
  }

  // Round r: its messages to their receivers, then the batches that receive in it. False where a
  // check fails.
  bool time_round(int r) {
    gather(workers_, &W::sent, r, round_msgs_);
    gather(workers_, &W::waiting, r, waiting_);
    if (round_msgs_.size() > size_t(INT32_MAX)) return false;  // (the links are 32 bits)
    for (size_t k = 0; k < round_msgs_.size(); ++k) {
      M& m = round_msgs_[k];
      const uint32_t to = uint32_t(m.link);
      m.link = inbox_[to];
      inbox_[to] = int32_t(k);
    }
    in_parallel(waiting_.size(), [&](W& w, size_t i) { return receive(w, waiting_[i], r); });
    if (any_failed()) return false;
    size_t taken = 0;
    for (auto& w : workers_) taken += std::exchange(w->taken, 0);
    return taken == round_msgs_.size();  // (else a message no receive of its round takes)
  }

  // f(worker, i) for i in [0, n), the range split among the threads.
  template <class F>
  void in_parallel(size_t n, F&& f) {
    // (an exception on a thread, say memory running out, is thrown again on the caller's)
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads_));
    auto part = [&](int t, int parts) {
      W& w = *workers_[size_t(t)];
      const size_t lo = n * size_t(t) / size_t(parts), hi = n * size_t(t + 1) / size_t(parts);
      try {
        for (size_t i = lo; i < hi && !w.failed; ++i) w.failed = !f(w, i);
      } catch (...) {
        errors[size_t(t)] = std::current_exception();
      }
    };
    const int parts = n < 4096 ? 1 : threads_;
    std::vector<std::thread> pool;
    for (int t = 1; t < parts; ++t) pool.emplace_back(part, t, parts);
    part(0, parts);
    for (auto& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }
  bool any_failed() const {
    for (auto& w : workers_)
      if (w->failed) return true;
    return false;
  }

  // Lane l's times; nothing where a clock wrapped (the event engine reports it).
  std::optional<loggp::Result> result(int l) {
    uint64_t events = 0, messages = 0;
    for (auto& w : workers_) {
      events += w->events[l];
      messages += w->messages[l];
    }
    return loggp_rounds::finished(std::move(finish_[size_t(l)]), std::move(noise_[size_t(l)]), events, messages);
  }

  const loggp::Params& P_;
  const std::array<std::unique_ptr<const loggp_rounds::RunEffects>, Lanes> effects_;
  const uint32_t p_;
  const int R_;
  const int threads_;
  std::vector<std::unique_ptr<W>> workers_;
  HugeVector<std::array<Proc, Lanes>> procs_;  // each processor's state in every lane, side by side
  std::array<std::vector<uint64_t>, Lanes> finish_;
  std::array<std::vector<uint64_t>, Lanes> noise_;  // per processor, in a lane with noise
  HugeVector<int32_t> inbox_;                       // per receiver: its first message of the round (-1: none)
  HugeVector<M> round_msgs_;                        // the messages of the round being timed
  HugeVector<uint32_t> waiting_;                    // the processors whose batch receives in it
  bool dropped_[Lanes] = {};                        // lanes no longer timed
  bool stop_early_ = false;                         // a lane failing early ends the pass (run)
  int round_ = 0;                                   // the round being timed (0: the first batches' release)
  const std::vector<const Msg*> none_;
};

}  // namespace

std::optional<loggp::Result> loggp_lockstep(const RunConfig& c, int threads) {
  std::optional<std::array<std::optional<loggp::Result>, 1>> r = LockstepTiming<1>(c, threads).run();
  if (!r) return std::nullopt;
  return std::move((*r)[0]);
}

NoisyAndNoiseless loggp_lockstep_noisy_and_noiseless(const RunConfig& c, int threads) {
  NoisyAndNoiseless out;
  LockstepTiming<2> pass(c, threads);
  bool early = false;
  std::optional<std::array<std::optional<loggp::Result>, 2>> r = pass.run(&early);
  if (early) {  // one lane declined early: the other is left to be timed alone
    out.noisy_declined = pass.dropped(0);
    out.noiseless_declined = pass.dropped(1);
    return out;
  }
  out.noisy_declined = out.noiseless_declined = true;  // (where it gives neither, each alone declines too)
  if (!r) return out;
  out.noisy = std::move((*r)[0]);
  out.noiseless = std::move((*r)[1]);
  out.noisy_declined = !out.noisy;
  out.noiseless_declined = !out.noiseless;
  return out;
}

}  // namespace ppsim
