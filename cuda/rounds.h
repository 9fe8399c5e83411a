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
#pragma once
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "ppsim/postal.h"
#include "round_bodies.h"
#include "run_rules.h"
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

// The context of a run's bodies: everything but the buffer, status and test-hook pointers.
inline Ctx make_ctx(const RunConfig& c) {
  Ctx ctx{};
  ctx.algo = c.algorithm->id;
  ctx.a = c.params;
  ctx.machine = run_machine(c);
  ctx.ports = run_port_rules(c);
  ctx.op = c.combine;
  ctx.cost = c.cost;
  return ctx;
}

// The largest round of a run: the sizes of one store of messages in flight.
struct StoreSizes {
  long long sends = 1, recvs = 1, words = 1;
};
inline StoreSizes largest_round(const std::vector<RoundTotals>& totals) {
  StoreSizes n;
  for (const RoundTotals& t : totals) {
    n.sends = std::max(n.sends, t.sends);
    n.recvs = std::max(n.recvs, t.recvs);
    n.words = std::max(n.words, t.words);
  }
  return n;
}

// Everything a run allocates on the executor after its sizing pass, in bytes: the check against
// free memory is made once, with this figure, before any of it is taken. `scratch` is what the
// executor's scans and reductions need. A run verified where its buffers are also needs the
// verification's fold table (unless the first store's message pool, free by then, holds it) and
// a counter.
inline uint64_t run_bytes(const RunConfig& c, const StoreSizes& n, int nstores, uint64_t scratch) {
  const int64_t p = c.params.p;
  const Topology& t = physical_topology(c);
  uint64_t bytes = run_total_words(c) * 8;                                            // the buffers
  if (!direct_links(t)) bytes += uint64_t(std::max<int64_t>(1, link_space(t))) * 8;  // link counters
  const uint64_t store = uint64_t(p + 1) * sizeof(Slots) + uint64_t(n.sends) * sizeof(DevSend) +
                         uint64_t(n.recvs) * sizeof(DevRecv) + uint64_t(n.words) * 8;
  bytes += uint64_t(nstores) * store;
  bytes += uint64_t(std::max(1, c.algorithm->rounds(c.params))) * sizeof(RoundPeak);  // the rounds' peaks
  bytes += scratch;
  if (c.verify && !c.keep_buffers) {
    const uint64_t table = verification_table_words(c);
    if (table > uint64_t(n.words)) bytes += table * 8;
    bytes += sizeof(unsigned long long);
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
  const RoundTotals* totals;                       // [rounds]: totals[r - 1] is round r
  RoundPeak* peaks;                                // [rounds]
  unsigned long long* link_load;
  Slots* slot;
  DevSend* sends;
  DevRecv* recvs;
  uint64_t* pool;
  StoreSizes store;  // one store's sends, receives and pool words (its slots: p + 1)

  PPSIM_HD int64_t step_of_round(int r) const { return clock.step_of_round(r); }
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
  exec.reduce(pl.p, RoundCount{pl.ctx, r, pl.step_of_round(r)}, SumOf{}, RoundTotals{0, 0, 0, 0}, out + (r - 1));
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
    exec.groups(pl.p, PostBody{ctx, r, slot, sends, recvs, pl.pool_of(t)}, pl.width(r));
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
  if (t == pl.total_steps && pl.has_local) exec.each(pl.p, LocalBody{ctx, LocalPhase::after_last_step});
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
    for (const auto& x : sent) ts.messages.push_back(TraceMessage{x.from, x.to, x.len, x.src_off, x.buf, t, pl.clock.arrives(t)});
  }
  return ts;
}

