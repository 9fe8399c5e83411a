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
  ctx.topo = physical_topology(c);
  ctx.mapped = c.mapped;
  ctx.mapping = c.mapping;
  ctx.op = c.combine;
  ctx.cost = c.cost;
  ctx.port_model = c.ports.model;
  ctx.port_limit = c.ports.model == PortModel::kport ? c.ports.k : c.ports.model == PortModel::all ? kMaxOps : 1;
  ctx.nbuf = run_buffer_count(c);
  for (int b = 0; b < ctx.nbuf; ++b) ctx.words[b] = run_buffer_words(c, b);
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

// One store of messages in flight: the step's slots (exclusive scan over processors 0..p), its
// sends, receives and payload pool.
template <class Exec>
struct Store {
  typename Exec::template Array<Slots> slot;
  typename Exec::template Array<DevSend> sends;
  typename Exec::template Array<DevRecv> recvs;
  typename Exec::template Array<uint64_t> pool;
  int round = 0;  // the round whose messages it holds (0: none)
};

template <class Exec>
RunResult run_rounds(const RunConfig& c, Exec& exec) {
  validate_config(c, false);
  if (c.keep_buffers) require_host_memory(state_bytes(c), "the final buffers, copied back");
  const auto start = std::chrono::steady_clock::now();
  const Operation op = c.algorithm->op;
  const int64_t p = c.params.p;
  const int lambda = std::max(1, c.params.lambda);
  const bool postal_native = c.algorithm->postal_native();
  const int nrounds = c.algorithm->rounds(c.params);
  const int64_t total_steps = postal_native ? int64_t(nrounds) : int64_t(nrounds) * lambda;
  auto step_of_round = [&](int r) { return postal_native ? int64_t(r) : int64_t(r - 1) * lambda + 1; };
  auto round_sent_at = [&](int64_t t) {  // the round whose messages leave in step t, 0: none
    return postal_native ? int(t) : (t - 1) % lambda == 0 ? int((t - 1) / lambda) + 1 : 0;
  };

  Ctx ctx = make_ctx(c);
  ctx.ops_override = exec.accepts_test_hook() ? c.test_ops_override : nullptr;
  typename Exec::template Array<RunStatus> status;
  status.ensure(1);
  const RunStatus clear{kNoError};
  exec.upload(status.get(), &clear, sizeof clear);
  ctx.status = status.get();
  // Seed 000's G for the run, in the executor's memory: the postal algorithms' steps read it.
  const PostalTable postal(c.params);
  typename Exec::template Array<int64_t> postal_g;
  postal_g.ensure(postal.values().size());
  exec.upload(postal_g.get(), postal.values().data(), postal.values().size() * sizeof(int64_t));
  postal.attach(ctx.a, postal_g.get());

  // A rule was broken: the CPU backend, running the same code, gives the exact message.
  auto report_error = [&](unsigned long long key) {
    run_cpu(c);
    throw ScheduleError("step " + std::to_string(key >> 32) + ": processor " + std::to_string(key & 0xffffffffull) +
                        " breaks the schedule (detected by the " + exec.name() + ")");
  };
  auto read_status = [&]() {
    RunStatus s{};
    exec.download(&s, status.get(), sizeof s);
    if (s.error != kNoError) report_error(s.error);
  };

  // 1. Sizing: every round's totals, one reduction a round over the processors' ops.
  std::vector<RoundTotals> totals(static_cast<size_t>(nrounds));  // totals[r - 1]: round r
  if (nrounds > 0) {
    typename Exec::template Array<RoundTotals> dev_totals;
    dev_totals.ensure(totals.size());
    for (int r = 1; r <= nrounds; ++r)
      exec.reduce(p, RoundCount{ctx, r, step_of_round(r)}, SumOf{}, RoundTotals{0, 0, 0, 0}, dev_totals.get() + (r - 1));
    exec.download(totals.data(), dev_totals.get(), totals.size() * sizeof(RoundTotals));
    read_status();
  }

  // 2. Memory: all of it checked at once, then taken.
  // Messages in flight at once: a postal-native algorithm sends in every step (lambda stores); a
  // round-based one every lambda steps, and its messages arrive before its next round (one store).
  const int nstores = run_store_count(c);
  const StoreSizes most = largest_round(totals);
  const uint64_t scratch = std::max(exec.scan_scratch(p + 1, SlotCount{ctx, 1, 1}, SumOf{}, Slots{0, 0, 0}),
                                    exec.reduce_scratch(most.sends, CostOf{ctx, 1, nullptr, nullptr, nullptr}, PeakOf{}, RoundPeak{0, 0.0}));
  exec.require(run_bytes(c, most, nstores, scratch));
  exec.reserve_scratch(scratch);
  typename Exec::template Array<uint64_t> bufs[kMaxBuffers];
  for (int b = 0; b < ctx.nbuf; ++b) {
    bufs[b].ensure(size_t(p * ctx.words[b]));
    ctx.bufs[b] = bufs[b].get();
  }
  typename Exec::template Array<unsigned long long> link_load;
  if (!direct_links(ctx.topo)) {
    link_load.ensure(size_t(std::max<int64_t>(1, link_space(ctx.topo))));
    exec.zero(link_load.get(), size_t(link_space(ctx.topo)) * sizeof(unsigned long long));
  }
  std::vector<Store<Exec>> stores(static_cast<size_t>(nstores));
  for (auto& s : stores) {
    s.slot.ensure(size_t(p + 1));
    s.sends.ensure(size_t(most.sends));
    s.recvs.ensure(size_t(most.recvs));
    s.pool.ensure(size_t(most.words));
  }
  typename Exec::template Array<RoundPeak> peaks;
  peaks.ensure(size_t(std::max(1, nrounds)));
  exec.zero(peaks.get(), size_t(std::max(1, nrounds)) * sizeof(RoundPeak));
  for (int b = 0; b < ctx.nbuf; ++b) exec.each(p * ctx.words[b], InitBody{ctx, op, c.input, b});

  // Who moves a round's words: a block per processor when its messages average kBlockWords words
  // or more, a warp from kWarpWords, else a thread.
  auto width = [&](int r) {
    const RoundTotals& n = totals[size_t(r - 1)];
    if (n.sends > 0 && n.words >= kBlockWords * n.sends) return GroupWidth::block;
    if (n.sends > 0 && n.words >= kWarpWords * n.sends) return GroupWidth::warp;
    return GroupWidth::thread;
  };

  RunResult result;
  result.backend = exec.backend();
  auto fetch_buffers = [&]() {
    std::vector<std::vector<uint64_t>> host(size_t(ctx.nbuf));
    for (int b = 0; b < ctx.nbuf; ++b) {
      host[size_t(b)].resize(size_t(p * ctx.words[b]));
      exec.download(host[size_t(b)].data(), ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  };
  auto local = [&](LocalPhase phase) {
    if (c.algorithm->has_local) exec.each(p, LocalBody{ctx, phase});
  };
  local(LocalPhase::before_first_step);
  if (c.trace) result.trace.push_back(TraceStep{0, fetch_buffers(), {}});

  // 3. The steps, queued back to back.
  for (int64_t t = 1; t <= total_steps; ++t) {
    Store<Exec>& s = stores[size_t(t % nstores)];  // this step's sends (in flight: untouched until then)
    const int sent = round_sent_at(t);
    if (sent > 0) s.round = sent;
    if (const int r = sent; r > 0) {
      // The round's ops: every processor's slots (one scan), then its messages posted, matched to
      // their receives and loaded onto their links, then the round's peak load and time.
      const RoundTotals& n = totals[size_t(r - 1)];
      exec.exclusive_scan(p + 1, SlotCount{ctx, r, t}, SumOf{}, Slots{0, 0, 0}, s.slot.get());
      exec.groups(p, PostBody{ctx, r, s.slot.get(), s.sends.get(), s.recvs.get(), s.pool.get()}, width(r));
      if (n.sends > 0) {
        exec.each(n.sends, MatchBody{ctx, t, s.sends.get(), s.recvs.get(), s.slot.get(), link_load.get()});
        exec.reduce(n.sends, CostOf{ctx, t, s.sends.get(), s.slot.get(), link_load.get()}, PeakOf{}, RoundPeak{0, 0.0},
                    peaks.get() + (r - 1));
      }
      if (n.recvs != n.sends) exec.each(n.recvs, UnmatchedBody{ctx, t, s.recvs.get()});
    }
    const int64_t j = t - lambda + 1;  // the messages sent in step j arrive now
    if (j >= 1) {
      Store<Exec>& arrived = stores[size_t(j % nstores)];
      if (arrived.round > 0 && step_of_round(arrived.round) == j && totals[size_t(arrived.round - 1)].recvs > 0) {
        const bool check = sent > 0 && (c.ports.model == PortModel::half_duplex || c.ports.model == PortModel::telephone);
        exec.groups(p, DeliverBody{ctx, t, check, arrived.recvs.get(), arrived.slot.get(), arrived.pool.get(), s.sends.get(), s.slot.get()},
                    width(arrived.round));
      }
    }
    if (t == total_steps) local(LocalPhase::after_last_step);
    if (c.trace) {
      read_status();
      TraceStep ts{t, fetch_buffers(), {}};
      const long long nsends = sent > 0 ? totals[size_t(sent - 1)].sends : 0;
      if (nsends > 0) {
        std::vector<DevSend> sends(static_cast<size_t>(nsends));
        exec.download(sends.data(), s.sends.get(), sends.size() * sizeof(DevSend));
        for (const auto& x : sends) ts.messages.push_back(TraceMessage{x.from, x.to, x.len, x.src_off, x.buf, t, t + lambda - 1});
      }
      result.trace.push_back(std::move(ts));
    }
  }
  if (total_steps == 0) {
    local(LocalPhase::after_last_step);
    if (c.trace) { result.trace.clear(); result.trace.push_back(TraceStep{0, fetch_buffers(), {}}); }
  }

  // Back on the host: the first broken rule, the rounds' peaks, the buffers.
  read_status();
  std::vector<RoundPeak> host_peaks(size_t(std::max(1, nrounds)));
  exec.download(host_peaks.data(), peaks.get(), host_peaks.size() * sizeof(RoundPeak));
  for (int64_t t = 1; t <= total_steps; ++t) {
    StepStats st;
    st.step = t;
    if (const int r = round_sent_at(t); r > 0) {
      const RoundTotals& n = totals[size_t(r - 1)];
      st.messages = int64_t(n.sends);
      st.words = int64_t(n.words);
      st.link_hops = int64_t(n.hops);
      st.max_link_load = host_peaks[size_t(r - 1)].max_load;
      st.time = host_peaks[size_t(r - 1)].max_time;
    }
    add_step(result, st, lambda);
  }
  result.steps = total_steps;
  if (c.keep_buffers || !c.verify) {
    if (c.keep_buffers) result.buffers = fetch_buffers();
    finish_verification(c, result);
  } else if (count_mismatches(c, exec, ctx, stores[0].pool.get(), uint64_t(most.words)) == 0) {  // verified where the buffers are
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
