// The CUDA backend's orchestration of a run, written once over an executor: DeviceExec
// (backend.cu: kernels and CUB on a stream of its own) or HostExec (host_rounds.cpp: the same
// bodies one index at a time, so CI checks this logic without a GPU).
//
// A run returns to the host twice, not once per step:
//   1. sizing: every round's ops are a pure function of (processor, round), so one pass of count
//      bodies with sum reductions gives every round's sends, receives and payload words; the host
//      reads those totals, checks the device memory they need and allocates everything once;
//   2. the steps are then queued back to back (one scan of every processor's slots, post, match,
//      a max reduction of the messages' costs, deliver), each round's peak and the first broken
//      rule kept on the executor, and read back with the buffers at the end. A round's messages,
//      words and link-hops are the sizing pass's totals: no step counts them again.
// Only --trace (small runs) reads the state back after every step.
//
// A run split across ranks (docs/DESIGN.md §8) runs each rank's block of processors here, one
// step at a time: the post, the match of the messages whose receivers the block holds and the
// counts of every sent message's links on the executor; then, through host memory, the links'
// loads summed over the ranks and the crossing messages shipped (rules/crossing.h, as the CPU
// passes do); then the imported messages matched to their receives, and the costs, on the host
// and the executor.
#pragma once
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "ppsim/partition.h"
#include "ppsim/postal.h"
#include "ppsim/verify.h"
#include "round_bodies.h"
#include "rules/crossing.h"
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
  bytes += uint64_t(std::max(1, c.algorithm->rounds(c.params))) * sizeof(RoundPeak);  // the rounds' peaks
  if (c.failures.any()) bytes += uint64_t(2 * std::max(1, c.algorithm->rounds(c.params))) * sizeof(unsigned long long);  // their losses
  bytes += scratch;
  if (c.verify && !c.keep_buffers && !split_ranks(c)) {
    const uint64_t table = verification_table_words(c);
    if (table > uint64_t(n.words)) bytes += table * 8;
    bytes += kTallies * sizeof(unsigned long long);
    if (c.failures.any()) bytes += damage_bytes(c);
  }
  return bytes;
}

// What the steps of a run read, in the memory of whatever executes them, passed by value: the
// context, the rounds' sizing totals, and nstores stores of messages in flight laid end to end (a
// store: the step's slots, its sends, receives and payload pool). Step t uses store t % nstores.
struct StepPlan {
  Ctx ctx;
  rules::Clock clock;
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

  PPSIM_HD int64_t step_of_round(int r) const { return clock.step_of_round(r); }
  PPSIM_HD unsigned long long* lost_of(int r) const { return lost ? lost + 2 * (r - 1) : nullptr; }
  PPSIM_HD int round_sent_at(int64_t t) const { return clock.round_sent_at(t); }
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

// Step t: the round sent in it (every processor's slots in one scan, the messages posted, matched
// to their receives and loaded onto their links, the round's peak load and time), then the
// messages that arrive in it delivered. Written once for every executor: kernels launched from the
// host, the host itself, or one thread block running a whole run.
PPSIM_HD_TEMPLATE
template <class Exec>
PPSIM_HD void run_step(const StepPlan& pl, Exec& exec, int64_t t) {
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
  const int64_t j = pl.clock.sent_before(t);  // the messages sent in step j arrive now
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
      ts.messages.push_back(TraceMessage{x.from, x.to, rules::charged_words(pl.ctx.tokens, x.len), x.src_off, x.buf, t, pl.clock.arrives(t)});
  }
  return ts;
}

// One run on an executor, in four phases: the plan (sizing every round), the memory (checked at
// once, then taken), the steps, and the figures and verification read back.
template <class Exec>
class RoundsRun {
 public:
  RoundsRun(const RunConfig& c, Exec& exec)
      : c_(c), exec_(exec), comm_(split_ranks(c)), p_(make_ctx(c).hi - make_ctx(c).lo), nrounds_(c.algorithm->rounds(c.params)),
        postal_(c.params) {}