template <class Exec>
RunResult run_rounds(const RunConfig& c, Exec& exec) {
  validate_config(c, false);
  if (c.keep_buffers) require_host_memory(state_bytes(c), "the final buffers, copied back");
  const auto start = std::chrono::steady_clock::now();
  const int64_t p = c.params.p;
  const int nrounds = c.algorithm->rounds(c.params);
  StepPlan pl{};
  pl.ctx = make_ctx(c);
  pl.ctx.ops_override = exec.accepts_test_hook() ? c.test_ops_override : nullptr;
  pl.p = p;
  pl.clock = run_clock(c);
  pl.lambda = pl.clock.lambda;
  pl.total_steps = pl.clock.total_steps();
  pl.has_local = c.algorithm->has_local;
  pl.check_exchange = rules::checks_exchange(c.ports.model);
  // Messages in flight at once: a postal-native algorithm sends in every step (lambda stores); a
  // round-based one every lambda steps, and its messages arrive before its next round (one store).
  pl.nstores = run_store_count(c);

  typename Exec::template Array<RunStatus> status;
  status.ensure(1);
  const RunStatus clear{kNoError};
  exec.upload(status.get(), &clear, sizeof clear);
  pl.ctx.status = status.get();
  // Seed 000's G for the run, in the executor's memory: the postal algorithms' steps read it.
  const PostalTable postal(c.params);
  typename Exec::template Array<int64_t> postal_g;
  postal_g.ensure(postal.values().size());
  exec.upload(postal_g.get(), postal.values().data(), postal.values().size() * sizeof(int64_t));
  postal.attach(pl.ctx.a, postal_g.get());

  // A rule was broken: the CPU backend, running the same code, gives the exact message.
  auto read_status = [&]() {
    RunStatus s{};
    exec.download(&s, status.get(), sizeof s);
    if (s.error == kNoError) return;
    run_cpu(c);
    throw ScheduleError("step " + std::to_string(s.error >> 32) + ": processor " + std::to_string(s.error & 0xffffffffull) +
                        " breaks the schedule (detected by the " + exec.name() + ")");
  };

  // 1. Sizing: every round's totals, kept in the executor's memory (the steps read them there)
  // and read back once (the host sizes the stores and reports the figures from them).
  typename Exec::template Array<RoundTotals> dev_totals;
  dev_totals.ensure(size_t(std::max(1, nrounds)));
  std::vector<RoundTotals> totals(static_cast<size_t>(nrounds));  // totals[r - 1]: round r
  if (nrounds > 0) {
    if (exec.whole_run_fits(p, 0)) exec.size_in_one_launch(pl, dev_totals.get(), nrounds);
    else for (int r = 1; r <= nrounds; ++r) size_round(pl, exec, r, dev_totals.get());
    exec.download(totals.data(), dev_totals.get(), totals.size() * sizeof(RoundTotals));
    read_status();
  }

  // 2. Memory: all of it checked at once, then taken.
  pl.store = largest_round(totals);
  const uint64_t scratch = std::max(exec.scan_scratch(p + 1, SlotCount{pl.ctx, 1, 1}, SumOf{}, Slots{0, 0, 0}),
                                    exec.reduce_scratch(pl.store.sends, CostOf{pl.ctx, 1, nullptr, nullptr, nullptr}, PeakOf{}, RoundPeak{0, 0.0}));
  exec.require(run_bytes(c, pl.store, pl.nstores, scratch));
  exec.reserve_scratch(scratch);
  typename Exec::template Array<uint64_t> bufs[kMaxBuffers];
  for (int b = 0; b < pl.ctx.nbuf(); ++b) {
    bufs[b].ensure(size_t(p * pl.ctx.words(b)));
    pl.ctx.bufs[b] = bufs[b].get();
  }
  typename Exec::template Array<unsigned long long> link_load;
  if (!direct_links(pl.ctx.machine.topo)) {
    link_load.ensure(size_t(std::max<int64_t>(1, link_space(pl.ctx.machine.topo))));
    exec.zero(link_load.get(), size_t(link_space(pl.ctx.machine.topo)) * sizeof(unsigned long long));
    pl.link_load = link_load.get();
  }
  typename Exec::template Array<Slots> slot;
  typename Exec::template Array<DevSend> sends;
  typename Exec::template Array<DevRecv> recvs;
  typename Exec::template Array<uint64_t> pool;
  slot.ensure(size_t(pl.nstores) * size_t(p + 1));
  sends.ensure(size_t(pl.nstores) * size_t(pl.store.sends));
  recvs.ensure(size_t(pl.nstores) * size_t(pl.store.recvs));
  pool.ensure(size_t(pl.nstores) * size_t(pl.store.words));
  pl.slot = slot.get();
  pl.sends = sends.get();
  pl.recvs = recvs.get();
  pl.pool = pool.get();
  typename Exec::template Array<RoundPeak> peaks;
  peaks.ensure(size_t(std::max(1, nrounds)));
  exec.zero(peaks.get(), size_t(std::max(1, nrounds)) * sizeof(RoundPeak));
  pl.peaks = peaks.get();
  for (int b = 0; b < pl.ctx.nbuf(); ++b) exec.each(p * pl.ctx.words(b), InitBody{pl.ctx, c.algorithm->op, c.input, b});

  RunResult result;
  result.backend = exec.backend();
  auto fetch_buffers = [&]() {
    std::vector<std::vector<uint64_t>> host(size_t(pl.ctx.nbuf()));
    for (int b = 0; b < pl.ctx.nbuf(); ++b) {
      host[size_t(b)].resize(size_t(p * pl.ctx.words(b)));
      exec.download(host[size_t(b)].data(), pl.ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  };
  if (pl.has_local) exec.each(p, LocalBody{pl.ctx, LocalPhase::before_first_step});
  if (c.trace) result.trace.push_back(TraceStep{0, fetch_buffers(), {}});

  // 3. The steps: one launch for a run a thread block holds, else queued back to back; the step
  // code reads the totals where it runs.
  StepPlan host_pl = pl;
  host_pl.totals = totals.data();
  pl.totals = dev_totals.get();
  if (!c.trace && exec.whole_run_fits(p, pl.store.words)) {
    exec.steps_in_one_launch(pl);
  } else {
    for (int64_t t = 1; t <= pl.total_steps; ++t) {
      run_step(host_pl, exec, t);
      if (c.trace) result.trace.push_back(trace_step(host_pl, exec, t, fetch_buffers(), read_status));
    }
  }
  if (pl.total_steps == 0) {
    if (pl.has_local) exec.each(p, LocalBody{pl.ctx, LocalPhase::after_last_step});
    if (c.trace) { result.trace.clear(); result.trace.push_back(TraceStep{0, fetch_buffers(), {}}); }
  }

  // Back on the host: the first broken rule, the rounds' peaks, the buffers.
  read_status();
  std::vector<RoundPeak> host_peaks(size_t(std::max(1, nrounds)));
  exec.download(host_peaks.data(), peaks.get(), host_peaks.size() * sizeof(RoundPeak));
  for (int64_t t = 1; t <= pl.total_steps; ++t) {
    StepStats st;
    st.step = t;
    if (const int r = pl.round_sent_at(t); r > 0) {
      const RoundTotals& n = totals[size_t(r - 1)];
      st.messages = int64_t(n.sends);
      st.words = int64_t(n.words);
      st.link_hops = int64_t(n.hops);
      st.max_link_load = host_peaks[size_t(r - 1)].max_load;
      st.time = host_peaks[size_t(r - 1)].max_time;
    }
    add_step(result, st, pl.lambda);
  }
  result.steps = pl.total_steps;
  if (c.keep_buffers || !c.verify) {
    if (c.keep_buffers) result.buffers = fetch_buffers();
    finish_verification(c, result);
  } else if (count_mismatches(c, exec, pl.ctx, pool.get(), uint64_t(pl.store.words)) == 0) {  // verified where the buffers are
    result.verified = true;
  } else {  // the exact report (which words, what was expected) comes from the host reference
    result.buffers = fetch_buffers();
    finish_verification(c, result);
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace rounds
}  // namespace ppsim
