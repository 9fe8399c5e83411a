// The round bodies of the CUDA backend: what one thread (or one group of lanes) does for one
// processor, send or receive in each phase of a step. They are plain PPSIM_HD function objects, so
// the same bodies run inside the device kernels (backend.cu) and, one index after another, in the
// host execution of the rounds (host_rounds.cpp) that CI uses to check the round logic without a
// GPU. No CUDA types here; atomics (hd_atomics.h) and lane barriers go through wrappers. Every
// rule a body applies is step_rules.h's, the one the CPU backend applies too.
#pragma once
#include <climits>
#include <cstdint>

#include "algorithms/all.h"
#include "ppsim/engine.h"
#include "rules/round_ops.h"
#include "rules/step_rules.h"

namespace ppsim {
namespace rounds {

// How many lanes move one processor's words in post and deliver: one thread (short messages), a
// warp (32 lanes), or a whole thread block (long messages).
enum class GroupWidth : int8_t { thread, warp, block };

#if !defined(__CUDA_ARCH__)
// The host executor can run a group's lanes as threads (to check the lane arithmetic and barriers
// without a GPU); each such thread points this at its group's barrier.
struct HostLaneBarrier {
  virtual void wait() = 0;

 protected:
  ~HostLaneBarrier() = default;
};
inline thread_local HostLaneBarrier* host_lane_barrier = nullptr;
#endif

// The lanes of one processor's group wait for each other: the block or the warp on the device, the
// group's threads on the host; nothing to wait for with one lane.
PPSIM_HD inline void group_sync(int lanes) {
#if defined(__CUDA_ARCH__)
  if (lanes > 32) __syncthreads();
  else if (lanes > 1) __syncwarp();
#else
  if (lanes > 1 && host_lane_barrier) host_lane_barrier->wait();
#endif
}

inline constexpr unsigned long long kNoError = ULLONG_MAX;

struct DevSend {
  int32_t from, to;
  int16_t buf, route;  // route: 0 the topology's own, n >= 1 another (--reroute; rules/failure_rules.h)
  int32_t hops;
  int64_t src_off, len, pool_off;
  int64_t run, stride;  // the slice: runs of `run` words every `stride` words (run == len: contiguous)
  int64_t combined;     // words its receive combines (set when matched)
};

struct DevRecv {
  int32_t proc, from, nact, pad;
  int64_t len, pool_off;  // pool_off < 0: not matched
  RecvAction act[kMaxActions];
};

// A round's totals, from the sizing pass (a sum over processors): its messages, the receives
// posted, the payload words, the link-hops, and the words the receives expect (a run split across
// ranks keeps the messages other ranks send its block in the pool: at most that many words). The
// round's figures take messages, words and hops from here, so no step counts them again.
// With failures (--fail) the totals count what is left after drop_lost; the messages it dropped
// and rerouted are counted where the round is posted (PostBody), only then.
struct RoundTotals {
  long long sends, recvs, words, hops, recv_words;
  PPSIM_HD RoundTotals operator+(const RoundTotals& o) const {
    return RoundTotals{sends + o.sends, recvs + o.recvs, words + o.words, hops + o.hops, recv_words + o.recv_words};
  }
};

// One processor's share of a step (its sends, receives and payload words); an exclusive scan of
// these over processors 0..p gives every processor's first slot and, at p, the step's totals, so a
// processor's counts are the difference of two neighbours: one scan where there were a count
// kernel and three scans.
struct Slots {
  long long sends, recvs, words;
  PPSIM_HD Slots operator+(const Slots& o) const { return Slots{sends + o.sends, recvs + o.recvs, words + o.words}; }
};

// The most loaded link and the slowest message of a round: a max reduction over its messages.
struct RoundPeak {
  long long max_load;
  double max_time;
};

// Combiners for the executors' reductions and scans (device and host alike).
struct SumOf {
  template <class T>
  PPSIM_HD T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct PeakOf {
  PPSIM_HD RoundPeak operator()(const RoundPeak& a, const RoundPeak& b) const {
    return RoundPeak{a.max_load > b.max_load ? a.max_load : b.max_load, a.max_time > b.max_time ? a.max_time : b.max_time};
  }
};

// The first broken rule: (step << 32) | processor, the smallest wins; kNoError while none is.
struct RunStatus {
  unsigned long long error;
};

// Everything a body needs, passed by value. The bodies' processor indices are local: index i is
// processor lo + i, and its words are at i * words(b). One process holds every processor (lo = 0,
// hi = the run's processors, switch agents included); a rank of a run split across ranks holds its
// block [lo, hi) (docs/DESIGN.md §8). Every kernel and every CUB call copies it, so what only
// some bodies read, and only some runs have (the cost parameters with their link classes and
// stragglers, the failures), stays in the executor's memory behind a pointer: at 2.3 KB by value
// the device rounds ran about 1.5 times slower.
struct Ctx {
  AlgorithmId algo;
  AlgoParams a;
  rules::Machine machine;  // physical: routes and links
  rules::PortRules ports;  // the port model, and the buffers' shape
  OperatorKind op;
  bool tokens;             // a barrier: messages carry knowledge tokens (step_rules.h, carries_tokens)
  rules::Clock clock;      // rounds and steps: which step a round leaves in, and when its messages arrive
  const CostParams* cost;  // in the executor's memory, like the machine's failures (below)
  int64_t lo, hi;
  uint64_t* bufs[kMaxBuffers];
  RunStatus* status;
  // Tests only, host execution only: RunConfig::test_ops_override (a host function).
  rules::OpsOverride ops_override;
  PPSIM_HD int nbuf() const { return ports.shape.nbuf; }
  PPSIM_HD int64_t words(int32_t b) const { return ports.shape.words[b]; }
  PPSIM_HD bool holds(int64_t proc) const { return proc >= lo && proc < hi; }
};

PPSIM_HD inline bool failed(const Ctx& c) { return atomic_load(&c.status->error) != kNoError; }
PPSIM_HD inline void flag_error(const Ctx& c, int64_t step, int64_t proc) {
  atomic_min(&c.status->error, (static_cast<unsigned long long>(step) << 32) | static_cast<unsigned long long>(proc));
}

// Every rule of step_rules.h's check_ops holds for processor i's ops (Plain: on a plain run).
template <bool Plain = false, class Ops>
PPSIM_HD PPSIM_DEVICE_INLINE bool ops_valid(const Ctx& c, const Ops& ops, int64_t i) {
  return rules::check_ops<Plain>(c.ports, c.machine, ops, i).what == rules::Broken::none;
}

// Initial contents of buffer b, one word per index.
struct InitBody {
  Ctx c;
  Operation op;
  InputSpec in;
  int32_t b;
  PPSIM_HD void operator()(int64_t x) const {
    const bool scratch = b >= operation_buffer_count(op);
    const int64_t proc = c.lo + x / c.words(b);  // a switch agent (proc >= p) holds no input
    c.bufs[b][x] = scratch || proc >= c.a.p ? operator_unset(c.op) : operation_initial_word(op, c.op, in, c.a, b, proc, x % c.words(b));
  }
};

// The algorithm's local work before the first or after the last step (last_step: the run's last
// step, when phase is after it), one processor per index.
struct LocalBody {
  Ctx c;
  LocalPhase phase;
  int64_t last_step = 0;
  PPSIM_HD void operator()(int64_t i) const {
    if (phase == LocalPhase::after_last_step && rules::down_at_end(c.machine.failures, c.lo + i, last_step)) return;
    ProcBuffers view;
    for (int b = 0; b < c.nbuf(); ++b) {
      view.buf[b] = c.bufs[b] + i * c.words(b);
      view.words[b] = c.words(b);
    }
    algorithm_local(c.algo, c.a, c.op, c.lo + i, phase, view);
  }
};

// The round's ops of processor i sent in `step`: checked against the port model and the slices,
// then what the failures leave of them (route: each send's route). A broken rule is flagged (the
// record names the step the round's messages leave in) and counts as no ops.
PPSIM_HD inline bool valid_ops(const Ctx& c, int64_t i, int round, int64_t step, StepOps& ops, int8_t* route, rules::Losses& lost) {
  rules::read_round_ops(c.algo, c.ops_override, c.a, i, round, ops);  // an overflow is check_ops's first rule
  if (!ops_valid(c, ops, i)) return false;
  if (c.machine.failures) lost = rules::drop_lost(c.machine, ops, i, step, c.clock.arrives(step), route);
  else
    for (int n = 0; n < ops.nsend; ++n) route[n] = 0;
  return true;
}

// The round's ops of processor i, counted: its sends, receives, payload words and (with_hops)
// link-hops.
PPSIM_HD inline RoundTotals counted_ops(const Ctx& c, int64_t i, int round, int64_t step, bool with_hops) {
  StepOps ops;
  int8_t route[kMaxOps];
  rules::Losses lost;
  RoundTotals t{0, 0, 0, 0, 0};
  if (!valid_ops(c, i, round, step, ops, route, lost)) {
    flag_error(c, step, i);
    return t;
  }
  t.sends = ops.nsend;
  t.recvs = ops.nrecv;
  for (int n = 0; n < ops.nrecv; ++n) t.recv_words += ops.recv[n].len;
  for (int n = 0; n < ops.nsend; ++n) {
    t.words += ops.send[n].len;
    if (with_hops) t.hops += rules::message_hops(c.machine, i, ops.send[n].to, route[n]);
  }
  return t;
}

// Sizing: one processor's contribution to its round's totals (summed over processors).
struct RoundCount {
  Ctx c;
  int round;
  int64_t step;
  PPSIM_HD RoundTotals operator()(int64_t i) const { return counted_ops(c, c.lo + i, round, step, true); }
};

// Sizing, every round in one pass: processor i's contribution to round r's totals.
struct RoundsCount {
  Ctx c;
  PPSIM_HD RoundTotals operator()(int r, int64_t i) const { return counted_ops(c, c.lo + i, r, c.clock.step_of_round(r), true); }
};

// A step's slots: one processor's sends, receives and payload words (index hi - lo: none, so that
// the exclusive scan over hi - lo + 1 indices ends with the step's totals).
struct SlotCount {
  Ctx c;
  int round;
  int64_t step;
  PPSIM_HD Slots operator()(int64_t i) const {
    if (c.lo + i >= c.hi) return Slots{0, 0, 0};  // past the processors and the switch agents
    const RoundTotals t = counted_ops(c, c.lo + i, round, step, false);
    return Slots{t.sends, t.recvs, t.words};
  }
};

// post: one processor's sends and receives recorded, its payloads copied (the start-of-step state:
// nothing of this step has been delivered yet). Lane 0 computes the processor's ops and records
// them; after the group's barrier every lane reads the records back and takes its share of the
// words (the ops are computed once per processor, not once per lane). A processor whose ops break
// a rule has no slots (the scan counted none), so its lanes copy nothing; there is no early exit
// on another processor's broken rule, since every lane must reach the barrier.
struct PostBody {
  Ctx c;
  int round;
  int64_t step;
  const Slots* slot;  // the step's exclusive scan: processor i's first send, receive and pool word
  DevSend* sends;
  DevRecv* recvs;
  uint64_t* pool;
  unsigned long long* lost;  // with failures: the round's [dropped, rerouted] messages (else null)
  PPSIM_HD void operator()(int64_t i, int lane, int lanes) const {
    const Slots first = slot[i];
    if (lane == 0) record(c.lo + i, first);
    group_sync(lanes);
    for (int64_t n = first.sends; n < slot[i + 1].sends; ++n) {
      const DevSend x = sends[n];
      const uint64_t* src = c.bufs[x.buf] + i * c.words(x.buf) + x.src_off;
      uint64_t* dst = pool + x.pool_off;
      if (x.run == x.len) {
        for (int64_t w = lane; w < x.len; w += lanes) dst[w] = src[w];  // contiguous: no division
      } else {
        for (int64_t w = lane; w < x.len; w += lanes) dst[w] = src[(w / x.run) * x.stride + w % x.run];
      }
    }
  }
  PPSIM_HD void record(int64_t i, const Slots& first) const {  // i: the processor's id
    StepOps ops;
    int8_t route[kMaxOps];
    rules::Losses lost;
    if (!valid_ops(c, i, round, step, ops, route, lost)) return;  // the scan has flagged it and gave it no slots
    if (lost.dropped > 0) atomic_add(&this->lost[0], static_cast<unsigned long long>(lost.dropped));
    if (lost.rerouted > 0) atomic_add(&this->lost[1], static_cast<unsigned long long>(lost.rerouted));
    int64_t at = first.words;
    for (int n = 0; n < ops.nsend; ++n) {
      const Send& x = ops.send[n];
      const int64_t run = x.run == 0 ? x.len : x.run, stride = x.run == 0 ? x.len : x.stride;
      sends[first.sends + n] = DevSend{int32_t(i), int32_t(x.to), int16_t(x.buf), int16_t(route[n]), 0, x.src_off, x.len, at, run, stride, 0};
      at += x.len;
    }
    for (int n = 0; n < ops.nrecv; ++n) {
      const Recv& x = ops.recv[n];
      DevRecv r;
      r.proc = int32_t(i);
      r.from = int32_t(x.from);
      r.nact = x.nact;
      r.pad = 0;
      r.len = x.len;
      r.pool_off = -1;
      for (int q = 0; q < kMaxActions; ++q) r.act[q] = x.act[q];
      recvs[first.recvs + n] = r;
    }
  }
};

// match: one send finds its receive (the n-th send from a to b meets the n-th receive at b from
// a), hands it the payload and loads the links of its route. The round's message, word and hop
// totals come from the sizing pass: nothing here adds to a shared counter but the link loads. A
// send to a processor another rank holds loads its links here and is matched there (rounds.h).
struct MatchBody {
  Ctx c;
  int64_t step;
  DevSend* sends;
  DevRecv* recvs;
  const Slots* slot;
  unsigned long long* link_load;
  PPSIM_HD void operator()(int64_t s) const {
    if (failed(c)) return;
    const DevSend x = sends[s];
    const rules::Machine& m = c.machine;
    const uint32_t stamp = uint32_t(step);
    if (!c.holds(x.to)) {
      sends[s].hops = int32_t(rules::message_hops(m, x.from, x.to, x.route));
      if (!direct_links(m.topo)) rules::for_each_message_link(m, x.from, x.to, x.route, [&](int64_t id) { rules::count_link(&link_load[id], stamp); });
      return;
    }
    const int64_t to = x.to - c.lo;
    const int k = rules::occurrence(sends, slot[x.from - c.lo].sends, s);
    DevRecv* match = rules::matching_receive(recvs + slot[to].recvs, slot[to + 1].recvs - slot[to].recvs, x.from, k);
    if (!match || match->len != x.len) {
      flag_error(c, step, x.from);
      return;
    }
    match->pool_off = x.pool_off;
    sends[s].hops = int32_t(rules::message_hops(m, x.from, x.to, x.route));
    sends[s].combined = rules::charged_combined_words(c.tokens, match->act, match->nact, match->len);
    if (!direct_links(m.topo)) rules::for_each_message_link(m, x.from, x.to, x.route, [&](int64_t id) { rules::count_link(&link_load[id], stamp); });
  }
};

// cost: one send's congestion (its most loaded link, or on direct links the messages it shares
// its sender-receiver pair with) and time (link classes included: rules::route_cost); the round's
// peak is a max reduction over these. A send to another rank's processor is costed there.
struct CostOf {
  Ctx c;
  int64_t step;
  const DevSend* sends;
  const Slots* slot;
  const unsigned long long* link_load;
  PPSIM_HD RoundPeak operator()(int64_t s) const {
    if (failed(c)) return RoundPeak{0, 0.0};
    const DevSend x = sends[s];
    if (!c.holds(x.to)) return RoundPeak{0, 0.0};
    const int64_t from = x.from - c.lo;
    const rules::MessageCost cost =
        direct_links(c.machine.topo)
            ? rules::direct_cost(*c.cost, x.from, rules::direct_congestion(sends, slot[from].sends, slot[from + 1].sends, x.to), rules::charged_words(c.tokens, x.len), x.hops,
                                 x.combined)
            : rules::route_cost(c.machine, *c.cost, x.from, x.to, rules::charged_words(c.tokens, x.len), x.hops, x.combined, x.route, link_load, uint32_t(step));
    return RoundPeak{cost.congestion, cost.time};
  }
};

// A receive that no send matched breaks the schedule, unless its message was lost to a failure.
// Matching pairs distinct sends with distinct receives, so when a round has as many receives as
// sends and every send matched, every receive did too: this runs only in rounds whose sizing
// totals differ.
struct UnmatchedBody {
  Ctx c;
  int64_t step;
  const DevRecv* recvs;
  PPSIM_HD void operator()(int64_t r) const {
    if (!failed(c) && recvs[r].pool_off < 0 && !rules::receive_lost(c.machine, recvs[r].from, recvs[r].proc, step, c.clock.arrives(step)))
      flag_error(c, step, recvs[r].proc);
  }
};

// deliver: one processor applies the messages that arrive this step, in its receive order; lanes
// split the words of each action.
struct DeliverBody {
  Ctx c;
  int64_t step;
  bool check_sends;  // half-duplex / telephone: this step's sends must agree with the arrivals
  const DevRecv* recvs;
  const Slots* slot;  // of the step the messages were sent in
  const uint64_t* pool;
  const DevSend* sends_now;
  const Slots* slot_now;  // of this step's sends
  PPSIM_HD void operator()(int64_t i, int lane, int lanes) const {
    // No early exit on a broken rule here: another group may flag one while this group runs, its
    // lanes could read the flag apart, and every lane must reach the same barriers. Every branch
    // below depends on the processor and on what earlier kernels wrote, so it is the same for all
    // lanes; unmatched receives (after a broken rule) are skipped.
    const int64_t first = slot[i].recvs, end = slot[i + 1].recvs;
    if (first == end) return;
    if (check_sends && lane == 0 && slot_now[i + 1].sends > slot_now[i].sends) {
      int64_t r = first;
      while (r < end && recvs[r].pool_off < 0) ++r;  // the first that arrives (a lost message's does not)
      const DevSend& out = sends_now[slot_now[i].sends];
      if (r < end && rules::exchange_rule(c.ports.model, out.to, recvs[r].from) != rules::Exchange::ok) flag_error(c, step, c.lo + i);
    }
    for (int64_t r = first; r < end; ++r) {
      const DevRecv& rv = recvs[r];
      if (rv.pool_off < 0) continue;  // unmatched: flagged, the run stops at its end
      const uint64_t* src = pool + rv.pool_off;
      for (int q = 0; q < rv.nact; ++q) {
        const RecvAction act = rv.act[q];
        uint64_t* dst = c.bufs[act.buf] + i * c.words(act.buf) + act.dst_off;
        const rules::ActionSpan span = rules::action_span(act, rv.len);
        const uint64_t* in = src + act.msg_off;
        if (span.run == span.len && act.mode == RecvMode::copy) {
          for (int64_t w = lane; w < span.len; w += lanes) dst[w] = in[w];  // the common case: a plain copy
        } else {
          for (int64_t w = lane; w < span.len; w += lanes) {
            uint64_t& word = dst[span.slot_index(w)];
            word = c.tokens ? rules::received_token(act.mode, in[w], word, c.a.p) : rules::received_word(c.op, act.mode, in[w], word);
          }
        }
        group_sync(lanes);  // a later action may touch words another lane just wrote
      }
    }
  }
};

}  // namespace rounds
}  // namespace ppsim
