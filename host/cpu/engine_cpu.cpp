// The CPU backend: executes any registered algorithm step by step (docs/DESIGN.md §2-§3), with
// the rules of step_rules.h (the device rounds apply the same ones).
//
// Per send step t (processors split into contiguous chunks, one per thread):
//   pass 1  every processor asks the algorithm for its sends and receives of this round, checks
//           them against the port model, and copies each payload into its chunk's pool (so sends
//           read the start-of-step state);
//   pass 2  every send finds its receive at the destination and tells it where the payload is,
//           and adds one to the load of each directed link on its route;
//   pass 3  every message's congestion (busiest link on its route) gives its cost; receives that
//           no send matched are reported.
// At the end of step t, pass R applies the messages sent in step t - lambda + 1 (in receive order).
// The words of every schedule error are schedule_errors.cpp's.
// Storage is O(p + messages of lambda steps), never O(p * steps).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#if defined(PPSIM_HAVE_OPENMP)
#include <omp.h>
#endif

#include "algorithms/all.h"
#include "cpu/apply_words.h"
#include "cpu/schedule_errors.h"
#include "ppsim/engine.h"
#include "ppsim/postal.h"
#include "rules/run_rules.h"

namespace ppsim {

namespace {

// Compact records (processor ids fit in 31 bits: make_topology caps p at 2^31): the passes stream
// through these arrays, so their size is the engine's memory traffic.
struct StoredSend {
  int32_t from, to, buf, hops;
  int64_t src_off, len, pool_off;
  int64_t combined;  // words its receive combines (set when matched)
};

struct StoredRecv {
  int32_t proc, from, pool_chunk, more;  // more >= 0: all actions are in Chunk::more_actions from there
  int64_t len, pool_off;                 // pool_off < 0: not matched yet
  int64_t dst_off;                       // the common case: one contiguous action
  int64_t combined;                      // words its actions combine (rules::combined_words)
  int32_t buf;
  RecvMode mode;
};

struct Chunk {
  int64_t first = 0, last = 0;    // processors [first, last)
  std::vector<StoredSend> sends;  // in processor order
  std::vector<StoredRecv> recvs;  // in processor order
  std::vector<uint64_t> pool;
  std::vector<RecvAction> more_actions;  // second (and later) actions, as {count, actions...} runs
  StepStats stats;
  int64_t matched = 0;  // receives of this chunk's messages that found their send
  int64_t error_proc = -1;
  std::string error;

  // Keeps the error of the lowest processor, so the report does not depend on the thread count.
  void fail(int64_t proc, std::string message) {
    if (error_proc < 0 || proc < error_proc) {
      error_proc = proc;
      error = std::move(message);
    }
  }
};

// Everything sent in one step, kept until its messages arrive.
struct StepStore {
  bool active = false;
  int64_t send_step = 0;
  std::vector<Chunk> chunks;
  std::vector<int32_t> send_begin, recv_begin;  // per processor, index into its chunk's vectors
  std::vector<int32_t> send_count, recv_count;
};

class CpuRun {
 public:
  explicit CpuRun(const RunConfig& c)
      : c_(c), machine_(run_machine(c)), ports_(run_port_rules(c)), clock_(run_clock(c)), postal_(c.params), a_(postal_.attached(c.params)),
        p_(c.topology.p), op_(c.algorithm->op), tokens_(rules::carries_tokens(op_)), apply_(apply_for(c.combine)) {
    bufs_.resize(size_t(ports_.shape.nbuf));
    int threads = c.threads;
#if defined(PPSIM_HAVE_OPENMP)
    if (threads <= 0) threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    nchunks_ = int(std::max<int64_t>(1, std::min<int64_t>(threads, p_)));
    chunk_len_ = (p_ + nchunks_ - 1) / nchunks_;
    nchunks_ = int((p_ + chunk_len_ - 1) / chunk_len_);
  }

