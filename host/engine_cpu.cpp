// The CPU backend: executes any registered algorithm step by step (DESIGN.md §2-§3).
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
// Storage is O(p + messages of lambda steps), never O(p * steps).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if defined(PPSIM_HAVE_OPENMP)
#include <omp.h>
#endif

#include "algorithms/all.h"
#include "apply_words.h"
#include "ppsim/engine.h"
#include "ppsim/postal.h"
#include "topologies/routing.h"

namespace ppsim {

namespace {

// Compact records (processor ids fit in 31 bits: make_topology caps p at 2^31): the passes stream
// through these arrays, so their size is the engine's memory traffic.
struct StoredSend {
  int32_t from, to, buf, hops;
  int64_t src_off, len, pool_off;
};

struct StoredRecv {
  int32_t proc, from, pool_chunk, more;  // more >= 0: all actions are in Chunk::more_actions from there
  int64_t len, pool_off;                 // pool_off < 0: not matched yet
  int64_t dst_off;                       // the common case: one contiguous action
  int32_t buf;
  RecvMode mode;
};

struct Chunk {
  int64_t first = 0, last = 0;  // processors [first, last)
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
    if (error_proc < 0 || proc < error_proc) { error_proc = proc; error = std::move(message); }
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

std::string at(int64_t step, int64_t proc) {
  return "step " + std::to_string(step) + ": processor " + std::to_string(proc);
}

class CpuRun {
 public:
  explicit CpuRun(const RunConfig& c)
      : c_(c), topo_(physical_topology(c)), postal_(c.params), a_(postal_.attached(c.params)), p_(c.topology.p), op_(c.algorithm->op),
        apply_(apply_for(c.combine)) {
    nbuf_ = run_buffer_count(c);
    bufs_.resize(size_t(nbuf_));
    for (int b = 0; b < nbuf_; ++b) words_[b] = run_buffer_words(c, b);
    lambda_ = std::max(1, a_.lambda);
    rounds_ = c.algorithm->rounds(a_);
    // A postal-native algorithm sends in every step it likes and counts steps itself; the others
    // are written in rounds and run one round every lambda steps (each waits for the last's data).
    postal_native_ = c.algorithm->postal_native();
    total_steps_ = postal_native_ ? int64_t(rounds_) : int64_t(rounds_) * lambda_;
    int threads = c.threads;
#if defined(PPSIM_HAVE_OPENMP)
    if (threads <= 0) threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    nchunks_ = int(std::max<int64_t>(1, std::min<int64_t>(threads, p_)));
    chunk_len_ = (p_ + nchunks_ - 1) / nchunks_;
    nchunks_ = int((p_ + chunk_len_ - 1) / chunk_len_);
    port_limit_ = c.ports.model == PortModel::kport ? c.ports.k : c.ports.model == PortModel::all ? kMaxOps : 1;
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
    if (!direct_links(topo_)) link_load_.assign(size_t(link_space(topo_)), 0);
    if (c_.algorithm->has_local) local_phase(LocalPhase::before_first_step);
    if (c_.trace) record_trace(r, stores_[0], 0);

    for (int64_t t = 1; t <= total_steps_; ++t) {
      StepStore& s = stores_[t % int64_t(stores_.size())];  // this step's sends (in flight: untouched until then)
      StepStats st;
      st.step = t;
      if (postal_native_ || (t - 1) % lambda_ == 0) {
        int round = postal_native_ ? int(t) : int((t - 1) / lambda_) + 1;
        s.active = true;
        s.send_step = t;
        parallel([&](Chunk& ch, int k) { post_round(s, ch, k, round, t); }, s, "post");
        parallel([&](Chunk& ch, int k) { match_and_load(s, ch, k, t); }, s, "match");
        if (!direct_links(topo_)) parallel([&](Chunk& ch, int) { routed_cost(ch, t); }, s, "cost");
        int64_t posted = 0, matched = 0;
        for (auto& ch : s.chunks) { posted += int64_t(ch.recvs.size()); matched += ch.matched; }
        if (posted != matched) parallel([&](Chunk& ch, int) { unmatched_receives(ch, t); }, s, "unmatched");
        for (auto& ch : s.chunks) {
          st.messages += ch.stats.messages;
          st.words += ch.stats.words;
          st.link_hops += ch.stats.link_hops;
          st.max_link_load = std::max(st.max_link_load, ch.stats.max_link_load);
          st.time = std::max(st.time, ch.stats.time);
        }
      }
      int64_t j = t - lambda_ + 1;
      if (j >= 1) {
        StepStore& arrived = stores_[j % int64_t(stores_.size())];
        if (arrived.active && arrived.send_step == j)
          parallel([&](Chunk& ch, int k) { deliver(arrived, s, ch, k, t); }, arrived, "deliver");
      }
      add_step(r, st, lambda_);
      if (t == total_steps_ && c_.algorithm->has_local) local_phase(LocalPhase::after_last_step);
      if (c_.trace) record_trace(r, s, t);
    }
    if (total_steps_ == 0 && c_.algorithm->has_local) {
      local_phase(LocalPhase::after_last_step);
      if (c_.trace) { r.trace.clear(); record_trace(r, stores_[0], 0); }
    }
    r.steps = total_steps_;
    r.buffers = std::move(bufs_);
    return r;
  }

