// The device rounds' pull step (docs/DESIGN.md §2, "Two ways to run a step"): what one thread, or
// one lane group, does for one processor in a round of the pull step, and what the round tallies.
// Plain PPSIM_HD function objects, as round_bodies.h's: the device kernels (backend.cu) and the
// host executor (host_rounds.cpp) run the same ones; every rule they apply is step_rules.h's or
// pull_rules.h's.
#pragma once
#include <cstdint>

#include "round_bodies.h"
#include "rules/pull_rules.h"
#include "rules/pull_units.h"

namespace ppsim {
namespace rounds {

// Which receives of processor i's ops (sent in `step`) will arrive: those no failure loses.
template <class Ops>
PPSIM_HD void arriving_receives(const Ctx& c, const Ops& ops, int64_t i, int64_t step, bool* arriving) {
  for (int n = 0; n < Ops::max_recvs && n < ops.nrecv; ++n)
    arriving[n] = !c.machine.failures || !rules::receive_lost(c.machine, ops.recv[n].from, i, step, c.clock.arrives(step));
}

// Processor i's ops of the round from source Src (rules/pull_units.h), checked, and what the
// failures leave of its sends (route[n]: the route of its n-th send). A unit read directly runs
// only where there are no failures (pull_step).
template <class Src>
PPSIM_HD PPSIM_DEVICE_INLINE bool pulled_ops(const Ctx& c, int64_t i, int round, int64_t step, typename Src::Ops& ops, int8_t* route, rules::Losses& lost) {
  if constexpr (Src::any) {
    return valid_ops(c, i, round, step, ops, route, lost);
  } else {
    rules::read_ops<Src>(c.algo, nullptr, c.a, i, round, ops);  // an overflow is check_ops's first rule
    for (int n = 0; n < Src::Ops::max_sends; ++n) route[n] = 0;
    return ops_valid<Src::plain>(c, ops, i);
  }
}

// What the pull step reads and writes besides the buffers: which generation of each buffer holds
// a processor's words (a parity bit per buffer, in two arrays of p bytes: the round's and the
// next's), the buffers' second generations, and the round's receives that met their send and
// peaks (the most loaded link, and the bits of the longest time: a non-negative double's bits
// order as its values do, so an integer maximum is exact and order-free).
struct PullState {
  bool generations;           // the buffers have second generations (else a processor that needs one is tallied)
  uint8_t* parity;            // [2 * processors]: round r > 1 reads parity + (r & 1) * processors; every round writes the other
  uint64_t* second[kMaxBuffers];
  // [kTallyWords * rounds]: round r's tally (PullTally's words, in order) at kTallyWords (r - 1): one
  // read at the end of the run.
  unsigned long long* round_out;
  PPSIM_HD const uint8_t* parity_of(int round, int64_t procs) const { return parity + (round & 1) * procs; }
  PPSIM_HD uint8_t* next_parity_of(int round, int64_t procs) const { return parity + ((round + 1) & 1) * procs; }
  // (second[] read at constant indices: a body made in a kernel holds its state in registers,
  // where an index at run time would put the whole state in local memory)
  PPSIM_HD uint64_t* generation(const Ctx& c, int b, int g) const {
    if (!g) return c.bufs[b];
    uint64_t* out = second[0];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 1; q < kMaxBuffers; ++q)
      if (b == q) out = second[q];
    return out;
  }
};

// What a pull pass adds to its round's figures: the receives that met their send, and the largest
// load and time (as bits) of their messages. Executors add them up where they run (a thread over
// its processors, then its warp) and add each sum to the round's words once (commit_tally): one
// atomic per warp, not per message on three words every processor shares.
// The pull step needs no sizing pass: the round's sends, words and link-hops are tallied here
// too, and so are the processors that could not take the pull step as the run was set up (defers:
// it would have to put off its writes; regenerates: it would write a buffer's second generation,
// which the run did not take): the host then runs the configuration again as they need.
// On a routed topology `multi` counts the matched messages that cross other than one link: a
// round whose link loads were guessed (PullBodyOf::guess) and that has a message breaking the
// guess (rules::keeps_guess) is costed again
// where it has any (rounds.h).
struct PullTally {
  unsigned long long matched = 0, max_load = 0, time_bits = 0, sends = 0, words = 0, hops = 0, defers = 0, regenerates = 0, multi = 0;
  PPSIM_HD void add(const PullTally& o) {
    matched += o.matched;
    max_load = max_load > o.max_load ? max_load : o.max_load;
    time_bits = time_bits > o.time_bits ? time_bits : o.time_bits;
    sends += o.sends;
    words += o.words;
    hops += o.hops;
    defers += o.defers;
    regenerates += o.regenerates;
    multi += o.multi;
  }
};
inline constexpr int kTallyWords = 9;  // a round's tally in the executor's memory
PPSIM_HD inline void commit_tally(unsigned long long* out, const PullTally& t) {
  if (t.matched) atomic_add(&out[0], t.matched);
  if (t.max_load) atomic_max(&out[1], t.max_load);
  if (t.time_bits) atomic_max(&out[2], t.time_bits);
  if (t.sends) atomic_add(&out[3], t.sends);
  if (t.words) atomic_add(&out[4], t.words);
  if (t.hops) atomic_add(&out[5], t.hops);
  if (t.defers) atomic_add(&out[6], t.defers);
  if (t.regenerates) atomic_add(&out[7], t.regenerates);
  if (t.multi) atomic_add(&out[8], t.multi);
}

// Routed topologies: every message of the round loads the links of its route before any is
// costed (the pull pass that follows checks every rule; here only what the walk needs).
// C: how the body holds the run's context (PullBodyOf).
template <class Src, class C = Ctx>
struct CountLinksBodyOf {
  C c;
  int round;
  int64_t step;
  unsigned long long* link_load;
  int64_t restamp = 0;  // the counters' stamp where not the step's (a round costed again: rounds.h)
  PPSIM_HD PPSIM_DEVICE_INLINE void operator()(int64_t x) const {
    using Ops = typename Src::Ops;
    const int64_t i = c.lo + x;
    Ops ops;
    if constexpr (!Src::any) ops = Ops{};  // (a unit's few words: GCC cannot see that its ops() writes every send it counts)
    int8_t route[Ops::max_sends];
    bool ok = rules::read_ops<Src>(c.algo, c.ops_override, c.a, i, round, ops);
    for (int n = 0; ok && n < Ops::max_sends && n < ops.nsend; ++n)
      ok = ops.send[n].to >= 0 && ops.send[n].to < c.ports.p && ops.send[n].to != i && rules::agent_route_ok(c.machine.topo, i, ops.send[n].to);
    if (!ok) {
      if (Src::any || !ops.overflow) flag_error(c, step, i);  // (a unit's overflow: its pull pass tallies it)
      return;
    }
    if constexpr (Src::any) {
      if (c.machine.failures) rules::drop_lost(c.machine, ops, i, step, c.clock.arrives(step), route);
      else
        for (int n = 0; n < ops.nsend; ++n) route[n] = 0;
    } else {
      for (int n = 0; n < Ops::max_sends; ++n) route[n] = 0;
    }
    const uint32_t stamp = uint32_t(restamp ? restamp : step);
    for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n)
      rules::walk_message_route(c.machine, i, ops.send[n].to, route[n], [loads = link_load, stamp](int64_t id) { rules::count_link(&loads[id], stamp); });
  }
};
using CountLinksBody = CountLinksBodyOf<rules::AnyUnit>;