  RunResult run() {
    RunResult r;
    init_buffers();
    stores_.resize(size_t(run_store_count(c_)));
    for (auto& s : stores_) {
      s.chunks.resize(size_t(nchunks_));
      for (int k = 0; k < nchunks_; ++k) {
        s.chunks[k].first = k * chunk_len_;
        s.chunks[k].last = std::min(p_, (k + 1) * chunk_len_);
      }
      s.send_begin.assign(size_t(p_), 0);
      s.recv_begin.assign(size_t(p_), 0);
      s.send_count.assign(size_t(p_), 0);
      s.recv_count.assign(size_t(p_), 0);
    }
    if (!direct_links(topo())) link_load_.assign(size_t(link_space(topo())), 0);
    if (c_.algorithm->has_local) local_phase(LocalPhase::before_first_step);
    if (c_.trace) record_trace(r, stores_[0], 0);

    const int64_t total_steps = clock_.total_steps();
    for (int64_t t = 1; t <= total_steps; ++t) {
      StepStore& s = stores_[t % int64_t(stores_.size())];  // this step's sends (in flight: untouched until then)
      StepStats st;
      st.step = t;
      if (const int round = clock_.round_sent_at(t); round > 0) {
        s.active = true;
        s.send_step = t;
        parallel([&](Chunk& ch, int) { post_round(s, ch, round, t); }, s, "post");
        parallel([&](Chunk& ch, int k) { match_and_load(s, ch, k, t); }, s, "match");
        if (!direct_links(topo())) parallel([&](Chunk& ch, int) { routed_cost(ch, t); }, s, "cost");
        int64_t posted = 0, matched = 0;
        for (auto& ch : s.chunks) {
          posted += int64_t(ch.recvs.size());
          matched += ch.matched;
        }
        if (posted != matched) parallel([&](Chunk& ch, int) { unmatched_receives(ch, t); }, s, "unmatched");
        for (auto& ch : s.chunks) {
          st.messages += ch.stats.messages;
          st.words += ch.stats.words;
          st.link_hops += ch.stats.link_hops;
          st.max_link_load = std::max(st.max_link_load, ch.stats.max_link_load);
          st.time = std::max(st.time, ch.stats.time);
        }
      }
      const int64_t j = clock_.sent_before(t);
      if (j >= 1) {
        StepStore& arrived = stores_[j % int64_t(stores_.size())];
        if (arrived.active && arrived.send_step == j)
          parallel([&](Chunk& ch, int k) { deliver(arrived, s, ch, k, t); }, arrived, "deliver");
      }
      add_step(r, st, clock_.lambda);
      if (t == total_steps && c_.algorithm->has_local) local_phase(LocalPhase::after_last_step);
      if (c_.trace) record_trace(r, s, t);
    }
    if (total_steps == 0 && c_.algorithm->has_local) {
      local_phase(LocalPhase::after_last_step);
      if (c_.trace) {
        r.trace.clear();
        record_trace(r, stores_[0], 0);
      }
    }
    r.steps = total_steps;
    add_local_folds(r, c_.cost.gamma, c_.algorithm->local_combined_words(c_.params), clock_.lambda);
    r.buffers = std::move(bufs_);
    return r;
  }

 private:
  const Topology& topo() const { return machine_.topo; }
  int64_t words(int32_t b) const { return ports_.shape.words[b]; }

  template <class F>
  void parallel(F&& body, StepStore& s, const char*) {
    for (auto& ch : s.chunks) {
      ch.error_proc = -1;
      ch.error.clear();
    }
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(nchunks_) if (nchunks_ > 1)
#endif
    for (int k = 0; k < nchunks_; ++k) body(s.chunks[size_t(k)], k);
    for (auto& ch : s.chunks)  // chunks are in processor order: the first error is the lowest processor's
      if (ch.error_proc >= 0) throw ScheduleError(ch.error);
  }

