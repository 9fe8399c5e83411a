// What a failure does to a message (ppsim/failures.h), written once: the CPU backend (post_step.cpp,
// match_step.cpp) and the device rounds (cuda/round_bodies.h) both filter a processor's sends
// through drop_lost, excuse the receives that find no send through receive_lost, and walk a
// message's links with for_each_message_link, so both drop, reroute and cost alike.
//
// A message sent in step t arrives in step t' = t + lambda - 1. It is lost when its sender is down
// in t, its receiver in t', or (without reroute) a link of its route in t'. With reroute it takes
// the first of the topology's other routes (alt_route) whose links are all up in t', and is lost
// only when none is. The verdict depends on (sender, receiver, t) alone, and all the messages
// from a to b of a step share it: the sender drops its lost sends, the receives of a lost message
// stay posted and find no send (the n-th send from a to b still meets the n-th receive at b from
// a), and the same verdict, asked only of those, says that they are no schedule error.
#pragma once
#include <cstdint>

#include "machine/topologies/routing.h"
#include "ppsim/failures.h"
#include "ppsim/schedule.h"

namespace ppsim::rules {

// A message's route: 0 the topology's own, n >= 1 its n-th other route, kLost none (dropped).
inline constexpr int8_t kLost = -1;

// On the device, the code that only runs with failures is kept out of line (PPSIM_FAILURE_PATH):
// inlined, its registers counted in every kernel that may call it, runs without failures too, and
// the sizing scan spilled (bench/RESULTS.md, "Measured again on an NVIDIA H200"). On the host it is
// inlined, as the CPU backend's hot loops want.
#if defined(__CUDA_ARCH__)
#define PPSIM_FAILURE_PATH __noinline__
#else
#define PPSIM_FAILURE_PATH __attribute__((noinline)) inline
#endif

// Calls visit(link id) for every directed link of other route `route` (>= 1) from node s to node d.
template <class Visit>
PPSIM_HD PPSIM_FAILURE_PATH void for_each_alt_link(const Topology& t, int64_t s, int64_t d, int route, Visit& visit) {
  with_topology_unit(t.kind, [&](auto u) { decltype(u)::alt_route(t, s, d, route, visit); });
}

// Calls visit(link id) for every directed link of route `route` from node s to node d.
template <class Visit>
PPSIM_HD void for_each_variant_link(const Topology& t, int64_t s, int64_t d, int route, Visit&& visit) {
  if (route == 0) for_each_route_link(t, s, d, visit);
  else for_each_alt_link(t, s, d, route, visit);
}

PPSIM_HD inline int alt_route_count(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::alt_routes(t); });
}

// Whether route `route` from s to d exists and every link of it is up in step t.
PPSIM_HD inline bool route_up(const Failures& f, const Topology& t, int64_t s, int64_t d, int route, int64_t t_step) {
  bool down = false;
  auto check = [&](int64_t id) { down = down || f.link_down(id, t_step); };
  if (route == 0) {
    for_each_route_link(t, s, d, check);
    return !down;
  }
  const bool exists = with_topology_unit(t.kind, [&](auto u) { return decltype(u)::alt_route(t, s, d, route, check); });
  return exists && !down;
}

// Whether the route from node s to node d can cross link l. Where every route is a shortest path
// between processors (ring, linear array, mesh, torus, hypercube, fully connected), one that
// crosses a -> b has hops(s, a) + 1 + hops(b, d) = hops(s, d), since its parts are shortest paths
// too: a route without that (in either direction) cannot cross l, and needs no walk.
PPSIM_HD inline bool may_cross(const Topology& t, const FailedLink& l, int64_t s, int64_t d) {
  const TopologyKind k = t.kind;
  if (l.a >= t.p || l.b >= t.p) return true;  // a switch's link: walk the route
  if (k == TopologyKind::hypercube && is_pow2(l.a ^ l.b)) {
    // The same condition in bits (a route corrects each bit where s and d differ once): a lies
    // between s and d (it differs from s only where d does), and the link's bit is one of those
    // still to correct at a. No hop counts: this runs for every message while a link is down.
    const int64_t x = s ^ d, bit = l.a ^ l.b;
    auto crosses = [&](int64_t a) { return ((s ^ a) & ~x) == 0 && (bit & x & ~(s ^ a)) != 0; };
    return crosses(l.a) || crosses(l.b);
  }
  const bool shortest = k == TopologyKind::ring || k == TopologyKind::linear || k == TopologyKind::mesh || k == TopologyKind::torus ||
                        k == TopologyKind::hypercube || k == TopologyKind::full;
  if (!shortest) return true;
  return with_topology_unit(k, [&](auto u) {
    using U = decltype(u);
    const int64_t h = U::hops(t, s, d);
    return U::hops(t, s, l.a) + 1 + U::hops(t, l.b, d) == h || U::hops(t, s, l.b) + 1 + U::hops(t, l.a, d) == h;
  });
}

// Whether the route from node s to node d may cross a link that is down in step `arrives`.
PPSIM_HD inline bool may_meet_failed_link(const Failures& f, const Topology& t, int64_t s, int64_t d, int64_t arrives) {
  for (int n = 0; n < f.nlink; ++n)
    if (arrives >= f.link[n].step && may_cross(t, f.link[n], s, d)) return true;
  return false;
}

// The route from node s to node d of a message that may meet a failed link in step `arrives`: the
// first route that is up, or kLost. (The rare case: kept out of the per-message loops.)
template <class Topo>  // (a template: one definition in every translation unit)
PPSIM_HD PPSIM_FAILURE_PATH int route_around(const Failures& f, const Topo& t, int64_t s, int64_t d, int64_t arrives) {
  if (route_up(f, t, s, d, 0, arrives)) return 0;
  if (!f.reroute) return kLost;
  const int n = alt_route_count(t);
  for (int r = 1; r <= n && r <= 127; ++r)
    if (route_up(f, t, s, d, r, arrives)) return r;
  return kLost;
}