// The pull step of one processor: its ops once; for each receive, in receive order, its sender's
// ops, the send that meets it, the message's cost, and its words applied from the sender's buffer
// as the step began (lanes split the words of each action). Every branch depends only on the
// processor's and its senders' ops, so all lanes of a group take the same ones and meet at the
// same barriers. A rule broken is flagged: the host reruns the configuration on the CPU backend.
// C is how the body holds the run's context: a copy (a kernel's parameter, where the copy stays),
// or a reference to a kernel's parameter where the body is made in the kernel (kernels.h
// step_grid_run): a copy there would be the thread's, in local memory, since its buffers are
// indexed at run time.
template <class Src, class C = Ctx>
struct PullBodyOf {
  using Ops = typename Src::Ops;
  C c;
  int round;
  int64_t step;
  bool check_exchange;  // half-duplex / telephone at lambda = 1: a step's sends against its arrivals
  PullState st;
  const unsigned long long* link_load;
  unsigned long long* lost;  // with failures: the round's [dropped, rerouted] messages (else null)
  // Routed topologies: the round's link loads were not counted, on the guess (rules::RoundGuess)
  // that every message crosses one link, or one XOR distance on the hypercube (rules::one_hop_cost);
  // `multi` tallies the messages that prove it wrong.
  int64_t guess = rules::kCountLoads;
  // Only the costs of a round already run (rounds.h, a round costed again): no word moves, and
  // the link counters carry stamp `restamp`.
  bool cost_only = false;
  int64_t restamp = 0;