 private:
  // The physical node logical processor i runs on.
  int64_t node(int64_t i) const { return c_.mapped ? map_node(c_.mapping, i) : i; }

  template <class F>
  void parallel(F&& body, StepStore& s, const char*) {
    for (auto& ch : s.chunks) { ch.error_proc = -1; ch.error.clear(); }
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(nchunks_) if (nchunks_ > 1)
#endif
    for (int k = 0; k < nchunks_; ++k) body(s.chunks[size_t(k)], k);
    for (auto& ch : s.chunks)  // chunks are in processor order: the first error is the lowest processor's
      if (ch.error_proc >= 0) throw ScheduleError(ch.error);
  }

  void init_buffers() {
    for (int b = 0; b < nbuf_; ++b) {
      bufs_[b].assign(size_t(p_ * words_[b]), 0);
      uint64_t* data = bufs_[size_t(b)].data();
      int64_t w_per = words_[b];
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks_) if (nchunks_ > 1)
#endif
      for (int64_t i = 0; i < p_; ++i)
        for (int64_t w = 0; w < w_per; ++w)
          data[i * w_per + w] = b < operation_buffer_count(op_) ? operation_initial_word(op_, c_.combine, c_.input, a_, b, i, w)
                                                                : operator_unset(c_.combine);
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
      for (int b = 0; b < nbuf_; ++b) { view.buf[b] = bufs_[size_t(b)].data() + i * words_[b]; view.words[b] = words_[b]; }
      algorithm_local(c_.algorithm->id, a_, c_.combine, i, phase, view);
    }
  }

  bool action_ok(const RecvAction& a, int64_t len) const {
    if (a.msg_off < 0 || a.words < 0 || a.msg_off + a.words > len || (a.words == 0 && a.msg_off >= len)) return false;
    return slice_ok(a.buf, a.dst_off, a.words ? a.words : len - a.msg_off, a.run, a.stride);
  }

  bool slice_ok(int32_t buf, int64_t off, int64_t len, int64_t run, int64_t stride) const {
    if (run == 0) run = stride = len;
    return buf >= 0 && buf < nbuf_ && off >= 0 && len >= 1 && run >= 1 && len % run == 0 && stride >= run &&
           off + slice_extent(len, run, stride) <= words_[buf];
  }

