// The rules of a step (docs/DESIGN.md §2-§3), written once: the CPU backend (host/cpu/) and
// the device rounds (cuda/round_bodies.h, run by CUDA kernels or by the host executor) call these
// and nothing else decides what a step may do. Plain PPSIM_HD code: no containers, no exceptions;
// a broken rule is a value (Verdict), and each backend turns it into its report.
//
//   what a processor may post in a step   check_ops (slices, port limits, all-port links)
//   which step a round's messages leave    Clock
//   which receive a send meets             occurrence + matching_receive
//   how loaded a link is                   count_link / link_load_at (stamped counters)
//   what a message costs (congestion,      route_cost, direct_congestion + direct_cost
//     link classes, time)
//   what a failure does to a message       drop_lost, message_route (failure_rules.h)
//   the exchange rules of a step           exchange_rule (half-duplex, telephone)
//   what an arriving word does to a slot   action_span + received_word
//   what combining costs                   combined_words
//   what a barrier's messages carry        carries_tokens, charged_words, charged_combined_words,
//                                          received_token
#pragma once
#include <cstdint>

#include "rules/hd_atomics.h"
#include "ppsim/cost.h"
#include "ppsim/barrier_token.h"
#include "ppsim/mapping.h"
#include "ppsim/operation.h"
#include "ppsim/operators.h"
#include "ppsim/ports.h"
#include "ppsim/schedule.h"
#include "machine/topologies/routing.h"
#include "ppsim/failures.h"
#include "rules/failure_rules.h"

namespace ppsim::rules {

// ---- what one processor may post in one step ----

// The run's buffers as the rules see them: how many, and the words of each per processor.
struct Shape {
  int nbuf = 1;
  int64_t words[kMaxBuffers] = {0, 0, 0, 0};
};

// Runs of `run` words every `stride` words, the last possibly shorter (run 0: one contiguous
// slice), inside buffer buf.
PPSIM_HD inline bool slice_ok(const Shape& s, int32_t buf, int64_t off, int64_t len, int64_t run, int64_t stride) {
  if (run == 0) run = stride = len;
  return buf >= 0 && buf < s.nbuf && off >= 0 && len >= 1 && run >= 1 && stride >= run &&
         off + slice_extent(len, run, stride) <= s.words[buf];
}

// A receive action: message words [msg_off, msg_off + words) (words 0: to the end) into a slice.
PPSIM_HD PPSIM_DEVICE_INLINE bool action_ok(const Shape& s, const RecvAction& a, int64_t len) {
  if (a.msg_off < 0 || a.words < 0 || a.msg_off + a.words > len || (a.words == 0 && a.msg_off >= len)) return false;
  return slice_ok(s, a.buf, a.dst_off, a.words ? a.words : len - a.msg_off, a.run, a.stride);
}

PPSIM_HD PPSIM_DEVICE_INLINE bool send_ok(const Shape& s, const Send& x, int64_t i, int64_t p) {
  return x.to >= 0 && x.to < p && x.to != i && slice_ok(s, x.buf, x.src_off, x.len, x.run, x.stride);
}

PPSIM_HD PPSIM_DEVICE_INLINE bool recv_ok(const Shape& s, const Recv& x, int64_t i, int64_t p) {
  bool ok = x.from >= 0 && x.from < p && x.from != i && x.nact >= 1;
  for (int q = 0; ok && q < kMaxActions && q < x.nact; ++q) ok = action_ok(s, x.act[q], x.len);
  return ok;
}

// A switch agent (a processor id >= the topology's p, kSwitchAgents) talks only over a route the
// topology has between it and the other end: a switch next to it, or an accelerator that reaches it
// without passing another switch that reduces (topo::TwoLevelCluster, agent routes).
PPSIM_HD inline bool agent_route_ok(const Topology& t, int64_t a, int64_t b) { return (a < t.p && b < t.p) || route_hops(t, a, b) > 0; }

// Sends (and receives) one processor may post per step: k under k-port, any number (one per link)
// under all-port, else one.
PPSIM_HD inline int port_limit(PortModel model, int k) { return model == PortModel::kport ? k : model == PortModel::all ? kMaxOps : 1; }

// The machine messages travel on: a topology, where logical processor i sits on it, and what of
// it fails (--fail: failure_rules.h).
struct Machine {
  Topology topo;
  bool mapped = false;
  Mapping mapping;
  const Failures* failures = nullptr;  // null: none (the device reads its own copy: kept out of the bodies' context)
  PPSIM_HD int64_t node(int64_t i) const { return mapped && i < topo.p ? map_node(mapping, i) : i; }
};

// The first rule one processor's ops break, in the order the checks are made; a and b name the
// ops involved (for sends/recvs: the first two; for links: the two that share one; for
// send/recv: the invalid one).
enum class Broken : int8_t { none, overflow, sends, recvs, out_link, in_link, send, recv };
struct Verdict {
  Broken what = Broken::none;
  int a = 0, b = 0;
};

// The checks of one processor's ops of one round, against the port model and the buffers.
struct PortRules {
  Shape shape;
  PortModel model = PortModel::single;
  int limit = 1;
  int64_t p = 1;
};

// All-port: one send per outgoing link, one receive per incoming link (sends to or receives from
// no processor clash with nothing: check_ops reports them next).
template <class Ops>
PPSIM_HD PPSIM_DEVICE_INLINE Verdict check_links(const PortRules& r, const Machine& m, const Ops& ops, int64_t i) {
  constexpr int room = Ops::max_sends > Ops::max_recvs ? Ops::max_sends : Ops::max_recvs;
  int64_t end[room], f, l;
  for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n) {
    end[n] = -1 - n;
    if (ops.send[n].to >= 0 && ops.send[n].to < r.p && ops.send[n].to != i)
      route_end_links(m.topo, m.node(i), m.node(ops.send[n].to), end[n], l);
    for (int q = 0; q < n; ++q)
      if (end[q] == end[n]) return {Broken::out_link, q, n};
  }
  for (int n = 0; n < Ops::max_recvs && n < ops.nrecv; ++n) {
    end[n] = -1 - n;
    if (ops.recv[n].from >= 0 && ops.recv[n].from < r.p && ops.recv[n].from != i)
      route_end_links(m.topo, m.node(ops.recv[n].from), m.node(i), f, end[n]);
    for (int q = 0; q < n; ++q)
      if (end[q] == end[n]) return {Broken::in_link, q, n};
  }
  return {};
}

