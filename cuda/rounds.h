// The CUDA backend's orchestration of a run, written once over an executor: DeviceExec
// (backend.cu: kernels and CUB on a stream of its own) or HostExec (host_rounds.cpp: the same
// bodies one index at a time, so CI checks this logic without a GPU).
//
// A run returns to the host twice, not once per step:
//   1. sizing: every round's ops are a pure function of (processor, round), so one pass of count
//      bodies with sum reductions gives every round's sends, receives and payload words; the host
//      reads those totals, checks the device memory they need and allocates everything once;
//   2. the steps are then queued back to back (count, exclusive sums, post, match, cost with max
//      reductions, unmatched check, deliver), each round's figures and the first broken rule kept
//      on the executor, and read back with the buffers at the end.
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

// Memory a run needs besides what the sizing pass finds (its estimate before the run).
inline uint64_t state_bytes(const RunConfig& c) {
  uint64_t bytes = run_total_words(c) * 8;
  const Topology& t = physical_topology(c);
  if (!direct_links(t)) bytes += uint64_t(link_space(t)) * 8;
  return bytes;
}

// A round's totals, as the sizing pass sums them (three contiguous counters).
struct RoundTotals {
  long long sends, recvs, words;
};

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
  const uint64_t first_bytes = state_bytes(c) + uint64_t(p) * 6 * 8;
  exec.require(first_bytes, first_bytes);

  typename Exec::template Array<uint64_t> bufs[kMaxBuffers];
  for (int b = 0; b < ctx.nbuf; ++b) {
    bufs[b].ensure(size_t(p * ctx.words[b]));
    ctx.bufs[b] = bufs[b].get();
  }
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
  typename Exec::template Array<unsigned long long> link_load;
  if (!direct_links(ctx.topo)) {
    link_load.ensure(size_t(std::max<int64_t>(1, link_space(ctx.topo))));
    exec.zero(link_load.get(), size_t(link_space(ctx.topo)) * sizeof(unsigned long long));
  }
  for (int b = 0; b < ctx.nbuf; ++b) exec.each(p * ctx.words[b], InitBody{ctx, op, c.input, b});

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

  // 1. Sizing: every round's totals.
  struct Store {
    typename Exec::template Array<long long> nsend, nrecv, nwords, send_begin, recv_begin, pool_begin;
    typename Exec::template Array<DevSend> sends;
    typename Exec::template Array<DevRecv> recvs;
    typename Exec::template Array<uint64_t> pool;
    typename Exec::template Array<long long> load;
    typename Exec::template Array<double> time;
    int round = 0;  // the round whose messages it holds (0: none)
  };
  // Messages in flight at once: a postal-native algorithm sends in every step (lambda stores); a
  // round-based one every lambda steps, and its messages arrive before its next round (one store).
  const int nstores = run_store_count(c);
  std::vector<Store> stores(static_cast<size_t>(nstores));
  for (auto& s : stores)
    for (auto* arr : {&s.nsend, &s.nrecv, &s.nwords, &s.send_begin, &s.recv_begin, &s.pool_begin}) arr->ensure(size_t(p));
  std::vector<RoundTotals> totals(static_cast<size_t>(nrounds));  // totals[r - 1]: round r
  if (nrounds > 0) {
    typename Exec::template Array<RoundTotals> dev_totals;
    dev_totals.ensure(totals.size());
    exec.reserve_scratch(p, 0);
    Store& s = stores[0];
    for (int r = 1; r <= nrounds; ++r) {
      RoundTotals* at = dev_totals.get() + (r - 1);
      exec.each(p, CountBody{ctx, r, step_of_round(r), s.nsend.get(), s.nrecv.get(), s.nwords.get()});
      exec.sum(s.nsend.get(), &at->sends, p);
      exec.sum(s.nrecv.get(), &at->recvs, p);
      exec.sum(s.nwords.get(), &at->words, p);
    }
    exec.download(totals.data(), dev_totals.get(), totals.size() * sizeof(RoundTotals));
    read_status();
  }
  // Who moves a round's words: a block per processor when its messages average kBlockWords words
  // or more, a warp from kWarpWords, else a thread.
  auto width = [&](int r) {
    const RoundTotals& n = totals[size_t(r - 1)];
    if (n.sends > 0 && n.words >= kBlockWords * n.sends) return GroupWidth::block;
    if (n.sends > 0 && n.words >= kWarpWords * n.sends) return GroupWidth::warp;
    return GroupWidth::thread;
  };
  long long max_sends = 1, max_recvs = 1, max_words = 1;
  for (const RoundTotals& n : totals) {
    max_sends = std::max(max_sends, n.sends);
    max_recvs = std::max(max_recvs, n.recvs);
    max_words = std::max(max_words, n.words);
  }
  const uint64_t per_store = uint64_t(max_sends) * (sizeof(DevSend) + sizeof(long long) + sizeof(double)) +
                             uint64_t(max_recvs) * sizeof(DevRecv) + uint64_t(max_words) * 8;
  const uint64_t more = uint64_t(nstores) * per_store + uint64_t(std::max(1, nrounds)) * sizeof(RoundStats);
  exec.require(more, state_bytes(c) + uint64_t(nstores) * (uint64_t(p) * 6 * 8) + more);
  for (auto& s : stores) {
    s.sends.ensure(size_t(max_sends));
    s.recvs.ensure(size_t(max_recvs));
    s.pool.ensure(size_t(max_words));
    s.load.ensure(size_t(max_sends));
    s.time.ensure(size_t(max_sends));
  }
  typename Exec::template Array<RoundStats> stats;
  stats.ensure(size_t(std::max(1, nrounds)));
  exec.zero(stats.get(), size_t(std::max(1, nrounds)) * sizeof(RoundStats));
  exec.reserve_scratch(p, max_sends);

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

  // 2. The steps, queued back to back.
  for (int64_t t = 1; t <= total_steps; ++t) {
    Store& s = stores[size_t(t % nstores)];  // this step's sends (in flight: untouched until then)
    const int sent = round_sent_at(t);
    if (sent > 0) s.round = sent;
    if (const int r = sent; r > 0) {
      const long long nsends = totals[size_t(r - 1)].sends, nrecvs = totals[size_t(r - 1)].recvs;
      RoundStats* rs = stats.get() + (r - 1);
      exec.each(p, CountBody{ctx, r, t, s.nsend.get(), s.nrecv.get(), s.nwords.get()});
      exec.exclusive_sum(s.nsend.get(), s.send_begin.get(), p);
      exec.exclusive_sum(s.nrecv.get(), s.recv_begin.get(), p);
      exec.exclusive_sum(s.nwords.get(), s.pool_begin.get(), p);
      exec.groups(p, PostBody{ctx, r, s.send_begin.get(), s.recv_begin.get(), s.pool_begin.get(), s.sends.get(), s.recvs.get(),
                              s.pool.get()},
                  width(r));
      if (nsends > 0) {
        exec.each(nsends, MatchBody{ctx, t, rs, s.sends.get(), s.recvs.get(), s.send_begin.get(), s.recv_begin.get(), s.nrecv.get(),
                                    link_load.get()});
        exec.each(nsends, CostBody{ctx, t, s.sends.get(), s.send_begin.get(), s.nsend.get(), link_load.get(), s.load.get(),
                                   s.time.get()});
        exec.max(s.load.get(), &rs->max_load, nsends);
        exec.max(s.time.get(), &rs->max_time, nsends);
      }
      if (nrecvs > 0) exec.each(nrecvs, UnmatchedBody{ctx, t, s.recvs.get()});
    }
    const int64_t j = t - lambda + 1;  // the messages sent in step j arrive now
    if (j >= 1) {
      Store& arrived = stores[size_t(j % nstores)];
      if (arrived.round > 0 && step_of_round(arrived.round) == j && totals[size_t(arrived.round - 1)].recvs > 0) {
        const bool check = sent > 0 && (c.ports.model == PortModel::half_duplex || c.ports.model == PortModel::telephone);
        exec.groups(p, DeliverBody{ctx, t, check, arrived.recvs.get(), arrived.recv_begin.get(), arrived.nrecv.get(),
                                   arrived.pool.get(), s.sends.get(), s.send_begin.get(), s.nsend.get()},
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

  // Back on the host: the first broken rule, the rounds' figures, the buffers.
  read_status();
  std::vector<RoundStats> host_stats(size_t(std::max(1, nrounds)));
  exec.download(host_stats.data(), stats.get(), host_stats.size() * sizeof(RoundStats));
  for (int64_t t = 1; t <= total_steps; ++t) {
    StepStats st;
    st.step = t;
    if (const int r = round_sent_at(t); r > 0) {
      const RoundStats& rs = host_stats[size_t(r - 1)];
      st.messages = int64_t(rs.messages);
      st.words = int64_t(rs.words);
      st.link_hops = int64_t(rs.hops);
      st.max_link_load = rs.max_load;
      st.time = rs.max_time;
    }
    add_step(result, st, lambda);
  }
  result.steps = total_steps;
  if (c.keep_buffers || !c.verify) {
    if (c.keep_buffers) result.buffers = fetch_buffers();
    finish_verification(c, result);
  } else if (count_mismatches(c, exec, ctx) == 0) {  // verified where the buffers are
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
