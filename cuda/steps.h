// A step of the device rounds, written once over an executor (DeviceExec in backend.cu, HostExec
// in host_rounds.cpp, TeamExec in block_exec.h): the plan every step reads (StepPlan), the
// memory a run on the records takes, the sizing of a round, and a step on the pull step
// (pull_step: one pass of PullBody, docs/DESIGN.md §2) or on the records (run_step: the slots'
// scan, post, match, the costs' reduction, deliver). rounds.h orders a whole run over these.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "ppsim/partition.h"
#include "ppsim/postal.h"
#include "ppsim/verify.h"
#include "pull_bodies.h"
#include "round_bodies.h"
#include "rules/run_rules.h"
#include "verify_bodies.h"

namespace ppsim {
namespace rounds {

inline constexpr long long kWarpWords = 8, kBlockWords = 2048;

// Host memory for the final buffers copied back (the run's words and the link counters).
inline uint64_t state_bytes(const RunConfig& c) {
  uint64_t bytes = run_total_words(c) * 8;
  const Topology& t = physical_topology(c);
  if (!direct_links(t)) bytes += uint64_t(link_space(t)) * 8;
  return bytes;
}

// The ranks of a run split across processes (null: one process).
inline Collectives* split_ranks(const RunConfig& c) { return c.ranks && c.ranks->size() > 1 ? c.ranks : nullptr; }

// The context of a run's bodies: everything but the buffer, status and test-hook pointers. A
// rank of a split run holds its block of the processors.
inline Ctx make_ctx(const RunConfig& c) {
  Ctx ctx{};
  ctx.algo = c.algorithm->id;
  ctx.a = c.params;
  ctx.machine = run_machine(c);
  ctx.ports = run_port_rules(c);
  ctx.op = c.combine;
  ctx.tokens = rules::carries_tokens(c.algorithm->op);
  ctx.clock = run_clock(c);
  ctx.cost = &c.cost;  // host pointers here (cost, machine.failures): plan() points them at the executor's copies
  const int64_t procs = run_processors(c);
  Collectives* comm = split_ranks(c);
  ctx.lo = comm ? block_begin(procs, comm->rank(), comm->size()) : 0;
  ctx.hi = comm ? block_end(procs, comm->rank(), comm->size()) : procs;
  return ctx;
}

// The largest round of a run: the sizes of one store of messages in flight. A rank of a split
// run keeps the messages other ranks send its block after its own in the pool.
struct StoreSizes {
  long long sends = 1, recvs = 1, words = 1;
};
inline StoreSizes largest_round(const std::vector<RoundTotals>& totals, bool split) {
  StoreSizes n;
  for (const RoundTotals& t : totals) {
    n.sends = std::max(n.sends, t.sends);
    n.recvs = std::max(n.recvs, t.recvs);
    n.words = std::max(n.words, t.words + (split ? t.recv_words : 0));
  }
  return n;
}

// Everything a run allocates on the executor after its sizing pass, in bytes: the check against
// free memory is made once, with this figure, before any of it is taken. `scratch` is what the
// executor's scans and reductions need. A run verified where its buffers are also needs the
// verification's fold table (unless the first store's message pool, free by then, holds it) and
// its counters.
inline uint64_t run_bytes(const RunConfig& c, const StoreSizes& n, int nstores, uint64_t scratch) {
  const Ctx ctx = make_ctx(c);
  const int64_t p = ctx.hi - ctx.lo;  // the processors held here
  const Topology& t = physical_topology(c);
  uint64_t bytes = 0;
  for (int b = 0; b < ctx.nbuf(); ++b) bytes += uint64_t(p * ctx.words(b)) * 8;     // the buffers
  if (!direct_links(t)) bytes += uint64_t(std::max<int64_t>(1, link_space(t))) * 8;  // link counters
  const uint64_t store =
      uint64_t(p + 1) * sizeof(Slots) + uint64_t(n.sends) * sizeof(DevSend) + uint64_t(n.recvs) * sizeof(DevRecv) + uint64_t(n.words) * 8;
  bytes += uint64_t(nstores) * store;
  bytes += scratch;
  if (c.verify && !c.keep_buffers && !split_ranks(c)) {
    const uint64_t table = verification_table_words(c);
    if (table > uint64_t(n.words)) bytes += table * 8;
    if (c.failures.any()) bytes += damage_bytes(c);
  }
  return bytes;
}

// What the steps of a run read, in the memory of whatever executes them, passed by value: the
// context, the rounds' sizing totals, and nstores stores of messages in flight laid end to end (a
// store: the step's slots, its sends, receives and payload pool). Step t uses store t % nstores.
struct StepPlan {
  Ctx ctx;
  int64_t p, total_steps;
  int lambda, nstores;
  bool has_local, check_exchange;  // check_exchange: half-duplex and telephone
  const RoundTotals* totals;       // [rounds]: totals[r - 1] is round r
  RoundPeak* peaks;                // [rounds]
  unsigned long long* lost;        // [2 * rounds] with failures: round r's messages dropped and rerouted at 2(r - 1) (else null)
  unsigned long long* link_load;
  Slots* slot;
  DevSend* sends;
  DevRecv* recvs;
  uint64_t* pool;
  StoreSizes store;  // one store's sends, receives and pool words (its slots: p + 1)
  // The pull step (DESIGN §2, "Two ways to run a step"): no stores; a round is one pass (two on
  // routed topologies) over the processors.
  bool pull = false;
  PullState pulled{};
  // [rounds], routed topologies: guess[r - 1] is round r's guess of its link loads
  // (rules::RoundGuess; kCountLoads: counted, PullBodyOf::guess); null: every round counts them.
  const int64_t* guess = nullptr;
  PPSIM_HD int64_t guess_of(int r) const { return guess ? guess[r - 1] : rules::kCountLoads; }
  // The run asks no route question the device would call for (rules::PlainUnit): a plain_kind
  // topology, no mapping, no link classes, no all-port checks, no failures, and every round
  // guessed where the links are not direct.
  bool plain = false;