  void init_buffers() {
    for (int b = 0; b < ports_.shape.nbuf; ++b) {
      bufs_[b].assign(size_t(p_ * words(b)), 0);
      uint64_t* data = bufs_[size_t(b)].data();
      int64_t w_per = words(b);
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks_) if (nchunks_ > 1)
#endif
      for (int64_t i = 0; i < p_; ++i)
        for (int64_t w = 0; w < w_per; ++w)
          data[i * w_per + w] =
              b < operation_buffer_count(op_) ? operation_initial_word(op_, c_.combine, c_.input, a_, b, i, w) : operator_unset(c_.combine);
    }
  }

  // Local (non-communicating) work of every processor, e.g. seed 000's Algorithm B folding its
  // own elements before step 1 and expanding its prefixes after the last.
  void local_phase(LocalPhase phase) {
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks_) if (nchunks_ > 1)
#endif
    for (int64_t i = 0; i < p_; ++i) {
      ProcBuffers view;
      for (int b = 0; b < ports_.shape.nbuf; ++b) {
        view.buf[b] = bufs_[size_t(b)].data() + i * words(b);
        view.words[b] = words(b);
      }
      algorithm_local(c_.algorithm->id, a_, c_.combine, i, phase, view);
    }
  }

  // Pass 1: the round's sends and receives, checked by the rules, and their payloads copied.
  void post_round(StepStore& s, Chunk& ch, int round, int64_t t) {
    ch.sends.clear();
    ch.recvs.clear();
    ch.pool.clear();
    ch.more_actions.clear();
    ch.stats = StepStats{};
    ch.matched = 0;
    StepOps ops;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      ops.nsend = ops.nrecv = 0;
      ops.overflow = false;
      if (c_.test_ops_override) c_.test_ops_override(a_, i, round, ops);
      else algorithm_ops(c_.algorithm->id, a_, i, round, ops);
      if (const rules::Verdict v = rules::check_ops(ports_, machine_, ops, i); v.what != rules::Broken::none) {
        ch.fail(i, cpu::broken_rule_text(v, ops, i, t, clock_.arrives(t), c_.ports.model, ports_.limit));
        return;
      }
      s.send_begin[size_t(i)] = int32_t(ch.sends.size());
      s.send_count[size_t(i)] = ops.nsend;
      for (int n = 0; n < ops.nsend; ++n) post_send(ch, ops.send[n], i);
      s.recv_begin[size_t(i)] = int32_t(ch.recvs.size());
      s.recv_count[size_t(i)] = ops.nrecv;
      for (int n = 0; n < ops.nrecv; ++n) post_recv(ch, ops.recv[n], i);
    }
  }

  void post_send(Chunk& ch, const Send& x, int64_t i) {
    const uint64_t* src = bufs_[x.buf].data() + i * words(x.buf) + x.src_off;
    ch.sends.push_back(StoredSend{int32_t(i), int32_t(x.to), x.buf, 0, x.src_off, x.len, int64_t(ch.pool.size()), 0});
    if (x.len <= 8 && x.run == x.len)
      for (int64_t w = 0; w < x.len; ++w) ch.pool.push_back(src[w]);
    else
      for (int64_t at = 0; at < x.len; at += x.run)  // the last run may be short
        ch.pool.insert(ch.pool.end(), src + (at / x.run) * x.stride, src + (at / x.run) * x.stride + std::min(x.run, x.len - at));
  }

  void post_recv(Chunk& ch, const Recv& x, int64_t i) {
    int32_t more = -1;
    const bool contiguous = (x.act[0].run == 0 || x.act[0].run == x.len) && x.act[0].msg_off == 0 && x.act[0].words == 0;
    if (x.nact > 1 || !contiguous) {
      more = int32_t(ch.more_actions.size());
      ch.more_actions.push_back(RecvAction{x.nact, 0, 0, 0, RecvMode::copy, 0, 0});  // run length in dst_off
      for (int q = 0; q < x.nact; ++q) ch.more_actions.push_back(x.act[q]);
    }
    ch.recvs.push_back(StoredRecv{int32_t(i), int32_t(x.from), -1, more, x.len, -1, x.act[0].dst_off,
                                  rules::charged_combined_words(tokens_, x.act, x.nact, x.len), x.act[0].buf, x.act[0].mode});
  }

  StoredRecv* recvs_of(StepStore& s, int64_t d, int32_t& count) {
    Chunk& dc = s.chunks[size_t(d / chunk_len_)];
    count = s.recv_count[size_t(d)];
    return dc.recvs.data() + s.recv_begin[size_t(d)];
  }

  // Pass 2: match every send with its receive; count link loads.
  void match_and_load(StepStore& s, Chunk& ch, int k, int64_t t) {
    const uint32_t stamp = uint32_t(t);
    const bool direct = direct_links(topo());
    const size_t n_sends = ch.sends.size();
    for (size_t n = 0; n < n_sends; ++n) {
      StoredSend& x = ch.sends[n];
      const int64_t i = x.from, first = s.send_begin[size_t(i)];
      int32_t nr;
      StoredRecv* rv = recvs_of(s, x.to, nr);
      StoredRecv* match = rules::matching_receive(rv, nr, i, rules::occurrence(ch.sends.data(), first, int64_t(n)));
      if (!match) {
        ch.fail(i, cpu::unmatched_send_text(t, i, x.to, x.len));
        continue;
      }
      if (match->len != x.len) {
        ch.fail(i, cpu::length_mismatch_text(t, i, x.to, x.len, match->len));
        continue;
      }
      match->pool_chunk = k;
      match->pool_off = x.pool_off;
      x.combined = match->combined;
      const int64_t from_node = machine_.node(i), to_node = machine_.node(x.to);
      x.hops = int32_t(route_hops(topo(), from_node, to_node));
      ch.matched += 1;
      ch.stats.messages += 1;
      ch.stats.words += rules::charged_words(tokens_, x.len);
      ch.stats.link_hops += x.hops;
      if (direct)
        add_message_cost(
            ch, rules::direct_cost(c_.cost, rules::direct_congestion(ch.sends.data(), first, first + s.send_count[size_t(i)], x.to),
                                   rules::charged_words(tokens_, x.len), x.hops, x.combined));
      else for_each_route_link(topo(), from_node, to_node, [&](int64_t id) { rules::count_link(&link_load_[size_t(id)], stamp); });
    }
  }

  void add_message_cost(Chunk& ch, const rules::MessageCost& cost) {
    ch.stats.max_link_load = std::max(ch.stats.max_link_load, int64_t(cost.congestion));
    ch.stats.time = std::max(ch.stats.time, cost.time);
  }

  // Pass 3 (routed topologies): every message's congestion is the busiest link of its route.
  void routed_cost(Chunk& ch, int64_t t) {
    for (const StoredSend& x : ch.sends)
      add_message_cost(ch, rules::route_cost(machine_, c_.cost, x.from, x.to, rules::charged_words(tokens_, x.len), x.hops, x.combined, link_load_.data(), uint32_t(t)));
  }

  // Receives that no send matched (only searched for when the counts say one exists).
  void unmatched_receives(Chunk& ch, int64_t t) {
    for (const StoredRecv& rv : ch.recvs)
      if (rv.pool_off < 0)
        ch.fail(rv.proc, cpu::unmatched_receive_text(t, rv.proc, rv.from, rv.len));
  }

  // Pass R: apply the messages that arrive at the end of step t; check the port rules that
  // combine this step's sends with its arrivals (half-duplex, telephone).
  void deliver(StepStore& arrived, StepStore& sending, Chunk& ch, int k, int64_t t) {
    const bool both = sending.active && sending.send_step == t && rules::checks_exchange(c_.ports.model);
    const Chunk& out_chunk = sending.chunks[size_t(k)];
    int64_t last_checked = -1;
    for (const StoredRecv& rv : ch.recvs) {
      const int64_t i = rv.proc;
      if (both && i != last_checked && sending.send_count[size_t(i)] > 0) {
        last_checked = i;
        const StoredSend& out = out_chunk.sends[size_t(sending.send_begin[size_t(i)])];
        const rules::Exchange e = rules::exchange_rule(c_.ports.model, out.to, rv.from);
        if (e != rules::Exchange::ok) {
          ch.fail(i, cpu::exchange_text(e, t, i, out.to, rv.from));
          return;
        }
      }
      const uint64_t* src = arrived.chunks[size_t(rv.pool_chunk)].pool.data() + rv.pool_off;
      if (rv.more < 0) {
        apply_action(RecvAction{rv.dst_off, 0, 0, rv.buf, rv.mode, 0, 0}, i, src, rv.len);
      } else {
        const RecvAction* run = ch.more_actions.data() + rv.more;
        for (int64_t x = 1; x <= run[0].dst_off; ++x) apply_action(run[x], i, src, rv.len);
      }
    }
  }

  void apply_action(const RecvAction& act, int64_t proc, const uint64_t* src, int64_t len) {
    uint64_t* dst = bufs_[size_t(act.buf)].data() + proc * words(act.buf) + act.dst_off;
    const rules::ActionSpan span = rules::action_span(act, len);
    src += act.msg_off;
    if (tokens_) {  // a barrier's knowledge tokens, whatever the run's operator
      for (int64_t w = 0; w < span.len; ++w) {
        uint64_t& slot = dst[span.slot_index(w)];
        slot = rules::received_token(act.mode, src[w], slot, p_);
      }
      return;
    }
    if (span.len == 1 && act.mode == RecvMode::copy) {
      *dst = *src;
      return;
    }
    if (span.run == span.len) {
      apply_(dst, src, span.len, act.mode);
      return;
    }
    for (int64_t at = 0, k = 0; at < span.len; at += span.run, ++k)  // the last run may be short
      apply_(dst + k * span.stride, src + at, std::min(span.run, span.len - at), act.mode);
  }

  void record_trace(RunResult& r, StepStore& s, int64_t t) {
    TraceStep ts;
    ts.step = t;
    for (const auto& b : bufs_) ts.buffers.push_back(b);
    if (t > 0 && s.active && s.send_step == t)
      for (int64_t i = 0; i < p_; ++i) {
        const Chunk& ch = s.chunks[size_t(i / chunk_len_)];
        for (int n = 0; n < s.send_count[size_t(i)]; ++n) {
          const StoredSend& x = ch.sends[size_t(s.send_begin[size_t(i)] + n)];
          ts.messages.push_back(TraceMessage{i, x.to, x.len, x.src_off, x.buf, t, clock_.arrives(t)});
        }
      }
    r.trace.push_back(std::move(ts));
  }

  const RunConfig& c_;
  const rules::Machine machine_;  // the topology messages travel on, and the mapping onto it
  const rules::PortRules ports_;  // the port model and the buffers' shape
  const rules::Clock clock_;      // rounds and steps
  const PostalTable postal_;      // seed 000's G for the run, read by the postal algorithms' steps
  const AlgoParams a_;            // the run's parameters, with postal_ attached
  const int64_t p_;
  const Operation op_;
  const bool tokens_;  // a barrier: messages carry knowledge tokens (step_rules.h, carries_tokens)
  ApplyFn apply_;
  std::vector<std::vector<uint64_t>> bufs_;
  int nchunks_ = 1;
  int64_t chunk_len_ = 1;
  std::vector<StepStore> stores_;
  std::vector<unsigned long long> link_load_;  // (step << 32) | messages on the link in that step
};

}  // namespace

RunResult run_cpu(const RunConfig& c) {
  validate_config(c);
  auto start = std::chrono::steady_clock::now();
  RunResult r = CpuRun(c).run();
  finish_verification(c, r);
  if (!c.keep_buffers && (r.verified || !c.verify)) std::vector<std::vector<uint64_t>>().swap(r.buffers);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
