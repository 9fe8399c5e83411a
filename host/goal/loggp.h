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
//
// The schedule comes from a Source (a GOAL file, goal.h, or an algorithm's rounds, loggp_run.cpp):
//   uint32_t hosts() const; int cpus() const; int nics() const;
//   void roots(uint32_t host, std::vector<ReadyOp>& out);           // ready from the start
//   void started(uint32_t host, uint32_t op, std::vector<ReadyOp>& out);  // ops that irequire it
//   void done(uint32_t host, uint32_t op, std::vector<ReadyOp>& out);     // ops that require it
//   std::string name(uint32_t host, uint32_t op) const;            // for reports: "label l3 (line 12)"
//   std::string never_ready() const;                                  // "" or the first op never ready
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "goal/loggp_events.h"
#include "ppsim/cost.h"

namespace ppsim::loggp {

using Params = LogGPParams;  // ppsim/cost.h: L, o, g, G, O, S and LogGOPSim's defaults

// Parameter limits: every time stays below 2^62 for any schedule whose sizes are below 2^40.
inline constexpr uint64_t kMaxParam = uint64_t(1) << 40;       // L, o, g, S
inline constexpr uint64_t kMaxPerByte = uint64_t(1) << 20;     // G, O
inline constexpr uint64_t kMaxSize = (uint64_t(1) << 40) - 1;  // bytes of a message, ns of a calc
inline constexpr uint64_t kTimeLimit = uint64_t(1) << 62;

// A schedule that cannot finish, or a time beyond kTimeLimit.
struct StuckError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
};