  // Pass 1: the round's sends and receives, port limits, payload copies.
  void post_round(StepStore& s, Chunk& ch, int k, int round, int64_t t) {
    ch.sends.clear();
    ch.recvs.clear();
    ch.pool.clear();
    ch.more_actions.clear();
    ch.stats = StepStats{};
    ch.matched = 0;
    StepOps ops;
    const int64_t arrive = t + lambda_ - 1;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      ops.nsend = ops.nrecv = 0;
      ops.overflow = false;
      if (c_.test_ops_override) c_.test_ops_override(a_, i, round, ops);
      else algorithm_ops(c_.algorithm->id, a_, i, round, ops);
      if (ops.overflow) { ch.fail(i, at(t, i) + " posts more than " + std::to_string(kMaxOps) + " sends or receives"); return; }
      check_ports(ch, ops, i, t, arrive);
      s.send_begin[size_t(i)] = int32_t(ch.sends.size());
      s.send_count[size_t(i)] = ops.nsend;
      for (int n = 0; n < ops.nsend; ++n) {
        const Send& x = ops.send[n];
        if (x.to < 0 || x.to >= p_ || x.to == i || !slice_ok(x.buf, x.src_off, x.len, x.run, x.stride)) {
          ch.fail(i, at(t, i) + " posts an invalid send (to " + std::to_string(x.to) + ", " + std::to_string(x.len) + " words)");
          return;
        }
        const uint64_t* src = bufs_[x.buf].data() + i * words_[x.buf] + x.src_off;
        ch.sends.push_back(StoredSend{int32_t(i), int32_t(x.to), x.buf, 0, x.src_off, x.len, int64_t(ch.pool.size())});
        if (x.len <= 8 && x.run == x.len) for (int64_t w = 0; w < x.len; ++w) ch.pool.push_back(src[w]);
        else for (int64_t at = 0; at < x.len; at += x.run) ch.pool.insert(ch.pool.end(), src + (at / x.run) * x.stride, src + (at / x.run) * x.stride + x.run);
      }
      s.recv_begin[size_t(i)] = int32_t(ch.recvs.size());
      s.recv_count[size_t(i)] = ops.nrecv;
      for (int n = 0; n < ops.nrecv; ++n) {
        const Recv& x = ops.recv[n];
        bool ok = x.from >= 0 && x.from < p_ && x.from != i && x.nact >= 1;
        for (int q = 0; ok && q < x.nact; ++q) ok = action_ok(x.act[q], x.len);
        if (!ok) { ch.fail(i, at(t, i) + " posts an invalid receive (from " + std::to_string(x.from) + ")"); return; }
        int32_t more = -1;
        bool contiguous = (x.act[0].run == 0 || x.act[0].run == x.len) && x.act[0].msg_off == 0 && x.act[0].words == 0;
        if (x.nact > 1 || !contiguous) {
          more = int32_t(ch.more_actions.size());
          ch.more_actions.push_back(RecvAction{x.nact, 0, 0, 0, RecvMode::copy, 0, 0});  // run length in dst_off
          for (int q = 0; q < x.nact; ++q) ch.more_actions.push_back(x.act[q]);
        }
        ch.recvs.push_back(StoredRecv{int32_t(i), int32_t(x.from), -1, more, x.len, -1, x.act[0].dst_off, x.act[0].buf, x.act[0].mode});
      }
    }
    (void)k;
  }

  // Port limits that one round's own operations can break (DESIGN.md §2, port models).
  void check_ports(Chunk& ch, const StepOps& ops, int64_t i, int64_t t, int64_t arrive) {
    if (ops.nsend <= port_limit_ && ops.nrecv <= port_limit_ && c_.ports.model != PortModel::all) return;
    const PortSpec& ps = c_.ports;
    const int64_t send_limit = port_limit_, recv_limit = port_limit_;
    const char* model = ps.model == PortModel::kport ? "k-port" : ps.model == PortModel::all ? "all-port"
                        : ps.model == PortModel::single ? "single-port" : ps.model == PortModel::half_duplex ? "half-duplex" : "telephone";
    if (ops.nsend > send_limit) {
      ch.fail(i, at(t, i) + " sends " + std::to_string(ops.nsend) + " messages (to " + std::to_string(ops.send[0].to) +
                     " and " + std::to_string(ops.send[1].to) + ") but the " + model + " model allows " + std::to_string(send_limit));
      return;
    }
    if (ops.nrecv > recv_limit) {
      ch.fail(i, at(arrive, i) + " receives " + std::to_string(ops.nrecv) + " messages (from " + std::to_string(ops.recv[0].from) +
                     " and " + std::to_string(ops.recv[1].from) + ") but the " + model + " model allows " + std::to_string(recv_limit));
      return;
    }
    if (ps.model == PortModel::all) {  // one send per outgoing link, one receive per incoming link
      int64_t first[kMaxOps], last[kMaxOps], f, l;
      for (int n = 0; n < ops.nsend; ++n) {
        route_end_links(topo_, node(i), node(ops.send[n].to), first[n], l);
        for (int q = 0; q < n; ++q)
          if (first[q] == first[n]) {
            ch.fail(i, at(t, i) + " sends to " + std::to_string(ops.send[q].to) + " and " + std::to_string(ops.send[n].to) +
                           " over the same outgoing link, which the all-port model forbids");
            return;
          }
      }
      for (int n = 0; n < ops.nrecv; ++n) {
        route_end_links(topo_, node(ops.recv[n].from), node(i), f, last[n]);
        for (int q = 0; q < n; ++q)
          if (last[q] == last[n]) {
            ch.fail(i, at(arrive, i) + " receives from " + std::to_string(ops.recv[q].from) + " and " +
                           std::to_string(ops.recv[n].from) + " over the same incoming link, which the all-port model forbids");
            return;
          }
      }
    }
  }