// A switch agent has a port on every link (an all-to-all crossbar): the run's port model binds the
// processors, not the switches.
// The loops are bounded by the ops' room as well as their counts, so that a compiler can keep a
// small BasicOps in registers.
// Plain: a run with no switch agents and a port model other than all-port (PlainUnit), whose
// checks need no route: the same verdicts without the walks.
template <bool Plain = false, class Ops>
PPSIM_HD PPSIM_DEVICE_INLINE Verdict check_ops(const PortRules& r, const Machine& m, const Ops& ops, int64_t i) {
  if (ops.overflow) return {Broken::overflow, 0, 0};
  const int limit = i < m.topo.p ? r.limit : kMaxOps;
  if (ops.nsend > limit) return {Broken::sends, 0, 1};
  if (ops.nrecv > limit) return {Broken::recvs, 0, 1};
  if constexpr (!Plain)
    if (r.model == PortModel::all)
      if (const Verdict v = check_links(r, m, ops, i); v.what != Broken::none) return v;
  // (agent_route_ok holds without a walk where both ends are processors, as every end of a plain
  // run's messages that send_ok and recv_ok pass is)
  for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n)
    if (!send_ok(r.shape, ops.send[n], i, r.p) || (!Plain && !agent_route_ok(m.topo, i, ops.send[n].to))) return {Broken::send, n, n};
  for (int n = 0; n < Ops::max_recvs && n < ops.nrecv; ++n)
    if (!recv_ok(r.shape, ops.recv[n], i, r.p) || (!Plain && !agent_route_ok(m.topo, ops.recv[n].from, i))) return {Broken::recv, n, n};
  return {};
}

// ---- rounds and steps ----

// A round-based algorithm sends round r in step (r - 1) * lambda + 1 and its messages arrive at the
// end of step r * lambda, before its next round; a postal-native one sends in every step it likes
// (round r is step r) and its messages arrive lambda - 1 steps later.
struct Clock {
  int rounds = 0, lambda = 1;
  bool postal_native = false;
  PPSIM_HD int64_t total_steps() const { return postal_native ? int64_t(rounds) : int64_t(rounds) * lambda; }
  PPSIM_HD int64_t step_of_round(int r) const { return postal_native ? int64_t(r) : int64_t(r - 1) * lambda + 1; }
  PPSIM_HD int round_sent_at(int64_t t) const {  // the round whose messages leave in step t, 0: none
    return postal_native ? int(t) : (t - 1) % lambda == 0 ? int((t - 1) / lambda) + 1 : 0;
  }
  PPSIM_HD int64_t arrives(int64_t sent) const { return sent + lambda - 1; }
  PPSIM_HD int64_t sent_before(int64_t t) const { return t - lambda + 1; }  // the step whose messages arrive in t
};

