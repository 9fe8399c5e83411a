// The pull step's rules (docs/DESIGN.md §2, "Two ways to run a step"): a receiver finds what it
// receives by asking its sender for the sender's ops of the round, since ops are a pure function
// of (processor, round), and reads the words where the sender keeps them: no record written by
// anyone, no copy of the payload. What makes that safe is decided from one processor's own ops:
//
//   which send a receive meets      find_send_to: the k-th receive from f meets the k-th send of f
//                                   to it (matching_receive's rule, seen from the other end)
//   whether a sender's words stay   a processor writes a buffer it sends from only in a new
//     as the step began               generation of that buffer (when its first arriving action on
//                                   it rewrites every word: recursive doubling, scans), or in
//                                   place where no word it writes is one it sends; else it defers
//                                   its writes until every reader has read (StepWrites)
//
// Plain PPSIM_HD code, as step_rules.h: the CPU backend's pull step (host/cpu/pull_run.cpp) runs
// it, and any executor that runs processors in parallel can.
#pragma once
#include <cstdint>

#include "rules/step_rules.h"

namespace ppsim::rules {

// The host's sample of a run's processors, to plan its rounds before they run (both backends):
// kRoundSample of them, or all where there are fewer, spread evenly over [lo, lo + n); the k-th.
inline constexpr int64_t kRoundSample = 64;
inline int64_t round_sample_size(int64_t n) { return n < kRoundSample ? n : kRoundSample; }
inline int64_t sampled_processor(int64_t lo, int64_t n, int64_t sample, int64_t k) { return lo + (sample > 1 ? k * (n - 1) / (sample - 1) : 0); }

// Whether every send of processor i's ops to another of the p processors crosses one link: the
// messages one_hop_cost costs without counting link loads (a sampled round guesses it from these).
template <class Ops>
bool sends_cross_one_link(const Machine& m, int64_t p, int64_t i, const Ops& ops) {
  for (int n = 0; n < ops.nsend; ++n) {
    const int64_t to = ops.send[n].to;
    if (to >= 0 && to < p && to != i && message_hops(m, i, to, 0) != 1) return false;
  }
  return true;
}

// On the hypercube, the XOR distance k that every send of processor i's ops to another processor
// crosses (node(to) = node(i) XOR k), kNoSends where it sends to none, 0 where its sends cross
// several distances (or the topology is another). The routes of a round whose messages all cross
// one distance k share no link: a route takes the dimensions in one order, so the link of
// dimension j out of node x lies only on the route from x XOR (k's dimensions taken before j).
// A link then carries one sender's messages to one receiver, as in a round of one-hop messages,
// and the round's loads need no counting (one_hop_cost with the route's hops).
inline constexpr int64_t kNoSends = -1;
template <class Machine, class Ops>
PPSIM_HD int64_t sends_xor_distance(const Machine& m, int64_t p, int64_t i, const Ops& ops) {
  if (m.topo.kind != TopologyKind::hypercube) return 0;
  int64_t k = kNoSends;
  for (int n = 0; n < ops.nsend; ++n) {
    const int64_t to = ops.send[n].to;
    if (to < 0 || to >= p || to == i) continue;
    const int64_t d = m.node(i) ^ m.node(to);
    if (k != kNoSends && d != k) return 0;
    k = d;
  }
  return k;
}
// A round's guess from its sampled processors' distances: the one they share, else 0.
PPSIM_HD inline int64_t merge_xor_distance(int64_t round, int64_t processor) {
  if (processor == kNoSends) return round;
  if (round == kNoSends) return processor;
  return round == processor ? round : 0;
}

// A routed round's guess on the pull step (both backends): its link loads counted (kCountLoads),
// or taken to be its senders' messages to each receiver, every message crossing one link (kOneHop)
// or, on the hypercube, one XOR distance k >= 1 (the guess is k). Planned from a sample of the
// round's processors (RoundGuess) and checked by every message (keeps_guess): a round with a
// message that breaks it is costed again with its loads counted.
inline constexpr int64_t kCountLoads = 0, kOneHop = -1;
struct RoundGuess {
  bool one_hop = true;
  int64_t distance = kNoSends;
  template <class Machine, class Ops>
  void add(const Machine& m, int64_t p, int64_t i, const Ops& ops) {
    one_hop = one_hop && sends_cross_one_link(m, p, i, ops);
    if (distance != 0) distance = merge_xor_distance(distance, sends_xor_distance(m, p, i, ops));
  }
  int64_t guess() const { return one_hop ? kOneHop : distance > 0 ? distance : kCountLoads; }
};
template <class Machine>
PPSIM_HD bool keeps_guess(const Machine& m, int64_t guess, int64_t f, int64_t i, int64_t hops) {
  return guess == kOneHop ? hops == 1 : (m.node(f) ^ m.node(i)) == guess;
}
// The same on a machine without a mapping (processor i is node i).
PPSIM_HD inline bool keeps_guess_unmapped(int64_t guess, int64_t f, int64_t i, int64_t hops) {
  return guess == kOneHop ? hops == 1 : (f ^ i) == guess;
}

// The index of the k-th send of `ops` to processor `to` (its sends after the failures), or -1.
// (Every loop over ops here is bounded by their room too: check_ops says why.)
template <class Ops>
PPSIM_HD int find_send_to(const Ops& ops, int64_t to, int k) {
  for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n)
    if (ops.send[n].to == to && k-- == 0) return n;
  return -1;
}