  StoredRecv* recvs_of(StepStore& s, int64_t d, int32_t& count) {
    Chunk& dc = s.chunks[size_t(d / chunk_len_)];
    count = s.recv_count[size_t(d)];
    return dc.recvs.data() + s.recv_begin[size_t(d)];
  }

  // Pass 2: match every send with its receive; count link loads.
  void match_and_load(StepStore& s, Chunk& ch, int k, int64_t t) {
    const uint32_t stamp = uint32_t(t);
    const bool direct = direct_links(topo_);
    const size_t n_sends = ch.sends.size();
    for (size_t n = 0; n < n_sends; ++n) {
      const StoredSend& x = ch.sends[n];
      const int64_t i = x.from;
      int occurrence = 0;  // earlier sends of the same processor to the same destination
      for (size_t q = n; q-- > 0 && ch.sends[q].from == i;) occurrence += ch.sends[q].to == x.to;
      int32_t nr;
      StoredRecv* rv = recvs_of(s, x.to, nr);
      StoredRecv* match = nullptr;
      for (int q = 0; q < nr; ++q)
        if (rv[q].from == i && occurrence-- == 0) { match = &rv[q]; break; }
      if (!match) {
        ch.fail(i, at(t, i) + " sends " + std::to_string(x.len) + " words to " + std::to_string(x.to) +
                       ", which posts no matching receive from " + std::to_string(i));
        continue;
      }
      if (match->len != x.len) {
        ch.fail(i, at(t, i) + " sends " + std::to_string(x.len) + " words to " + std::to_string(x.to) + ", which expects " +
                       std::to_string(match->len) + " words from " + std::to_string(i));
        continue;
      }
      match->pool_chunk = k;
      match->pool_off = x.pool_off;
      ch.sends[n].hops = int32_t(route_hops(topo_, node(i), node(x.to)));
      ch.matched += 1;
      ch.stats.messages += 1;
      ch.stats.words += x.len;
      ch.stats.link_hops += ch.sends[n].hops;
      if (direct) {
        add_message_cost(ch, x.len, ch.sends[n].hops, direct_congestion(ch, n));
      } else {
        for_each_route_link(topo_, node(i), node(x.to), [&](int64_t id) {
          std::atomic_ref<uint64_t> cell(link_load_[size_t(id)]);
          uint64_t old = cell.load(std::memory_order_relaxed), next;
          do {
            next = (uint32_t(old >> 32) == stamp) ? old + 1 : ((uint64_t(stamp) << 32) | 1u);
          } while (!cell.compare_exchange_weak(old, next, std::memory_order_relaxed));
        });
      }
    }
  }

  int64_t load_of(int64_t link, uint32_t stamp) const {
    uint64_t v = std::atomic_ref<uint64_t>(const_cast<uint64_t&>(link_load_[size_t(link)])).load(std::memory_order_relaxed);
    return uint32_t(v >> 32) == stamp ? int64_t(uint32_t(v)) : 0;
  }

  // On a direct-link topology the link x.from -> x.to carries exactly the sender's own messages to x.to.
  int64_t direct_congestion(const Chunk& ch, size_t n) const {
    const StoredSend& x = ch.sends[n];
    int64_t congestion = 0;
    size_t a = n, b = n + 1, end = ch.sends.size();
    while (a > 0 && ch.sends[a - 1].from == x.from) --a;
    while (b < end && ch.sends[b].from == x.from) ++b;
    for (size_t q = a; q < b; ++q) congestion += ch.sends[q].to == x.to;
    return congestion;
  }

  void add_message_cost(Chunk& ch, int64_t len, int64_t hops, int64_t congestion) {
    ch.stats.max_link_load = std::max(ch.stats.max_link_load, congestion);
    ch.stats.time = std::max(ch.stats.time, message_time(c_.cost, len, hops, congestion));
  }