// ---- matching ----

// The n-th send from a to b meets the n-th receive at b from a: the number of sends before send n
// (of a sender whose sends begin at `first`) to the same destination.
template <class S>
PPSIM_HD int occurrence(const S* sends, int64_t first, int64_t n) {
  int k = 0;
  for (int64_t q = first; q < n; ++q) k += sends[q].to == sends[n].to;
  return k;
}

// The receive (among the destination's `count`) that the k-th send from `from` meets, or null.
template <class R>
PPSIM_HD R* matching_receive(R* recvs, int64_t count, int64_t from, int k) {
  for (int64_t q = 0; q < count; ++q)
    if (recvs[q].from == from && k-- == 0) return &recvs[q];
  return nullptr;
}

// ---- link load and congestion ----

// A link counter holds (step << 32) | messages on the link in that step: a counter last touched in
// an earlier step reads 0, so the counters are never cleared.
PPSIM_HD inline long long link_load_at(unsigned long long v, uint32_t stamp) {
  return uint32_t(v >> 32) == stamp ? static_cast<long long>(uint32_t(v)) : 0;
}
// A message on the link in step `stamp`. On the device the first of the step raises the counter
// to the stamp with no messages (a maximum, so any number of them may try at once), then each adds
// one: two atomics and no retries, where a compare-and-swap loop retries once for every message
// that got there first. On the host, whose threads rarely meet on a link, one compare-and-swap
// does both (the two atomics took 7 % longer: hypercube all-reduce 2^20, one thread).
PPSIM_HD inline void count_link(unsigned long long* cell, uint32_t stamp) {
  const unsigned long long start = static_cast<unsigned long long>(stamp) << 32;
#if defined(__CUDA_ARCH__)
  if (atomic_load(cell) < start) atomic_max(cell, start);
  atomic_add(cell, 1ull);
#else
  unsigned long long old = atomic_load(cell), assumed;
  do {
    assumed = old;
    old = atomic_cas(cell, assumed, assumed >= start ? assumed + 1 : start | 1ull);
  } while (old != assumed);
#endif
}

// What a message costs in its step: its congestion (the load of the busiest link of its route) and
// its time (cost.h). The per-word term is tw * words * congestion; where link classes have their own
// per-word times it is the largest tw(class(l)) * words * load(l) over the links l of the route.
struct MessageCost {
  long long congestion = 0;
  double time = 0;
};

// A message's cost before its receive is known: its congestion, its startup and its per-word term
// (the combining term, gamma times the words its receive combines, is added by message_time_of).
struct CostParts {
  long long congestion = 0;
  double startup = 0, word_time = 0;
};

// A straggler's sends (ppsim/stragglers.h): its startup and per-word terms take its factor longer.
PPSIM_HD inline CostParts straggled(const CostParams& c, int64_t from, CostParts x) {
  if (!c.stragglers.any()) return x;
  const double f = c.stragglers.factor_of(from);
  return {x.congestion, x.startup * f, x.word_time * f};
}

// The busiest link of a route, from the step's load of each link (load(id): messages on link id),
// and where the links have classes, the largest per-word term and startup over them: a walk of
// values (routing.h walk_route).
template <class Load>
struct RoutePeaks {
  Load load;
  const CostParams* c;
  const Topology* topo;
  int64_t words;
  bool classes;
  long long congestion;
  double word_time, startup;
  PPSIM_HD void operator()(int64_t id) {
    const long long l = load(id);
    if (l > congestion) congestion = l;
    if (classes) {
      const int k = link_class(*topo, id);
      const double w = c->tw_of_class(k) * double(words) * double(l);
      if (w > word_time) word_time = w;
      if (c->ts_class_set && c->ts_of_class(k) > startup) startup = c->ts_of_class(k);
    }
  }
};