// Runs the schedule; throws StuckError when a receive or a message is left unmatched (LogGOPSim
// then prints no times), names the first operation that never ran in Result::unfinished.
template <class Source>
Result simulate(Source& src, const Params& P) {
  using detail::Event;
  const uint32_t p = src.hosts();
  const size_t ncpu = size_t(src.cpus()), nnic = size_t(src.nics());
  std::vector<uint64_t> nexto(p * ncpu, 0), nextgr(p * nnic, 0), nextgs(p * nnic, 0);
  detail::EventQueue aq;
  detail::MatchQueues rq(p), uq(p);
  uint64_t aqtime = 0;
  Result res;

  std::vector<ReadyOp> ready;                        // made ready in this event, in order
  std::vector<std::pair<uint32_t, uint32_t>> marks;  // (host, index into ready) of this event
  std::vector<ReadyOp> batch;
  std::vector<uint32_t> hosts_touched;
  // LogGOPSim sorts operations made ready together by type with std::sort: not stable beyond 16
  // of them, but the same library sort on the same sequence gives the same order.
  auto by_type = [](const ReadyOp& a, const ReadyOp& b) { return a.type < b.type; };

  // The operations ready from the start (LogGOPSim queues them all at time 0, host by host, before
  // anything else, so they come first: they are taken here one host at a time instead of being
  // queued, and every later event is numbered after them).
  uint64_t root_ts = 0;
  aqtime = uint64_t(1) << 46;  // (stamps have 48 bits: 2^46 roots and 2^47 other events at most)

  auto mark_started = [&](uint32_t h, uint32_t op) {
    size_t before = ready.size();
    src.started(h, op, ready);
    for (size_t i = before; i < ready.size(); ++i) marks.emplace_back(h, uint32_t(i));
    hosts_touched.push_back(h);
  };
  auto mark_done = [&](uint32_t h, uint32_t op) {
    size_t before = ready.size();
    src.done(h, op, ready);
    for (size_t i = before; i < ready.size(); ++i) marks.emplace_back(h, uint32_t(i));
    hosts_touched.push_back(h);
  };

  // A rendezvous send completes when its receive matches it: its host's clocks (of the CPU and
  // NIC numbers the matching event carries, as in LogGOPSim) move up to that moment.
  auto rendezvous_done = [&](uint32_t sender, uint32_t op, uint32_t cpu, uint32_t nic, uint64_t now) {
    mark_done(sender, op);
    uint64_t& so = nexto[sender * ncpu + cpu];
    uint64_t& sg = nextgs[sender * nnic + nic];
    so = std::max(so, now);
    sg = std::max(sg, now);
  };
  auto handle = [&](Event e) {
    ready.clear();
    marks.clear();
    hosts_touched.clear();
    const uint32_t cpu = e.cpu(), nic = e.nic();
    uint64_t& o_clock = nexto[e.host * ncpu + cpu];
    switch (e.type()) {
      case kCalc:
        if (o_clock <= e.time) {
          o_clock = e.time + e.size;
          ++res.events;
          mark_started(e.host, e.op);
          mark_done(e.host, e.op);
        } else {
          e.time = o_clock;
          aq.push(e);
        }
        break;
      case kSend: {
        uint64_t& gs = nextgs[e.host * nnic + nic];
        if (std::max(o_clock, gs) <= e.time) {
          ++res.events;
          ++res.messages;
          mark_started(e.host, e.op);
          o_clock = e.time + P.o + (e.size - 1) * P.O;
          gs = e.time + P.g + (e.size - 1) * P.G;
          const uint32_t from = e.host;
          Event m = e;
          m.set_type(kMsg);
          m.host = e.target;
          m.target = from;
          m.time = e.time + P.o + P.L;
          m.set_ts(aqtime++);
          aq.push(m);
          if (e.size <= P.S) mark_done(from, e.op);  // eager: done when handed to the NIC
        } else {
          e.time = std::max(o_clock, gs);
          aq.push(e);
        }
      } break;
      case kRecv: {
        ++res.events;
        mark_started(e.host, e.op);
        detail::QueueEntry got;
        if (uq.take(e.host, e.target, e.tag, got)) {
          if (e.size > P.S) rendezvous_done(got.src, got.op, cpu, nic, e.time);
          mark_done(e.host, e.op);
        } else {
          rq.append(e.host, detail::QueueEntry{e.target, e.tag, e.op, -1});
        }
      } break;
      case kMsg: {
        uint64_t& gr = nextgr[e.host * nnic + nic];
        if (std::max(o_clock, gr) <= e.time) {
          ++res.events;
          o_clock = e.time + P.o + std::max((e.size - 1) * P.O, (e.size - 1) * P.G);
          gr = e.time + P.g + (e.size - 1) * P.G;
          detail::QueueEntry got;
          if (rq.take(e.host, e.target, e.tag, got)) {
            if (e.size > P.S) rendezvous_done(e.target, e.op, cpu, nic, e.time);
            mark_done(e.host, got.op);
          } else {
            uq.append(e.host, detail::QueueEntry{e.target, e.tag, e.op, -1});
          }
        } else {
          e.time = std::max(o_clock, gr);
          aq.push(e);
        }
      } break;
      default: break;
    }
    if (ready.empty()) return;
    // Hosts in increasing order; each host's newly ready operations in the order they became
    // ready, then by type; each gets its creation stamp.
    auto stamp = [&](uint32_t h, std::vector<ReadyOp>& ops) {
      std::sort(ops.begin(), ops.end(), by_type);
      for (const ReadyOp& r : ops) {
        uint64_t t = nexto[h * ncpu + r.cpu];
        if (r.type == kSend) t = std::max(t, nextgs[h * nnic + r.nic]);
        aq.push(detail::make_event(t, aqtime++, r, h));
      }
    };
    bool one_host = true;  // the common case: every operation made ready is one host's
    for (const auto& m : marks) one_host = one_host && m.first == marks.front().first;
    if (one_host) {
      stamp(marks.front().first, ready);
      return;
    }
    std::sort(hosts_touched.begin(), hosts_touched.end());
    hosts_touched.erase(std::unique(hosts_touched.begin(), hosts_touched.end()), hosts_touched.end());
    for (uint32_t h : hosts_touched) {
      batch.clear();
      for (const auto& [mh, i] : marks)
        if (mh == h) batch.push_back(ready[i]);
      if (!batch.empty()) stamp(h, batch);
    }
  };
  std::vector<ReadyOp> roots;
  for (uint32_t h = 0; h < p; ++h) {
    roots.clear();
    src.roots(h, roots);
    std::sort(roots.begin(), roots.end(), by_type);
    for (const ReadyOp& r : roots) handle(detail::make_event(0, root_ts++, r, h));
  }
  while (!aq.empty()) handle(aq.pop());

  // Everything must have run: no receive left posted, no message left unreceived, no operation
  // left waiting for one that never completed.
  if (rq.count() > 0 || uq.count() > 0) {
    for (uint32_t h = 0; h < p; ++h) {
      if (int32_t i = rq.first(h); i >= 0) {
        const auto& q = rq.at(i);
        throw StuckError("rank " + std::to_string(h) + ": receive " + src.name(h, q.op) + " from " +
                         (q.src == kAny ? std::string("any rank") : "rank " + std::to_string(q.src)) + " (tag " +
                         (q.tag == kAny ? std::string("any") : std::to_string(q.tag)) + ") is never matched by a send");
      }
      if (int32_t i = uq.first(h); i >= 0) {
        const auto& q = uq.at(i);
        throw StuckError("rank " + std::to_string(q.src) + ": send " + src.name(q.src, q.op) + " to rank " + std::to_string(h) + " (tag " +
                         std::to_string(q.tag) + ") is never received");
      }
    }
  }
  res.unfinished = src.never_ready();

  res.finish.assign(p, 0);
  // Clocks are unsigned and wrap as LogGOPSim's do (a 0-byte message with o or g below G moves a
  // clock back by G); a finishing time that wrapped past 2^64 is refused rather than reported.
  for (uint32_t h = 0; h < p; ++h) {
    uint64_t f = 0;
    for (size_t c = 0; c < ncpu; ++c) f = std::max(f, nexto[h * ncpu + c]);
    if (f >= kTimeLimit)
      throw StuckError("rank " + std::to_string(h) + " would finish at " + std::to_string(f) +
                       " ns: a clock wrapped past 2^64 (a 0-byte message with o or g below G, or sizes too large)");
    res.finish[h] = f;
    if (f > res.time) {
      res.time = f;
      res.last_host = h;
    }
  }
  return res;
}

}  // namespace ppsim::loggp