  // A listed unit's pass is inlined into the kernel that runs it (pull_of), which holds no
  // register cap: called, it would be a device function held to 64 registers, and spill.
  static constexpr bool kInlined = !Src::any;
  static constexpr bool kPlain = Src::plain;

  PPSIM_HD PullTally operator()(int64_t x, int lane, int lanes) const { return pull(x, lane, lanes); }

  // Returns what this processor adds to the round's figures (lane 0's; the other lanes' are empty).
  PPSIM_HD PPSIM_DEVICE_INLINE PullTally pull(int64_t x, int lane, int lanes) const {
    PullTally tally{};
    const int64_t i = c.lo + x, procs = c.hi - c.lo;
    Ops own;
    int8_t own_route[Ops::max_sends];
    rules::Losses losses;
    if (!pulled_ops<Src>(c, i, round, step, own, own_route, losses)) {
      if (Src::any || !own.overflow) {
        if (lane == 0) flag_error(c, step, i);
      } else {
        tally.defers = lane == 0;  // more ops than the unit declared: the run goes again on the records
      }
      return tally;
    }
    if (lane == 0 && losses.dropped > 0) atomic_add(&lost[0], static_cast<unsigned long long>(losses.dropped));
    if (lane == 0 && losses.rerouted > 0) atomic_add(&lost[1], static_cast<unsigned long long>(losses.rerouted));
    const uint8_t* parity_now = st.parity_of(round, procs);
    const bool parities = st.generations && round > 1;  // before round 2 every word is in the first generation
    const uint8_t now = parities ? parity_now[x] : 0;
    bool arriving[Ops::max_recvs];
    if constexpr (Src::any) {
      arriving_receives(c, own, i, step, arriving);
    } else {  // (a unit read directly runs only where no failure applies: every receive arrives)
      for (int n = 0; n < Ops::max_recvs; ++n) arriving[n] = true;
    }
    const rules::StepWrites writes = rules::step_writes(c.ports.shape, own, arriving);
    if (lane == 0 && !cost_only) st.next_parity_of(round, procs)[x] = uint8_t(now ^ writes.new_generation);
    if (lane == 0) tally.sends = static_cast<unsigned long long>(own.nsend);
    if (!cost_only && (writes.defer || (writes.new_generation && !st.generations))) {  // the run goes again, as it needs (PullTally)
      tally.defers = lane == 0 && writes.defer;
      tally.regenerates = lane == 0 && !writes.defer;
      return tally;
    }
    uint8_t begun = 0;  // buffers whose new generation this processor has begun to write
    Ops peer;
    int8_t peer_route[Ops::max_sends];
    int64_t peer_id = -1;
    bool exchange_checked = !check_exchange || own.nsend == 0;
    for (int n = 0; n < Ops::max_recvs && n < own.nrecv; ++n) {
      const Recv& rv = own.recv[n];
      const int64_t f = rv.from;
      if (f != peer_id) {
        peer_id = f;
        rules::Losses ignored;
        if (!pulled_ops<Src>(c, f, round, step, peer, peer_route, ignored)) return tally;  // f flags it
      }
      const int s = rules::find_send_to(peer, i, rules::earlier_receives_from(own, n));
      if (s < 0 && !arriving[n]) continue;  // lost to a failure
      if (s < 0 || !arriving[n] || rules::send_at(peer, s).len != rv.len) {
        if (lane == 0) flag_error(c, step, i);
        return tally;
      }
      const Send& msg = rules::send_at(peer, s);
      if (!exchange_checked) {
        exchange_checked = true;
        if (rules::exchange_rule(c.ports.model, own.send[0].to, f) != rules::Exchange::ok) {
          if (lane == 0) flag_error(c, step, i);
          return tally;
        }
      }
      if (lane == 0) tally.add(cost(peer, msg, rv, f, i, Src::any ? peer_route[s] : 0));
      if (cost_only) continue;
      const uint8_t g = parities ? (parity_now[f - c.lo] >> msg.buf) & 1 : 0;
      apply(rv, msg, st.generation(c, msg.buf, g) + (f - c.lo) * c.words(msg.buf) + msg.src_off, x, now, writes.new_generation, begun, lane,
            lanes);
    }
    return tally;
  }