// The route of a message to processor `to` arriving in step `arrives`, its sender being up when it
// sent it: kLost where its receiver is down then, else as the links allow.
template <class Machine>
PPSIM_HD inline int arrival_route(const Machine& m, int64_t from, int64_t to, int64_t arrives) {
  const Failures& f = *m.failures;
  if (f.proc_down(to, arrives)) return kLost;
  if (f.nlink == 0) return 0;
  const int64_t s = m.node(from), d = m.node(to);
  return may_meet_failed_link(f, m.topo, s, d, arrives) ? route_around(f, m.topo, s, d, arrives) : 0;
}

// The route a message from processor `from` to processor `to` (logical ids; nodes through the
// mapping) takes when sent in step `sent` and arriving in step `arrives`, or kLost (the machine
// has failures).
template <class Machine>
PPSIM_HD inline int message_route(const Machine& m, int64_t from, int64_t to, int64_t sent, int64_t arrives) {
  return m.failures->proc_down(from, sent) ? kLost : arrival_route(m, from, to, arrives);
}

// The hops of route `route` from processor `from` to `to`.
template <class Topo>  // (a template: one definition in every translation unit, inlined or not)
PPSIM_HD PPSIM_FAILURE_PATH int64_t alt_route_hops(const Topo& t, int64_t s, int64_t d, int route) {
  int64_t hops = 0;
  auto count = [&](int64_t) { ++hops; };
  for_each_alt_link(t, s, d, route, count);
  return hops;
}
template <class Machine>
PPSIM_HD PPSIM_DEVICE_INLINE int64_t message_hops(const Machine& m, int64_t from, int64_t to, int route) {
  if (route == 0) return route_hops_inlined(m.topo, m.node(from), m.node(to));
  return alt_route_hops(m.topo, m.node(from), m.node(to), route);
}

// The links of a message's route.
template <class Machine, class Visit>
PPSIM_HD void for_each_message_link(const Machine& m, int64_t from, int64_t to, int route, Visit&& visit) {
  for_each_variant_link(m.topo, m.node(from), m.node(to), route, visit);
}
// The same with a walk of values, returned with what it gathered (routing.h walk_route): on the
// device its own route costs the caller no local memory; another route (failures) is the rare path.
template <class Machine, class Walk>
PPSIM_HD PPSIM_DEVICE_INLINE Walk walk_message_route(const Machine& m, int64_t from, int64_t to, int route, Walk walk) {
  if (route == 0) return walk_route(m.topo, m.node(from), m.node(to), walk);
  for_each_alt_link(m.topo, m.node(from), m.node(to), route, walk);
  return walk;
}

// What the failures did to one processor's ops of one step.
struct Losses {
  long long dropped = 0, rerouted = 0;  // its sends lost, and its sends that took another route
};

// Processor i's sends of the step sent in `sent` (arriving in `arrives`), after the failures: the
// lost ones removed (the others in their order), route[n] the route of the n-th send left. A
// processor down in `sent` sends nothing (its sends count as dropped). Returns what it lost.
template <class Machine, class Ops>
PPSIM_HD PPSIM_FAILURE_PATH Losses drop_lost(const Machine& m, Ops& ops, int64_t i, int64_t sent, int64_t arrives, int8_t* route) {
  Losses l;
  if (m.failures->proc_down(i, sent)) {
    l.dropped = ops.nsend;
    ops.nsend = 0;
    return l;
  }
  int kept = 0;
  for (int n = 0; n < ops.nsend; ++n) {
    const int r = arrival_route(m, i, ops.send[n].to, arrives);
    if (r == kLost) {
      ++l.dropped;
      continue;
    }
    l.rerouted += r > 0;
    route[kept] = int8_t(r);
    if (kept != n) ops.send[kept] = ops.send[n];
    ++kept;
  }
  ops.nsend = kept;
  return l;
}

// Whether processor i's receive from `from`, posted for the step sent in `sent`, waits for a lost
// message (an unmatched receive that is then no schedule error).
template <class Machine>
PPSIM_HD bool receive_lost(const Machine& m, int64_t from, int64_t i, int64_t sent, int64_t arrives) {
  return m.failures && message_route(m, from, i, sent, arrives) == kLost;
}

// Processor i's ops of the step sent in `sent` as the failures leave them to be drawn: its lost sends
// removed (drop_lost: route[n] the route of the n-th send left) and the receives that wait for a lost
// message removed too. The presentations of a run (its replay and timelines) show these; the
// engines keep such receives posted, to tell them from schedule errors (receive_lost).
template <class Machine>
Losses keep_arriving(const Machine& m, StepOps& ops, int64_t i, int64_t sent, int64_t arrives, int8_t* route) {
  const Losses l = drop_lost(m, ops, i, sent, arrives, route);
  int kept = 0;
  for (int n = 0; n < ops.nrecv; ++n)
    if (!receive_lost(m, ops.recv[n].from, i, sent, arrives)) ops.recv[kept++] = ops.recv[n];
  ops.nrecv = kept;
  return l;
}

// Whether processor i is down at the end of a run of `last_step` steps: it then skips the
// algorithm's local work after the last step.
PPSIM_HD inline bool down_at_end(const Failures* f, int64_t i, int64_t last_step) { return f && f->proc_down(i, last_step); }

}  // namespace ppsim::rules