// On a routed topology, from the step's load of each link (load(id), a function of values), along
// the message's route (0: the topology's own; failure_rules.h).
template <class Load>
PPSIM_HD PPSIM_DEVICE_INLINE CostParts route_parts_with(const Machine& m, const CostParams& c, int64_t from, int64_t to, int64_t words, int64_t hops,
                                                        int route, const Load& load) {
  const bool classes = c.tw_class_set != 0 || c.ts_class_set != 0;
  RoutePeaks<Load> x = walk_message_route(m, from, to, route, RoutePeaks<Load>{load, &c, &m.topo, words, classes, 0, 0.0, c.ts_class_set ? 0.0 : c.ts});
  if (c.tw_class_set == 0) x.word_time = c.tw * double(words) * double(x.congestion);
  if (hops == 0) x.startup = c.ts;  // a message to oneself crosses no link
  return straggled(c, from, {x.congestion, x.startup, x.word_time});
}
template <class Load>
PPSIM_HD PPSIM_DEVICE_INLINE MessageCost route_cost_with(const Machine& m, const CostParams& c, int64_t from, int64_t to, int64_t words, int64_t hops,
                                     int64_t combined, int route, const Load& load) {
  const CostParts x = route_parts_with(m, c, from, to, words, hops, route, load);
  return {x.congestion, message_time_of(c, x.startup, x.word_time, hops, combined)};
}

// On a routed topology, from the stamped link loads of the step.
PPSIM_HD PPSIM_DEVICE_INLINE MessageCost route_cost(const Machine& m, const CostParams& c, int64_t from, int64_t to, int64_t words, int64_t hops,
                                       int64_t combined, int route, const unsigned long long* link_load, uint32_t stamp) {
  return route_cost_with(m, c, from, to, words, hops, combined, route,
                         [link_load, stamp](int64_t id) { return link_load_at(atomic_load(&link_load[id]), stamp); });
}

// On a routed topology, in a step where every message crosses one link: a one-hop route from a
// to b is a link from a to b that no other pair's one-hop route takes, and a processor's node is
// its alone (the mappings are permutations), so the link carries exactly the sender's messages to
// the receiver, `congestion` of them, as on a direct-link topology. Equal to route_cost with the
// loads counted, without a counter or, where the links have one class, a walk of the route.
// The same for a route of `hops` links that no other pair's route of the step shares (a round of
// one XOR distance on the hypercube: pull_rules.h, sends_xor_distance).
// The same where the links have one class: no link to look at.
PPSIM_HD inline MessageCost one_class_cost(const CostParams& c, int64_t from, int64_t words, int64_t combined, long long congestion, int64_t hops) {
  const CostParts x = straggled(c, from, {congestion, c.ts, c.tw * double(words) * double(congestion)});
  return {congestion, message_time_of(c, x.startup, x.word_time, hops, combined)};
}
PPSIM_HD PPSIM_DEVICE_INLINE MessageCost one_hop_cost(const Machine& m, const CostParams& c, int64_t from, int64_t to, int64_t words, int64_t combined,
                                         long long congestion, int64_t hops = 1) {
  if (c.tw_class_set != 0 || c.ts_class_set != 0)
    return route_cost_with(m, c, from, to, words, hops, combined, 0, [congestion](int64_t) { return congestion; });
  return one_class_cost(c, from, words, combined, congestion, hops);
}

// On a direct-link topology the link a -> b carries exactly a's messages to b: a message's
// congestion is the number of its sender's sends (sends[first, end)) to its destination.
template <class S>
PPSIM_HD long long direct_congestion(const S* sends, int64_t first, int64_t end, int64_t to) {
  long long congestion = 0;
  for (int64_t q = first; q < end; ++q) congestion += sends[q].to == to;
  return congestion;
}
// The same for one processor's ops (its sends to `to`), bounded by their room: no loop in ops of
// one send, which a GPU thread keeps in registers.
template <class Ops>
PPSIM_HD long long direct_congestion(const Ops& ops, int64_t to) {
  long long congestion = 0;
  for (int n = 0; n < Ops::max_sends && n < ops.nsend; ++n) congestion += ops.send[n].to == to;
  return congestion;
}

// On a direct-link topology (one link, one class: class 0), a message from `from`.
PPSIM_HD inline CostParts direct_parts(const CostParams& c, int64_t from, long long congestion, int64_t words) {
  return straggled(c, from, {congestion, c.ts_of_class(0), c.tw_of_class(0) * double(words) * double(congestion)});
}
PPSIM_HD inline MessageCost direct_cost(const CostParams& c, int64_t from, long long congestion, int64_t words, int64_t hops,
                                        int64_t combined) {
  const CostParts x = direct_parts(c, from, congestion, words);
  return {congestion, message_time_of(c, x.startup, x.word_time, hops, combined)};
}