  RunResult run() {
    if (comm_) return run_split();
    plan();
    size_rounds();
    allocate();
    RunResult result;
    result.backend = exec_.backend();
    run_steps(result);
    read_figures(result);
    verify(result);
    return result;
  }

 private:
  template <class T>
  using Array = typename Exec::template Array<T>;

  // The step plan: context, clock, the run's status word and seed 000's G in the executor's memory.
  void plan() {
    pl_ = StepPlan{};
    pl_.ctx = make_ctx(c_);
    pl_.ctx.ops_override = exec_.accepts_test_hook() ? c_.test_ops_override : nullptr;
    pl_.p = p_;
    pl_.clock = run_clock(c_);
    pl_.lambda = pl_.clock.lambda;
    pl_.total_steps = pl_.clock.total_steps();
    pl_.has_local = c_.algorithm->has_local;
    pl_.check_exchange = rules::checks_exchange(c_.ports.model);
    // Messages in flight at once: a postal-native algorithm sends in every step (lambda stores); a
    // round-based one every lambda steps, and its messages arrive before its next round (one store).
    pl_.nstores = run_store_count(c_);
    status_.ensure(1);
    const RunStatus clear{kNoError};
    exec_.upload(status_.get(), &clear, sizeof clear);
    pl_.ctx.status = status_.get();
    postal_g_.ensure(postal_.values().size());
    exec_.upload(postal_g_.get(), postal_.values().data(), postal_.values().size() * sizeof(int64_t));
    postal_.attach(pl_.ctx.a, postal_g_.get());
    cost_.ensure(1);
    exec_.upload(cost_.get(), &c_.cost, sizeof(CostParams));
    pl_.ctx.cost = cost_.get();
    if (pl_.ctx.machine.failures) {
      failures_.ensure(1);
      exec_.upload(failures_.get(), &c_.failures, sizeof(Failures));
      pl_.ctx.machine.failures = failures_.get();
    }
  }

  // A rule was broken: the CPU backend, running the same rules, gives the exact message.
  void read_status() {
    RunStatus s{};
    exec_.download(&s, status_.get(), sizeof s);
    if (s.error == kNoError) return;
    run_cpu(c_);
    throw ScheduleError("step " + std::to_string(s.error >> 32) + ": processor " + std::to_string(s.error & 0xffffffffull) +
                        " breaks the schedule (detected by the " + exec_.name() + ")");
  }

  // Sizing: every round's totals, kept in the executor's memory (the steps read them there) and
  // read back once (the host sizes the stores and reports the figures from them).
  void size_rounds() {
    dev_totals_.ensure(size_t(std::max(1, nrounds_)));
    totals_.assign(static_cast<size_t>(nrounds_), RoundTotals{0, 0, 0, 0, 0});  // totals_[r - 1]: round r
    if (nrounds_ == 0) return;
    if (!comm_ && exec_.whole_run_fits(p_, 0)) exec_.size_in_one_launch(pl_, dev_totals_.get(), nrounds_);
    else
      for (int r = 1; r <= nrounds_; ++r) size_round(pl_, exec_, r, dev_totals_.get());
    exec_.download(totals_.data(), dev_totals_.get(), totals_.size() * sizeof(RoundTotals));
    if (!comm_) read_status();  // a split run's ranks agree on it first (split_failed)
  }