  PPSIM_HD int64_t step_of_round(int r) const { return ctx.clock.step_of_round(r); }
  PPSIM_HD unsigned long long* lost_of(int r) const { return lost ? lost + 2 * (r - 1) : nullptr; }
  PPSIM_HD int round_sent_at(int64_t t) const { return ctx.clock.round_sent_at(t); }
  // Who moves a round's words: a block per processor when its messages average kBlockWords
  // words or more, a warp from kWarpWords, else a thread.
  PPSIM_HD GroupWidth width(int r) const {
    const RoundTotals& n = totals[r - 1];
    if (n.sends > 0 && n.words >= kBlockWords * n.sends) return GroupWidth::block;
    if (n.sends > 0 && n.words >= kWarpWords * n.sends) return GroupWidth::warp;
    return GroupWidth::thread;
  }
  PPSIM_HD Slots* slot_of(int64_t t) const { return slot + (t % nstores) * (p + 1); }
  PPSIM_HD DevSend* sends_of(int64_t t) const { return sends + (t % nstores) * store.sends; }
  PPSIM_HD DevRecv* recvs_of(int64_t t) const { return recvs + (t % nstores) * store.recvs; }
  PPSIM_HD uint64_t* pool_of(int64_t t) const { return pool + (t % nstores) * store.words; }
};

// Sizing, round r: its totals (a sum over the processors' ops) into out[r - 1].
PPSIM_HD_TEMPLATE
template <class Exec>
PPSIM_HD void size_round(const StepPlan& pl, Exec& exec, int r, RoundTotals* out) {
  exec.reduce(pl.p, RoundCount{pl.ctx, r, pl.step_of_round(r)}, SumOf{}, RoundTotals{0, 0, 0, 0, 0}, out + (r - 1));
}

// The round sent in step t, on the pull step with ops read from source Src (rules/pull_units.h):
// its link loads counted first on a routed topology (unless the plan guesses them: its messages
// cross one link each, or one XOR distance on the hypercube), then pulled by its receivers, which apply its words at once (the round's
// messages arrive before the next round leaves: round-based, or lambda = 1).
PPSIM_HD_TEMPLATE
template <class Src, class Exec>
PPSIM_HD void pull_round_of(Src, const StepPlan& pl, Exec& exec, int64_t t) {
  const Ctx& ctx = pl.ctx;
  if (const int r = pl.round_sent_at(t); r > 0) {
    const int64_t guess = pl.guess_of(r);
    if constexpr (!Src::plain)  // (a plain run's rounds all guess)
      if (!direct_links(ctx.machine.topo) && guess == rules::kCountLoads) exec.each(pl.p, CountLinksBodyOf<Src>{ctx, r, t, pl.link_load});
    exec.groups_tally(pl.p, PullBodyOf<Src>{ctx, r, t, pl.check_exchange && pl.lambda == 1, pl.pulled, pl.link_load, pl.lost_of(r), guess},
                      pl.width(r), pl.pulled.round_out + kTallyWords * (r - 1));
  }
}
// Round r (sent in step t) costed again, its link loads counted under stamp `stamp` (one no step
// of the run has used): every receive's cost tallied into out, no word moved.
PPSIM_HD_TEMPLATE
template <class Src, class Exec>
PPSIM_HD void recost_round_of(Src, const StepPlan& pl, Exec& exec, int r, int64_t t, int64_t stamp, unsigned long long* out) {
  const Ctx& ctx = pl.ctx;
  exec.each(pl.p, CountLinksBodyOf<Src>{ctx, r, t, pl.link_load, stamp});
  exec.groups_tally(pl.p, PullBodyOf<Src>{ctx, r, t, false, pl.pulled, pl.link_load, nullptr, rules::kCountLoads, true, stamp}, GroupWidth::thread, out);
}
// After the last step: every processor's words back in the buffers' first generation, then the
// algorithm's local work.
PPSIM_HD_TEMPLATE
template <class Exec>
PPSIM_HD void pull_run_end(const StepPlan& pl, Exec& exec) {
  const Ctx& ctx = pl.ctx;
  const int last = ctx.clock.rounds;
  for (int b = 0; b < ctx.nbuf(); ++b)
    if (pl.pulled.generations) exec.each(pl.p * ctx.words(b), SettleBody{ctx, b, pl.pulled.next_parity_of(last, pl.p), pl.pulled.second[b]});
  if (pl.has_local) exec.each(pl.p, LocalBody{ctx, LocalPhase::after_last_step, pl.total_steps});
}
// Step t on the pull step: its round, and after the last step the run's end.
PPSIM_HD_TEMPLATE
template <class Src, class Exec>
PPSIM_HD void pull_step_from(Src src, const StepPlan& pl, Exec& exec, int64_t t) {
  pull_round_of(src, pl, exec, t);
  if (t == pl.total_steps) pull_run_end(pl, exec);
}

// The ops source of a run's pull steps: the unit of rules/pull_units.h's list with ops of its own
// size, where no test schedule replaces its ops and no failure drops its messages; every other
// run reads them through the dispatch. The same for every step of a run.
// A listed unit runs as its PlainUnit where the plan found the run plain (StepPlan::plain), unless
// Plain is false: a round costed again walks its routes.
PPSIM_HD_TEMPLATE
template <bool Plain = true, class Fn>
PPSIM_HD void with_pull_source(const StepPlan& pl, Fn&& fn) {
  rules::with_ops_source(pl.ctx.algo, !pl.ctx.ops_override && !pl.ctx.machine.failures, [&](auto src) {
    using Src = decltype(src);
    if constexpr (Plain && !Src::any) {
      if (pl.plain) {
        fn(rules::PlainUnit<typename Src::Unit>{});
        return;
      }
    }
    fn(src);
  });
}

template <class Exec>
struct PullStepFrom {
  const StepPlan& pl;
  Exec& exec;
  int64_t t;
  PPSIM_HD_TEMPLATE
  template <class Src>
  PPSIM_HD void operator()(Src src) const {
    pull_step_from(src, pl, exec, t);
  }
};

// Step t on the pull step, its ops from the run's source.
PPSIM_HD_TEMPLATE
template <class Exec>
PPSIM_HD void pull_step(const StepPlan& pl, Exec& exec, int64_t t) {
  with_pull_source(pl, PullStepFrom<Exec>{pl, exec, t});
}

// Step t: on the pull step (pull_step), or on the records: the round sent in it (every processor's
// slots in one scan, the messages posted, matched to their receives and loaded onto their links,
// the round's peak load and time), then the messages that arrive in it delivered. Written once for
// every executor: kernels launched from the host, the host itself, or one thread block running a
// whole run.
PPSIM_HD_TEMPLATE
template <class Exec>
PPSIM_HD void run_step(const StepPlan& pl, Exec& exec, int64_t t) {
  if (pl.pull) {
    pull_step(pl, exec, t);
    return;
  }
  const Ctx& ctx = pl.ctx;
  Slots* slot = pl.slot_of(t);
  DevSend* sends = pl.sends_of(t);
  DevRecv* recvs = pl.recvs_of(t);
  const int r = pl.round_sent_at(t);
  if (r > 0) {
    const RoundTotals& n = pl.totals[r - 1];
    exec.exclusive_scan(pl.p + 1, SlotCount{ctx, r, t}, SumOf{}, Slots{0, 0, 0}, slot);
    exec.groups(pl.p, PostBody{ctx, r, t, slot, sends, recvs, pl.pool_of(t), pl.lost_of(r)}, pl.width(r));
    if (n.sends > 0) {
      exec.each(n.sends, MatchBody{ctx, t, sends, recvs, slot, pl.link_load});
      exec.reduce(n.sends, CostOf{ctx, t, sends, slot, pl.link_load}, PeakOf{}, RoundPeak{0, 0.0}, pl.peaks + (r - 1));
    }
    if (n.recvs != n.sends) exec.each(n.recvs, UnmatchedBody{ctx, t, recvs});
  }
  const int64_t j = pl.ctx.clock.sent_before(t);  // the messages sent in step j arrive now
  if (j >= 1) {
    const int arrived = pl.round_sent_at(j);
    if (arrived > 0 && pl.totals[arrived - 1].recvs > 0)
      exec.groups(pl.p, DeliverBody{ctx, t, r > 0 && pl.check_exchange, pl.recvs_of(j), pl.slot_of(j), pl.pool_of(j), sends, slot},
                  pl.width(arrived));
  }
  if (t == pl.total_steps && pl.has_local) exec.each(pl.p, LocalBody{ctx, LocalPhase::after_last_step, t});
}

// --trace: after step t, the buffers and the messages sent in it (the broken-rule word first).
template <class Exec, class ReadStatus>
TraceStep trace_step(const StepPlan& pl, Exec& exec, int64_t t, std::vector<std::vector<uint64_t>> buffers, const ReadStatus& read_status) {
  read_status();
  TraceStep ts{t, std::move(buffers), {}};
  const int r = pl.round_sent_at(t);
  const long long nsends = r > 0 ? pl.totals[r - 1].sends : 0;
  if (nsends > 0) {
    std::vector<DevSend> sent(static_cast<size_t>(nsends));
    exec.download(sent.data(), pl.sends_of(t), sent.size() * sizeof(DevSend));
    for (const auto& x : sent)  // a barrier's token is charged no words, in the trace as in the report
      ts.messages.push_back(TraceMessage{x.from, x.to, rules::charged_words(pl.ctx.tokens, x.len), x.src_off, x.buf, t, pl.ctx.clock.arrives(t)});
  }
  return ts;
}

}  // namespace rounds
}  // namespace ppsim