// ---- the exchange rules (they combine a step's sends with its arrivals) ----

// A processor that sends to send_to in the step its message from recv_from arrives: half-duplex
// forbids both, telephone allows one exchange with one partner.
enum class Exchange : int8_t { ok, half_duplex, telephone };
PPSIM_HD inline Exchange exchange_rule(PortModel model, int64_t send_to, int64_t recv_from) {
  if (model == PortModel::half_duplex) return Exchange::half_duplex;
  if (model == PortModel::telephone && send_to != recv_from) return Exchange::telephone;
  return Exchange::ok;
}
PPSIM_HD inline bool checks_exchange(PortModel model) { return model == PortModel::half_duplex || model == PortModel::telephone; }

// ---- delivery ----

// What a receive action covers: len words of the message (from msg_off) into runs of `run` words
// every `stride` words of the slot (a contiguous slice: run == stride == len).
struct ActionSpan {
  int64_t len, run, stride;
  PPSIM_HD int64_t slot_index(int64_t w) const { return run == len ? w : (w / run) * stride + w % run; }
};
PPSIM_HD PPSIM_HOT_INLINE ActionSpan action_span(const RecvAction& act, int64_t msg_len) {
  const int64_t len = act.words ? act.words : msg_len - act.msg_off;
  return act.run == 0 || act.run == len ? ActionSpan{len, len, len} : ActionSpan{len, act.run, act.stride};
}

// Words a receive combines into its slots (its actions that are not copies): the gamma term of its
// message's time (CostParams::gamma).
PPSIM_HD PPSIM_HOT_INLINE int64_t combined_words(const RecvAction* act, int nact, int64_t msg_len) {
  int64_t w = 0;
  for (int q = 0; q < kMaxActions && q < nact; ++q)
    if (act[q].mode != RecvMode::copy) w += action_span(act[q], msg_len).len;
  return w;
}

// The slot word after a word arrives: a copy, or the operator with the received word on the left
// (recv_op_slot) or on the right (slot_op_recv). M fixed at compile time for the CPU's loops.
template <RecvMode M, class Combine>
PPSIM_HD PPSIM_HOT_INLINE uint64_t received_word(Combine combine, uint64_t in, uint64_t slot) {
  if constexpr (M == RecvMode::copy) return in;
  else if constexpr (M == RecvMode::recv_op_slot) return combine(in, slot);
  else return combine(slot, in);
}
// The operator chosen at run time, as received_word's Combine (a lambda there stayed a call on the host).
struct DynCombine {
  OperatorKind k;
  PPSIM_HD PPSIM_HOT_INLINE uint64_t operator()(uint64_t x, uint64_t y) const { return combine_dyn(k, x, y); }
};
PPSIM_HD PPSIM_HOT_INLINE uint64_t received_word(OperatorKind k, RecvMode mode, uint64_t in, uint64_t slot) {
  const DynCombine f{k};
  switch (mode) {
    case RecvMode::copy: return received_word<RecvMode::copy>(f, in, slot);
    case RecvMode::recv_op_slot: return received_word<RecvMode::recv_op_slot>(f, in, slot);
    case RecvMode::slot_op_recv: break;
  }
  return received_word<RecvMode::slot_op_recv>(f, in, slot);
}

// ---- a barrier's messages ----

// A barrier moves no data: each of its messages carries one word, its sender's knowledge token
// (ppsim/barrier_token.h), which only the verification reads. The token is the simulator's, not
// the algorithm's: its messages are charged no words, in their time and in the run's words alike,
// and merging tokens is no combining of data (no gamma).
PPSIM_HD inline bool carries_tokens(Operation op) { return op == Operation::barrier; }

// The words a message of len words is charged (the t_w term and the words figures).
PPSIM_HD inline int64_t charged_words(bool tokens, int64_t len) { return tokens ? 0 : len; }

// The words a receive is charged for combining (the gamma term).
PPSIM_HD PPSIM_HOT_INLINE int64_t charged_combined_words(bool tokens, const RecvAction* act, int nact, int64_t msg_len) {
  return tokens ? 0 : combined_words(act, nact, msg_len);
}

// The token a slot holds after a token arrives: a copy, or (either combining mode, whatever the
// run's operator) the union of the two; a processor never learns more than the sender knew.
PPSIM_HD inline uint64_t received_token(RecvMode mode, uint64_t in, uint64_t slot, int64_t p) {
  return mode == RecvMode::copy ? in : token_merge(slot, in, p);
}

}  // namespace ppsim::rules