  // Memory: all of it checked at once, then taken; the buffers filled with the inputs.
  void allocate() {
    pl_.store = largest_round(totals_, comm_ != nullptr);
    const uint64_t scratch =
        std::max(exec_.scan_scratch(p_ + 1, SlotCount{pl_.ctx, 1, 1}, SumOf{}, Slots{0, 0, 0}),
                 exec_.reduce_scratch(pl_.store.sends, CostOf{pl_.ctx, 1, nullptr, nullptr, nullptr}, PeakOf{}, RoundPeak{0, 0.0}));
    exec_.require(run_bytes(c_, pl_.store, pl_.nstores, scratch));
    exec_.reserve_scratch(scratch);
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      bufs_[b].ensure(size_t(p_ * pl_.ctx.words(b)));
      pl_.ctx.bufs[b] = bufs_[b].get();
    }
    const Topology& topo = pl_.ctx.machine.topo;
    if (!direct_links(topo)) {
      link_load_.ensure(size_t(std::max<int64_t>(1, link_space(topo))));
      exec_.zero(link_load_.get(), size_t(link_space(topo)) * sizeof(unsigned long long));
      pl_.link_load = link_load_.get();
    }
    const size_t nstores = size_t(pl_.nstores);
    slot_.ensure(nstores * size_t(p_ + 1));
    sends_.ensure(nstores * size_t(pl_.store.sends));
    recvs_.ensure(nstores * size_t(pl_.store.recvs));
    pool_.ensure(nstores * size_t(pl_.store.words));
    pl_.slot = slot_.get();
    pl_.sends = sends_.get();
    pl_.recvs = recvs_.get();
    pl_.pool = pool_.get();
    peaks_.ensure(size_t(std::max(1, nrounds_)));
    exec_.zero(peaks_.get(), size_t(std::max(1, nrounds_)) * sizeof(RoundPeak));
    pl_.peaks = peaks_.get();
    if (pl_.ctx.machine.failures) {
      lost_.ensure(size_t(2 * std::max(1, nrounds_)));
      exec_.zero(lost_.get(), size_t(2 * std::max(1, nrounds_)) * sizeof(unsigned long long));
      pl_.lost = lost_.get();
    }
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) exec_.each(p_ * pl_.ctx.words(b), InitBody{pl_.ctx, c_.algorithm->op, c_.input, b});
  }

  std::vector<std::vector<uint64_t>> fetch_buffers() {
    std::vector<std::vector<uint64_t>> host(size_t(pl_.ctx.nbuf()));
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      host[size_t(b)].resize(size_t(c_.params.p * pl_.ctx.words(b)));  // switch agents' words stay behind
      exec_.download(host[size_t(b)].data(), pl_.ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  }

  // The steps: one launch for a run a thread block holds, else queued back to back; the step code
  // reads the totals where it runs.
  void run_steps(RunResult& result) {
    if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::before_first_step});
    if (c_.trace) result.trace.push_back(TraceStep{0, fetch_buffers(), {}});
    StepPlan host_pl = pl_;
    host_pl.totals = totals_.data();
    pl_.totals = dev_totals_.get();
    if (!c_.trace && exec_.whole_run_fits(p_, pl_.store.words)) {
      exec_.steps_in_one_launch(pl_);
    } else {
      for (int64_t t = 1; t <= pl_.total_steps; ++t) {
        run_step(host_pl, exec_, t);
        if (c_.trace) result.trace.push_back(trace_step(host_pl, exec_, t, fetch_buffers(), [&] { read_status(); }));
      }
    }
    if (pl_.total_steps == 0) {
      if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::after_last_step});
      if (c_.trace) {
        result.trace.clear();
        result.trace.push_back(TraceStep{0, fetch_buffers(), {}});
      }
    }
  }

  // Back on the host: the first broken rule, then every step's figures from the rounds' totals
  // and peaks.
  void read_figures(RunResult& result) {
    if (!comm_) read_status();
    std::vector<RoundPeak> peaks(size_t(std::max(1, nrounds_)));
    exec_.download(peaks.data(), peaks_.get(), peaks.size() * sizeof(RoundPeak));
    if (comm_) combine_rounds(peaks);
    std::vector<unsigned long long> lost(size_t(2 * std::max(1, nrounds_)), 0);
    if (pl_.lost) exec_.download(lost.data(), pl_.lost, lost.size() * sizeof(unsigned long long));
    for (int64_t t = 1; t <= pl_.total_steps; ++t) {
      StepStats st;
      st.step = t;
      if (const int r = pl_.round_sent_at(t); r > 0) {
        const RoundTotals& n = totals_[size_t(r - 1)];
        st.messages = int64_t(n.sends);
        st.words = rules::charged_words(pl_.ctx.tokens, int64_t(n.words));  // a sum of payloads: charged alike
        st.link_hops = int64_t(n.hops);
        st.max_link_load = peaks[size_t(r - 1)].max_load;
        st.time = peaks[size_t(r - 1)].max_time;
        st.dropped = int64_t(lost[size_t(2 * (r - 1))]);
        st.rerouted = int64_t(lost[size_t(2 * (r - 1) + 1)]);
      }
      add_step(result, st, pl_.lambda);
    }
    result.steps = pl_.total_steps;
    add_local_folds(result, c_.cost.gamma, c_.algorithm->local_combined_words(c_.params), pl_.lambda);
  }

  // Verified where the buffers are, unless they come back anyway. A run with failures counts its
  // damage there too; a run with mismatches and no failures is verified again on the host for the
  // exact report (which words, what was expected).
  void verify(RunResult& result) {
    if (c_.keep_buffers || !c_.verify) {
      if (c_.keep_buffers) result.buffers = fetch_buffers();
      finish_verification(c_, result);
    } else if (c_.failures.any()) {
      record_verification(c_, count_mismatches(c_, exec_, pl_.ctx, pool_.get(), uint64_t(pl_.store.words), true), result);
    } else if (Verification v = count_mismatches(c_, exec_, pl_.ctx, pool_.get(), uint64_t(pl_.store.words)); v.mismatches == 0) {
      record_verification(c_, std::move(v), result);
    } else {
      result.buffers = fetch_buffers();
      finish_verification(c_, result);
    }
  }

  // A run split across ranks: this rank's block, step by step (the one-launch paths and --trace
  // are one process's). Every pass that can fail ends on every rank together (agreed_phase); a
  // broken rule anywhere is reported as the CPU backend's split run reports it.
  RunResult run_split() {
    agreed_phase(*comm_, [&] {
      if (c_.trace) throw ConfigError("--trace keeps every processor's buffers after every step in one process: run it without mpirun");
      if (c_.test_ops_override) throw ConfigError("a test's replaced schedule runs in one process");
      plan();
      size_rounds();
    });
    if (split_failed()) return broken_rule();
    agreed_phase(*comm_, [&] { allocate(); });
    RunResult result;
    result.backend = exec_.backend();
    import_peaks_.assign(size_t(std::max(1, nrounds_)), RoundPeak{0, 0.0});
    StepPlan host_pl = pl_;
    host_pl.totals = totals_.data();
    pl_.totals = dev_totals_.get();
    agreed_phase(*comm_, [&] {
      if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::before_first_step});
    });
    for (int64_t t = 1; t <= pl_.total_steps; ++t) split_step(host_pl, t);
    if (pl_.total_steps == 0 && pl_.has_local) agreed_phase(*comm_, [&] { exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::after_last_step}); });
    if (split_failed()) return broken_rule();
    read_figures(result);
    agreed_phase(*comm_, [&] { result.buffers = fetch_block(); });
    if (c_.verify) agreed_phase(*comm_, [&] { record_verification(c_, verify_block(c_, result.buffers, *comm_), result); });
    if (c_.keep_buffers) agreed_phase(*comm_, [&] { gather_blocks(*comm_, result.buffers); });
    else std::vector<std::vector<uint64_t>>().swap(result.buffers);
    return result;
  }

  // Step t of a split run: the round sent in it posted and matched where the block is, the
  // exchange with the other ranks, the imported messages matched, the costs; then the arrivals
  // delivered (run_step's phases, with the exchange between match and cost).
  void split_step(const StepPlan& pl, int64_t t) {
    const int r = pl.round_sent_at(t);
    if (r > 0) {
      const RoundTotals& n = pl.totals[r - 1];
      agreed_phase(*comm_, [&] {
        exec_.exclusive_scan(pl.p + 1, SlotCount{pl.ctx, r, t}, SumOf{}, Slots{0, 0, 0}, pl.slot_of(t));
        exec_.groups(pl.p, PostBody{pl.ctx, r, t, pl.slot_of(t), pl.sends_of(t), pl.recvs_of(t), pl.pool_of(t), pl.lost_of(r)}, pl.width(r));
        if (n.sends > 0) exec_.each(n.sends, MatchBody{pl.ctx, t, pl.sends_of(t), pl.recvs_of(t), pl.slot_of(t), pl.link_load});
      });
      exchange(pl, t, r);
      agreed_phase(*comm_, [&] {
        if (n.sends > 0)
          exec_.reduce(n.sends, CostOf{pl.ctx, t, pl.sends_of(t), pl.slot_of(t), pl.link_load}, PeakOf{}, RoundPeak{0, 0.0},
                       pl.peaks + (r - 1));
        if (n.recvs > 0) exec_.each(n.recvs, UnmatchedBody{pl.ctx, t, pl.recvs_of(t)});
      });
    }
    agreed_phase(*comm_, [&] {
      const int64_t j = pl.clock.sent_before(t);
      if (j >= 1) {
        const int arrived = pl.round_sent_at(j);
        if (arrived > 0 && pl.totals[arrived - 1].recvs > 0)
          exec_.groups(pl.p,
                       DeliverBody{pl.ctx, t, r > 0 && pl.check_exchange, pl.recvs_of(j), pl.slot_of(j), pl.pool_of(j), pl.sends_of(t),
                                   pl.slot_of(t)},
                       pl.width(arrived));
      }
      if (t == pl.total_steps && pl.has_local) exec_.each(pl.p, LocalBody{pl.ctx, LocalPhase::after_last_step, t});
    });
  }

  // The exchange of step t (round r), through host memory: the links' loads summed over the ranks
  // (routed topologies), every message to another rank's processor shipped with the parts of its
  // cost its sender's rank knows, and the messages shipped here laid after the block's own in the
  // step's pool and matched with their receives (step_rules.h's rules, as for a local message).
  void exchange(const StepPlan& pl, int64_t t, int r) {
    const Ctx& ctx = pl.ctx;
    const RoundTotals& n = pl.totals[r - 1];
    const uint32_t stamp = uint32_t(t);
    const Topology& topo = ctx.machine.topo;
    const bool direct = direct_links(topo);
    std::vector<Slots> slot(size_t(p_ + 1));
    std::vector<DevSend> sends(size_t(n.sends));
    exec_.download(slot.data(), pl.slot_of(t), slot.size() * sizeof(Slots));
    exec_.download(sends.data(), pl.sends_of(t), sends.size() * sizeof(DevSend));
    std::vector<uint64_t> words(size_t(slot.back().words));
    exec_.download(words.data(), pl.pool_of(t), words.size() * 8);
    if (!direct) {
      const int64_t space = link_space(topo);
      links_.resize(size_t(space));
      exec_.download(links_.data(), pl.link_load, links_.size() * sizeof(unsigned long long));
      const int64_t own_lo = block_begin(space, comm_->rank(), comm_->size()), own_hi = block_end(space, comm_->rank(), comm_->size());
      std::vector<std::pair<int64_t, int64_t>> asked;
      for (int64_t id = 0; id < space; ++id)
        if ((id < own_lo || id >= own_hi) && rules::link_load_at(links_[size_t(id)], stamp) > 0)
          asked.emplace_back(id, rules::link_load_at(links_[size_t(id)], stamp));
      int64_t link_words = 0;
      const std::vector<int64_t> totals = rules::sum_link_counts(
          *comm_, space, asked, [&](int64_t id) -> unsigned long long& { return links_[size_t(id)]; }, stamp, link_words);
      for (size_t i = 0; i < asked.size(); ++i)
        links_[size_t(asked[i].first)] = (static_cast<unsigned long long>(stamp) << 32) | uint64_t(totals[i]);
      exec_.upload(pl.link_load, links_.data(), links_.size() * sizeof(unsigned long long));
    }
    auto sizes = [&](auto&& fn) {
      for (const DevSend& x : sends)
        if (!ctx.holds(x.to)) fn(x.to, x.len);
    };
    size_t next = 0;
    auto next_message = [&](rules::Crossing& out, const uint64_t*& payload) {
      while (next < sends.size() && ctx.holds(sends[next].to)) ++next;
      if (next == sends.size()) return false;
      const int64_t s = int64_t(next++);
      const DevSend& x = sends[size_t(s)];
      const int64_t first = slot[size_t(x.from - ctx.lo)].sends, end = slot[size_t(x.from - ctx.lo + 1)].sends;
      const int64_t charged = rules::charged_words(ctx.tokens, x.len);
      const rules::CostParts cost =
          direct ? rules::direct_parts(c_.cost, x.from, rules::direct_congestion(sends.data(), first, end, x.to), charged)
                 : rules::route_parts_with(ctx.machine, c_.cost, x.from, x.to, charged, x.hops, x.route,
                                           [&](int64_t id) { return rules::link_load_at(links_[size_t(id)], stamp); });
      out = rules::Crossing{x.from, x.to, x.buf, rules::occurrence(sends.data(), first, s), x.len, x.hops,
                            cost.congestion, cost.startup, cost.word_time};
      payload = words.data() + x.pool_off;
      return true;
    };
    rules::SplitTraffic traffic;
    std::vector<std::vector<uint64_t>> imports = rules::ship_crossing(*comm_, run_processors(c_), sizes, next_message, traffic);
    std::vector<DevSend>().swap(sends);
    std::vector<uint64_t>().swap(words);
    // The imported messages: matched on the host, their payloads laid after the block's own words.
    std::vector<DevRecv> recvs(size_t(n.recvs));
    exec_.download(recvs.data(), pl.recvs_of(t), recvs.size() * sizeof(DevRecv));
    std::vector<uint64_t> payloads;
    const int64_t base = slot.back().words;
    bool matched = false;
    RoundPeak& peak = import_peaks_[size_t(r - 1)];
    for (const std::vector<uint64_t>& in : imports)
      for (size_t at = 0; at < in.size();) {
        const rules::Crossing x = rules::read_crossing(in.data() + at);
        const uint64_t* payload = in.data() + at + rules::kCrossingWords;
        at += rules::kCrossingWords + size_t(x.len);
        const Slots& first = slot[size_t(x.to - ctx.lo)];
        DevRecv* match = rules::matching_receive(recvs.data() + first.recvs, slot[size_t(x.to - ctx.lo + 1)].recvs - first.recvs, x.from,
                                                 int(x.occurrence));
        if (!match || match->len != x.len || base + int64_t(payloads.size()) + x.len > pl.store.words) {
          split_error_ = std::min(split_error_, (static_cast<unsigned long long>(t) << 32) | uint64_t(x.from));
          continue;
        }
        match->pool_off = base + int64_t(payloads.size());
        payloads.insert(payloads.end(), payload, payload + x.len);
        matched = true;
        const int64_t combined = rules::charged_combined_words(ctx.tokens, match->act, match->nact, match->len);
        peak = PeakOf{}(peak, RoundPeak{x.congestion, message_time_of(c_.cost, x.startup, x.word_time, x.hops, combined)});
      }
    std::vector<std::vector<uint64_t>>().swap(imports);
    if (matched) {
      exec_.upload(pl.recvs_of(t), recvs.data(), recvs.size() * sizeof(DevRecv));
      exec_.upload(pl.pool_of(t) + base, payloads.data(), payloads.size() * 8);
    }
  }

  // Whether a rule was broken on any rank (on the executor, or by a message shipped here).
  bool split_failed() {
    RunStatus s{};
    exec_.download(&s, status_.get(), sizeof s);
    split_error_ = std::min(split_error_, s.error);
    int64_t any[1] = {split_error_ != kNoError ? 1 : 0};
    comm_->sum(any, 1);
    return any[0] > 0;
  }

  // A rule was broken: the CPU backend's split run, under the same rules, reports it as one
  // process does (every rank throws the same AgreedError). Should it find none, the lowest
  // processor's record is reported.
  RunResult broken_rule() {
    run_cpu(c_);
    agreed_phase(*comm_, [&] {
      if (split_error_ == kNoError) return;
      const int64_t proc = int64_t(split_error_ & 0xffffffffull);
      throw ProcessorError(proc, "step " + std::to_string(split_error_ >> 32) + ": processor " + std::to_string(proc) +
                                     " breaks the schedule (detected by the " + exec_.name() + ")");
    });
    throw AgreedError(true, "a rank's record of a broken rule was lost");  // (not reached: some rank had one)
  }

  // Rounds' messages, words and link-hops summed, and their peaks maximized, over the ranks.
  void combine_rounds(std::vector<RoundPeak>& peaks) {
    std::vector<int64_t> sums;
    std::vector<double> maxima;
    for (int r = 0; r < nrounds_; ++r) {
      const RoundTotals& n = totals_[size_t(r)];
      sums.insert(sums.end(), {int64_t(n.sends), int64_t(n.words), int64_t(n.hops)});
      const RoundPeak pk = PeakOf{}(peaks[size_t(r)], import_peaks_[size_t(r)]);
      maxima.insert(maxima.end(), {double(pk.max_load), pk.max_time});
    }
    if (nrounds_ == 0) return;
    comm_->sum(sums.data(), int(sums.size()));
    comm_->max(maxima.data(), int(maxima.size()));
    for (int r = 0; r < nrounds_; ++r) {
      RoundTotals& n = totals_[size_t(r)];
      n.sends = sums[size_t(3 * r)];
      n.words = sums[size_t(3 * r + 1)];
      n.hops = sums[size_t(3 * r + 2)];
      peaks[size_t(r)] = RoundPeak{static_cast<long long>(maxima[size_t(2 * r)]), maxima[size_t(2 * r + 1)]};
    }
  }

  // The block's buffers, switch agents left out.
  std::vector<std::vector<uint64_t>> fetch_block() {
    std::vector<std::vector<uint64_t>> host(size_t(pl_.ctx.nbuf()));
    const int64_t held = std::max<int64_t>(0, std::min(c_.params.p, pl_.ctx.hi) - pl_.ctx.lo);
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      host[size_t(b)].resize(size_t(held * pl_.ctx.words(b)));
      exec_.download(host[size_t(b)].data(), pl_.ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  }

  const RunConfig& c_;
  Exec& exec_;
  Collectives* const comm_;  // the ranks of a split run, or null
  const int64_t p_;          // the processors held here
  const int nrounds_;
  const PostalTable postal_;  // seed 000's G for the run: the postal algorithms' steps read it
  StepPlan pl_{};
  std::vector<RoundTotals> totals_;
  Array<RunStatus> status_;
  Array<int64_t> postal_g_;
  Array<RoundTotals> dev_totals_;
  Array<CostParams> cost_;
  Array<Failures> failures_;
  Array<uint64_t> bufs_[kMaxBuffers];
  Array<unsigned long long> link_load_;
  Array<Slots> slot_;
  Array<DevSend> sends_;
  Array<DevRecv> recvs_;
  Array<uint64_t> pool_;
  Array<RoundPeak> peaks_;
  Array<unsigned long long> lost_;
  // A split run's host side: the links' stamped loads, the peaks of the messages shipped here, and
  // the first rule one of them broke.
  std::vector<unsigned long long> links_;
  std::vector<RoundPeak> import_peaks_;
  unsigned long long split_error_ = kNoError;
};

template <class Exec>
RunResult run_rounds(const RunConfig& c, Exec& exec) {
  if (Collectives* comm = split_ranks(c)) {
    agreed_phase(*comm, [&] { validate_config(c, false); });
    const auto start = std::chrono::steady_clock::now();
    RunResult result = RoundsRun<Exec>(c, exec).run();
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  validate_config(c, false);
  if (c.keep_buffers) require_host_memory(state_bytes(c), "the final buffers, copied back");
  const auto start = std::chrono::steady_clock::now();
  RunResult result = RoundsRun<Exec>(c, exec).run();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace rounds
}  // namespace ppsim