  // Pass 3 (routed topologies): every message's congestion is the busiest link of its route.
  void routed_cost(Chunk& ch, int64_t t) {
    const uint32_t stamp = uint32_t(t);
    for (const StoredSend& x : ch.sends) {
      int64_t congestion = 0;
      for_each_route_link(topo_, node(x.from), node(x.to), [&](int64_t id) { congestion = std::max(congestion, load_of(id, stamp)); });
      add_message_cost(ch, x.len, x.hops, congestion);
    }
  }

  // Receives that no send matched (only searched for when the counts say one exists).
  void unmatched_receives(Chunk& ch, int64_t t) {
    for (const StoredRecv& rv : ch.recvs)
      if (rv.pool_off < 0)
        ch.fail(rv.proc, at(t, rv.proc) + " expects " + std::to_string(rv.len) + " words from " + std::to_string(rv.from) +
                             ", which sends it nothing in that step");
  }

  // Pass R: apply the messages that arrive at the end of step t; check the port rules that
  // combine this step's sends with its arrivals (half-duplex, telephone).
  void deliver(StepStore& arrived, StepStore& sending, Chunk& ch, int k, int64_t t) {
    const bool both = sending.active && sending.send_step == t &&
                      (c_.ports.model == PortModel::half_duplex || c_.ports.model == PortModel::telephone);
    const Chunk& out_chunk = sending.chunks[size_t(k)];
    int64_t last_checked = -1;
    for (const StoredRecv& rv : ch.recvs) {
      const int64_t i = rv.proc;
      if (both && i != last_checked && sending.send_count[size_t(i)] > 0) {
        last_checked = i;
        const StoredSend& out = out_chunk.sends[size_t(sending.send_begin[size_t(i)])];
        if (c_.ports.model == PortModel::half_duplex) {
          ch.fail(i, at(t, i) + " both sends (to " + std::to_string(out.to) + ") and receives (from " + std::to_string(rv.from) +
                         "), which the half-duplex model forbids");
          return;
        }
        if (out.to != rv.from) {
          ch.fail(i, at(t, i) + " sends to " + std::to_string(out.to) + " but receives from " + std::to_string(rv.from) +
                         "; the telephone model allows one exchange with one partner");
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
    uint64_t* dst = bufs_[size_t(act.buf)].data() + proc * words_[act.buf] + act.dst_off;
    src += act.msg_off;
    len = act.words ? act.words : len - act.msg_off;
    if (len == 1 && act.mode == RecvMode::copy) { *dst = *src; return; }
    if (act.run == 0 || act.run == len) { apply_(dst, src, len, act.mode); return; }
    for (int64_t at = 0, k = 0; at < len; at += act.run, ++k) apply_(dst + k * act.stride, src + at, act.run, act.mode);
  }

  void record_trace(RunResult& r, StepStore& s, int64_t t) {
    TraceStep ts;
    ts.step = t;
    for (int b = 0; b < nbuf_; ++b) ts.buffers.push_back(bufs_[b]);
    if (t > 0 && s.active && s.send_step == t)
      for (int64_t i = 0; i < p_; ++i) {
        const Chunk& ch = s.chunks[size_t(i / chunk_len_)];
        for (int n = 0; n < s.send_count[size_t(i)]; ++n) {
          const StoredSend& x = ch.sends[size_t(s.send_begin[size_t(i)] + n)];
          ts.messages.push_back(TraceMessage{i, x.to, x.len, x.src_off, x.buf, t, t + lambda_ - 1});
        }
      }
    r.trace.push_back(std::move(ts));
  }

  const RunConfig& c_;
  const Topology topo_;
  const PostalTable postal_;  // seed 000's G for the run, read by the postal algorithms' steps
  const AlgoParams a_;        // the run's parameters, with postal_ attached
  const int64_t p_;
  const Operation op_;
  ApplyFn apply_;
  int nbuf_ = 1;
  int64_t words_[kMaxBuffers] = {0, 0, 0, 0};
  bool postal_native_ = false;
  std::vector<std::vector<uint64_t>> bufs_;
  int lambda_ = 1, rounds_ = 0, nchunks_ = 1;
  int64_t port_limit_ = 1;  // sends (and receives) one processor may post per step
  int64_t total_steps_ = 0, chunk_len_ = 1;
  std::vector<StepStore> stores_;
  std::vector<uint64_t> link_load_;  // (step << 32) | messages on the link in that step
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