  // Receive rv of processor x applied from its message msg, whose words the sender holds at src
  // (as the step began): each action in place, or in the new generation of a buffer x rewrites
  // (the first action there reads the generation `now` says is current); lanes split the words.
  PPSIM_HD PPSIM_DEVICE_INLINE void apply(const Recv& rv, const Send& msg, const uint64_t* src, int64_t x, uint8_t now, uint8_t new_generation, uint8_t& begun,
                      int lane, int lanes) const {
    const int64_t run = msg.run == 0 || msg.run >= msg.len ? msg.len : msg.run, stride = run == msg.len ? msg.len : msg.stride;
    // (unrolled, so that the receive's actions stay in registers: indexed at run time, the
    // receive went to local memory)
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 0; q < kMaxActions && q < rv.nact; ++q) {
      const RecvAction& act = rv.act[q];
      const int b = act.buf;
      const uint8_t bit = uint8_t(1u << b);
      const int gb = (now >> b) & 1;
      const rules::ActionSpan span = rules::action_span(act, rv.len);
      const int64_t at = x * c.words(b) + act.dst_off;
      const bool fresh = (new_generation & bit) && !(begun & bit);  // the action that rewrites all of b
      uint64_t* dst = st.generation(c, b, (new_generation & bit) ? gb ^ 1 : gb) + at;
      const uint64_t* old = fresh ? st.generation(c, b, gb) + at : dst;
      begun |= (new_generation & bit);
      if (!c.tokens && run == msg.len && span.run == span.len) {  // both ends contiguous: the common case
        apply_run(act.mode, src + act.msg_off, old, dst, span.len, lane, lanes);
        group_sync(lanes);
        continue;
      }
      for (int64_t w = lane; w < span.len; w += lanes) {
        const int64_t mw = act.msg_off + w;  // the message's word, where the sender holds it
        const uint64_t in = run == msg.len ? src[mw] : src[(mw / run) * stride + mw % run];
        const int64_t k = span.slot_index(w);
        dst[k] = c.tokens ? rules::received_token(act.mode, in, old[k], c.a.p) : rules::received_word(c.op, act.mode, in, old[k]);
      }
      group_sync(lanes);  // a later action may read words another lane just wrote
    }
  }

  // A contiguous action: slot w of dst from word w of in and slot w of old (which may be dst), for
  // w = lane, lane + lanes, ... below len. Every load of four such words is issued before any of
  // their stores: stored one by one, the next word's loads could not pass the store before them
  // (the compiler cannot know the buffers apart), and a lane waited on memory twice a word (H100,
  // Nsight Compute, all-reduce 2^20 at m = 256: 44 % of the warp kernel's samples). Lanes already
  // apply an action's words in no set order, so no word of `in` is one this step writes.
  PPSIM_HD PPSIM_DEVICE_INLINE void apply_run(RecvMode mode, const uint64_t* in, const uint64_t* old, uint64_t* dst, int64_t len, int lane,
                                              int lanes) const {
    switch (mode) {
      case RecvMode::copy: apply_run<RecvMode::copy>(in, old, dst, len, lane, lanes); return;
      case RecvMode::recv_op_slot: apply_run<RecvMode::recv_op_slot>(in, old, dst, len, lane, lanes); return;
      case RecvMode::slot_op_recv: break;
    }
    apply_run<RecvMode::slot_op_recv>(in, old, dst, len, lane, lanes);
  }
  template <RecvMode M>
  PPSIM_HD PPSIM_DEVICE_INLINE void apply_run(const uint64_t* in, const uint64_t* old, uint64_t* dst, int64_t len, int lane, int lanes) const {
    constexpr int kAhead = 4;
    const OperatorKind op = c.op;
    const auto f = [op](uint64_t x, uint64_t y) { return combine_dyn(op, x, y); };
    int64_t w = lane;
    for (; w + (kAhead - 1) * int64_t(lanes) < len; w += kAhead * int64_t(lanes)) {
      uint64_t a[kAhead], b[kAhead];
      for (int k = 0; k < kAhead; ++k) a[k] = in[w + k * lanes];
      if constexpr (M != RecvMode::copy)
        for (int k = 0; k < kAhead; ++k) b[k] = old[w + k * lanes];
      for (int k = 0; k < kAhead; ++k) dst[w + k * lanes] = M == RecvMode::copy ? a[k] : rules::received_word<M>(f, a[k], b[k]);
    }
    for (; w < len; w += lanes) dst[w] = rules::received_word<M>(f, in[w], old[w]);
  }

  // The message from f meeting receive rv: one matched receive, its congestion and time (the
  // figures are the sizing pass's).
  // A plain run (rules::PlainUnit) asks its questions inline: the hops of its few kinds, the cost
  // of one link class, processor i at node i; its rounds all guess (or its links are direct).
  PPSIM_HD PPSIM_DEVICE_INLINE PullTally cost(const Ops& peer, const Send& msg, const Recv& rv, int64_t f, int64_t i, int route) const {
    const int64_t words = rules::charged_words(c.tokens, msg.len);
    const int64_t combined = rules::charged_combined_words(c.tokens, rv.act, rv.nact, rv.len);
    const bool direct = direct_links(c.machine.topo);
    if constexpr (Src::plain) {
      const int64_t hops = route_hops_plain(c.machine.topo, f, i);
      const long long congestion = rules::direct_congestion(peer, i);  // its sender's sends to i
      const rules::MessageCost m =
          direct ? rules::direct_cost(*c.cost, f, congestion, words, hops, combined) : rules::one_class_cost(*c.cost, f, words, combined, congestion, hops);
      return tally_of(m, words, hops, !direct && !rules::keeps_guess_unmapped(guess, f, i, hops));
    }
    const int64_t hops = rules::message_hops(c.machine, f, i, route);
    rules::MessageCost m;
    if (direct || guess != rules::kCountLoads) {
      const long long congestion = rules::direct_congestion(peer, i);  // its sender's sends to i
      m = direct ? rules::direct_cost(*c.cost, f, congestion, words, hops, combined)
                 : rules::one_hop_cost(c.machine, *c.cost, f, i, words, combined, congestion, hops);
    } else {
      m = rules::route_cost(c.machine, *c.cost, f, i, words, hops, combined, route, link_load, uint32_t(restamp ? restamp : step));
    }
    return tally_of(m, words, hops, !direct && guess != rules::kCountLoads && !rules::keeps_guess(c.machine, guess, f, i, hops));
  }
  PPSIM_HD static PullTally tally_of(const rules::MessageCost& m, int64_t words, int64_t hops, bool multi) {
    PullTally t;
    t.matched = 1;
    t.max_load = static_cast<unsigned long long>(m.congestion);
    t.time_bits = double_bits(m.time);
    t.words = static_cast<unsigned long long>(words);
    t.hops = static_cast<unsigned long long>(hops);
    t.multi = multi;
    return t;
  }
  PPSIM_HD static unsigned long long double_bits(double v) {
#if defined(__CUDA_ARCH__)
    return static_cast<unsigned long long>(__double_as_longlong(v));
#else
    unsigned long long bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    return bits;
#endif
  }
};
using PullBody = PullBodyOf<rules::AnyUnit>;

// How a kernel calls a pull body: a listed unit's pass inlined, the dispatch's called.
template <class Body>
PPSIM_HD PPSIM_DEVICE_INLINE PullTally pull_of(const Body& body, int64_t x, int lane, int lanes) {
  if constexpr (Body::kInlined) {
    return body.pull(x, lane, lanes);
  } else {
    return body(x, lane, lanes);
  }
}

// After the last step every processor's words go back to the first generation of each buffer,
// one word per index (x: buffer b's word x, of processor x / words(b)).
struct SettleBody {
  Ctx c;
  int32_t b;
  const uint8_t* parity;  // as the last round left it
  const uint64_t* second;
  PPSIM_HD void operator()(int64_t x) const {
    if ((parity[x / c.words(b)] >> b) & 1) c.bufs[b][x] = second[x];
  }
};

}  // namespace rounds
}  // namespace ppsim