// Send s of `ops` (s from find_send_to, not -1); in ops with room for one send, the first, so that
// no array is indexed at run time and a GPU thread keeps the ops in registers.
template <class Ops>
PPSIM_HD const Send& send_at(const Ops& ops, int s) {
  if constexpr (Ops::max_sends == 1) return ops.send[0];
  else return ops.send[s];
}

// Receives of `ops` before receive n from the same processor: receive n meets that many sends of
// its sender to this processor first.
template <class Ops>
PPSIM_HD int earlier_receives_from(const Ops& ops, int n) {
  if constexpr (Ops::max_recvs == 1) return 0;
  int k = 0;
  for (int q = 0; q < Ops::max_recvs && q < n; ++q) k += ops.recv[q].from == ops.recv[n].from;
  return k;
}

// Whether two slices of one buffer may share a word: [off, off + extent) against the other's
// (strided slices are taken as their whole extent, which can only say yes too often).
PPSIM_HD inline bool extents_meet(int64_t off_a, int64_t extent_a, int64_t off_b, int64_t extent_b) {
  return off_a < off_b + extent_b && off_b < off_a + extent_a;
}

// Whether action `act` of a receive of msg_len words writes every word of a buffer of `words`
// words, each once, in order.
PPSIM_HD PPSIM_HOT_INLINE bool rewrites_buffer(const RecvAction& act, int64_t msg_len, int64_t words) {
  const ActionSpan span = action_span(act, msg_len);
  return act.dst_off == 0 && span.len == words && (span.run == span.len || span.run == span.stride);
}

// How one processor writes its buffers in one step, from its own ops (after the failures) and the
// receives that will arrive (arrives[n]: receive n's message arrives, receive_lost says otherwise):
//   new_generation  bit b: the first arriving action on buffer b rewrites all of it, and the
//                   processor sends from b: it writes b's other generation, and its senders'
//                   readers read the one the step began with;
//   defer           some buffer it sends from is written in place where a send reads: it keeps
//                   what arrives aside and writes it only once every reader has read.
struct StepWrites {
  uint8_t new_generation = 0;
  bool defer = false;
};
template <class Ops>
PPSIM_HD PPSIM_DEVICE_INLINE StepWrites step_writes(const Shape& shape, const Ops& ops, const bool* arrives) {
  StepWrites w;
  if (ops.nsend == 1 && ops.nrecv == 1 && ops.recv[0].nact == 1) {  // the common case, as the loops below decide it
    const Send& x = ops.send[0];
    const Recv& r = ops.recv[0];
    const RecvAction& act = r.act[0];
    if (!arrives[0] || act.buf != x.buf) return w;
    if (rewrites_buffer(act, r.len, shape.words[act.buf])) {
      w.new_generation = uint8_t(1u << act.buf);
      return w;
    }
    const ActionSpan span = action_span(act, r.len);
    w.defer = extents_meet(act.dst_off, slice_extent(span.len, span.run, span.stride), x.src_off, slice_extent(x.len, x.run, x.stride));
    return w;
  }
  uint8_t sent = 0;
  for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n) sent |= uint8_t(1u << ops.send[n].buf);
  if (sent == 0) return w;  // nothing it holds is read this step
  uint8_t decided = 0;
  for (int n = 0; n < Ops::max_recvs && n < ops.nrecv; ++n) {
    if (!arrives[n]) continue;
    const Recv& r = ops.recv[n];
    for (int q = 0; q < kMaxActions && q < r.nact; ++q) {
      const RecvAction& act = r.act[q];
      const uint8_t bit = uint8_t(1u << act.buf);
      if (!(sent & bit)) continue;
      if (!(decided & bit)) {
        decided |= bit;
        if (rewrites_buffer(act, r.len, shape.words[act.buf])) {
          w.new_generation |= bit;
          continue;
        }
      }
      if (w.new_generation & bit) continue;  // later actions write the new generation too
      const ActionSpan span = action_span(act, r.len);
      const int64_t extent = slice_extent(span.len, span.run, span.stride);
      for (int s = 0; s < Ops::max_sends && s < ops.nsend && !w.defer; ++s) {
        const Send& x = ops.send[s];
        if (x.buf == act.buf && extents_meet(act.dst_off, extent, x.src_off, slice_extent(x.len, x.run, x.stride)))
          w.defer = true;
      }
      if (w.defer) return StepWrites{0, true};
    }
  }
  return w;
}

}  // namespace ppsim::rules
