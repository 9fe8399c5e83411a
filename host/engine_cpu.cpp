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
#include "ppsim/engine.h"
#include "topologies/routing.h"

namespace ppsim {

namespace {

struct StoredSend {
  int64_t to, src_off, len, pool_off;
  int32_t buf;
};

struct StoredRecv {
  int64_t from, len, pool_off;  // pool_off < 0: not matched yet
  int32_t pool_chunk, nact;
  RecvAction act[kMaxActions];
};

struct Chunk {
  int64_t first = 0, last = 0;  // processors [first, last)
  std::vector<StoredSend> sends;
  std::vector<StoredRecv> recvs;
  std::vector<uint64_t> pool;
  StepStats stats;
  int64_t error_proc = -1;
  std::string error;

  void fail(int64_t proc, std::string message) {
    if (error_proc < 0) { error_proc = proc; error = std::move(message); }
  }
};

// Everything sent in one step, kept until its messages arrive.
struct StepStore {
  bool active = false;
  int64_t send_step = 0;
  std::vector<Chunk> chunks;
  std::vector<int64_t> send_begin, recv_begin;  // per processor, index into its chunk's vectors
  std::vector<int32_t> send_count, recv_count;
};

template <OperatorKind K>
void apply_words(uint64_t* dst, const uint64_t* src, int64_t len, RecvMode mode) {
  switch (mode) {
    case RecvMode::copy: std::memcpy(dst, src, size_t(len) * sizeof(uint64_t)); return;
    case RecvMode::recv_op_slot: for (int64_t w = 0; w < len; ++w) dst[w] = combine<K>(src[w], dst[w]); return;
    case RecvMode::slot_op_recv: for (int64_t w = 0; w < len; ++w) dst[w] = combine<K>(dst[w], src[w]); return;
  }
}

using ApplyFn = void (*)(uint64_t*, const uint64_t*, int64_t, RecvMode);
ApplyFn apply_for(OperatorKind k) {
  switch (k) {
    case OperatorKind::sum: return apply_words<OperatorKind::sum>;
    case OperatorKind::prod: return apply_words<OperatorKind::prod>;
    case OperatorKind::min: return apply_words<OperatorKind::min>;
    case OperatorKind::max: return apply_words<OperatorKind::max>;
    case OperatorKind::band: return apply_words<OperatorKind::band>;
    case OperatorKind::bor: return apply_words<OperatorKind::bor>;
    case OperatorKind::bxor: return apply_words<OperatorKind::bxor>;
    case OperatorKind::affine: return apply_words<OperatorKind::affine>;
    case OperatorKind::interval: return apply_words<OperatorKind::interval>;
  }
  return nullptr;
}

std::string at(int64_t step, int64_t proc) {
  return "step " + std::to_string(step) + ": processor " + std::to_string(proc);
}

class CpuRun {
 public:
  explicit CpuRun(const RunConfig& c)
      : c_(c), topo_(c.topology), a_(c.params), p_(c.topology.p), op_(c.algorithm->op),
        apply_(apply_for(c.combine)) {
    nbuf_ = operation_buffer_count(op_);
    bufs_.resize(size_t(nbuf_));
    for (int b = 0; b < nbuf_; ++b) words_[b] = operation_buffer_words(op_, b, p_, a_.m);
    lambda_ = std::max(1, a_.lambda);
    rounds_ = c.algorithm->rounds(a_);
    total_steps_ = int64_t(rounds_) * lambda_;
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
    stores_.resize(size_t(lambda_));
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

    for (int64_t t = 1; t <= total_steps_; ++t) {
      StepStore& s = stores_[size_t(t % lambda_)];
      s.active = false;
      StepStats st;
      st.step = t;
      if ((t - 1) % lambda_ == 0) {
        int round = int((t - 1) / lambda_) + 1;
        s.active = true;
        s.send_step = t;
        parallel([&](Chunk& ch, int k) { post_round(s, ch, k, round, t); }, s, "post");
        parallel([&](Chunk& ch, int k) { match_and_load(s, ch, k, t); }, s, "match");
        parallel([&](Chunk& ch, int) { cost_and_check(s, ch, t); }, s, "cost");
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
        StepStore& arrived = stores_[size_t(j % lambda_)];
        if (arrived.active && arrived.send_step == j)
          parallel([&](Chunk& ch, int k) { deliver(arrived, s, ch, k, t); }, arrived, "deliver");
      }
      if (lambda_ > 1) st.time = 1.0;  // postal model: time is the number of steps
      r.per_step.push_back(st);
      r.messages += st.messages;
      r.words += st.words;
      r.link_hops += st.link_hops;
      r.max_link_load = std::max(r.max_link_load, st.max_link_load);
      r.time += st.time;
      if (c_.trace) record_trace(r, s, t);
    }
    r.steps = total_steps_;
    r.buffers = std::move(bufs_);
    return r;
  }

 private:
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
      uint64_t* data = bufs_[b].data();
      int64_t w_per = words_[b];
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks_) if (nchunks_ > 1)
#endif
      for (int64_t i = 0; i < p_; ++i)
        for (int64_t w = 0; w < w_per; ++w)
          data[i * w_per + w] = operation_initial_word(op_, c_.combine, c_.input, p_, a_.m, a_.root, b, i, w);
    }
  }

  bool slice_ok(int32_t buf, int64_t off, int64_t len) const {
    return buf >= 0 && buf < nbuf_ && off >= 0 && len >= 1 && off + len <= words_[buf];
  }

  // Pass 1: the round's sends and receives, port limits, payload copies.
  void post_round(StepStore& s, Chunk& ch, int k, int round, int64_t t) {
    ch.sends.clear();
    ch.recvs.clear();
    ch.pool.clear();
    ch.stats = StepStats{};
    StepOps ops;
    const int64_t arrive = t + lambda_ - 1;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      ops.nsend = ops.nrecv = 0;
      ops.overflow = false;
      if (c_.test_ops_override) c_.test_ops_override(a_, i, round, ops);
      else algorithm_ops(c_.algorithm->id, a_, i, round, ops);
      if (ops.overflow) { ch.fail(i, at(t, i) + " posts more than " + std::to_string(kMaxOps) + " sends or receives"); return; }
      check_ports(ch, ops, i, t, arrive);
      s.send_begin[size_t(i)] = int64_t(ch.sends.size());
      s.send_count[size_t(i)] = ops.nsend;
      for (int n = 0; n < ops.nsend; ++n) {
        const Send& x = ops.send[n];
        if (x.to < 0 || x.to >= p_ || x.to == i || !slice_ok(x.buf, x.src_off, x.len)) {
          ch.fail(i, at(t, i) + " posts an invalid send (to " + std::to_string(x.to) + ", " + std::to_string(x.len) + " words)");
          return;
        }
        const uint64_t* src = bufs_[x.buf].data() + i * words_[x.buf] + x.src_off;
        ch.sends.push_back(StoredSend{x.to, x.src_off, x.len, int64_t(ch.pool.size()), x.buf});
        ch.pool.insert(ch.pool.end(), src, src + x.len);
      }
      s.recv_begin[size_t(i)] = int64_t(ch.recvs.size());
      s.recv_count[size_t(i)] = ops.nrecv;
      for (int n = 0; n < ops.nrecv; ++n) {
        const Recv& x = ops.recv[n];
        bool ok = x.from >= 0 && x.from < p_ && x.from != i && x.nact >= 1;
        for (int q = 0; ok && q < x.nact; ++q) ok = slice_ok(x.act[q].buf, x.act[q].dst_off, x.len);
        if (!ok) { ch.fail(i, at(t, i) + " posts an invalid receive (from " + std::to_string(x.from) + ")"); return; }
        StoredRecv rec{x.from, x.len, -1, -1, x.nact, {}};
        for (int q = 0; q < x.nact; ++q) rec.act[q] = x.act[q];
        ch.recvs.push_back(rec);
      }
    }
    (void)k;
  }

  // Port limits that one round's own operations can break (DESIGN.md §2, port models).
  void check_ports(Chunk& ch, const StepOps& ops, int64_t i, int64_t t, int64_t arrive) {
    const PortSpec& ps = c_.ports;
    int64_t send_limit = 1, recv_limit = 1;
    if (ps.model == PortModel::kport) send_limit = recv_limit = ps.k;
    if (ps.model == PortModel::all) send_limit = recv_limit = kMaxOps;
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
        route_end_links(topo_, i, ops.send[n].to, first[n], l);
        for (int q = 0; q < n; ++q)
          if (first[q] == first[n]) {
            ch.fail(i, at(t, i) + " sends to " + std::to_string(ops.send[q].to) + " and " + std::to_string(ops.send[n].to) +
                           " over the same outgoing link, which the all-port model forbids");
            return;
          }
      }
      for (int n = 0; n < ops.nrecv; ++n) {
        route_end_links(topo_, ops.recv[n].from, i, f, last[n]);
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
    for (int64_t i = ch.first; i < ch.last; ++i) {
      const StoredSend* sends = ch.sends.data() + s.send_begin[size_t(i)];
      int32_t ns = s.send_count[size_t(i)];
      for (int n = 0; n < ns; ++n) {
        const StoredSend& x = sends[n];
        int occurrence = 0;
        for (int q = 0; q < n; ++q) occurrence += sends[q].to == x.to;
        int32_t nr;
        StoredRecv* rv = recvs_of(s, x.to, nr);
        StoredRecv* match = nullptr;
        for (int q = 0; q < nr; ++q)
          if (rv[q].from == i && occurrence-- == 0) { match = &rv[q]; break; }
        if (!match) {
          ch.fail(i, at(t, i) + " sends " + std::to_string(x.len) + " words to " + std::to_string(x.to) +
                         ", which posts no matching receive from " + std::to_string(i));
          return;
        }
        if (match->len != x.len) {
          ch.fail(i, at(t, i) + " sends " + std::to_string(x.len) + " words to " + std::to_string(x.to) + ", which expects " +
                         std::to_string(match->len) + " words from " + std::to_string(i));
          return;
        }
        match->pool_chunk = k;
        match->pool_off = x.pool_off;
        ch.stats.messages += 1;
        ch.stats.words += x.len;
        ch.stats.link_hops += route_hops(topo_, i, x.to);
        if (!direct_links(topo_)) {
          for_each_route_link(topo_, i, x.to, [&](int64_t id) {
            std::atomic_ref<uint64_t> cell(link_load_[size_t(id)]);
            uint64_t old = cell.load(std::memory_order_relaxed), next;
            do {
              next = (uint32_t(old >> 32) == stamp) ? old + 1 : ((uint64_t(stamp) << 32) | 1u);
            } while (!cell.compare_exchange_weak(old, next, std::memory_order_relaxed));
          });
        }
      }
    }
  }

  int64_t load_of(int64_t link, uint32_t stamp) const {
    uint64_t v = std::atomic_ref<uint64_t>(const_cast<uint64_t&>(link_load_[size_t(link)])).load(std::memory_order_relaxed);
    return uint32_t(v >> 32) == stamp ? int64_t(uint32_t(v)) : 0;
  }

  // Pass 3: congestion and cost of every message; unmatched receives.
  void cost_and_check(StepStore& s, Chunk& ch, int64_t t) {
    const uint32_t stamp = uint32_t(t);
    for (int64_t i = ch.first; i < ch.last; ++i) {
      const StoredSend* sends = ch.sends.data() + s.send_begin[size_t(i)];
      int32_t ns = s.send_count[size_t(i)];
      for (int n = 0; n < ns; ++n) {
        int64_t congestion = 0;
        if (direct_links(topo_)) {
          for (int q = 0; q < ns; ++q) congestion += sends[q].to == sends[n].to;
        } else {
          for_each_route_link(topo_, i, sends[n].to, [&](int64_t id) { congestion = std::max(congestion, load_of(id, stamp)); });
        }
        ch.stats.max_link_load = std::max(ch.stats.max_link_load, congestion);
        double tm = message_time(c_.cost, sends[n].len, route_hops(topo_, i, sends[n].to), congestion);
        ch.stats.time = std::max(ch.stats.time, tm);
      }
      const StoredRecv* rv = ch.recvs.data() + s.recv_begin[size_t(i)];
      for (int q = 0; q < s.recv_count[size_t(i)]; ++q)
        if (rv[q].pool_off < 0) {
          ch.fail(i, at(t, i) + " expects " + std::to_string(rv[q].len) + " words from " + std::to_string(rv[q].from) +
                         ", which sends it nothing in that step");
          return;
        }
    }
  }

  // Pass R: apply the messages that arrive at the end of step t; check the port rules that
  // combine this step's sends with its arrivals (half-duplex, telephone).
  void deliver(StepStore& arrived, StepStore& sending, Chunk& ch, int k, int64_t t) {
    bool both = sending.active && sending.send_step == t;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      int32_t nr = arrived.recv_count[size_t(i)];
      if (both && nr > 0 && sending.send_count[size_t(i)] > 0) {
        const StoredSend& out = sending.chunks[size_t(k)].sends[size_t(sending.send_begin[size_t(i)])];
        const StoredRecv& in = arrived.chunks[size_t(k)].recvs[size_t(arrived.recv_begin[size_t(i)])];
        if (c_.ports.model == PortModel::half_duplex) {
          ch.fail(i, at(t, i) + " both sends (to " + std::to_string(out.to) + ") and receives (from " + std::to_string(in.from) +
                         "), which the half-duplex model forbids");
          return;
        }
        if (c_.ports.model == PortModel::telephone && out.to != in.from) {
          ch.fail(i, at(t, i) + " sends to " + std::to_string(out.to) + " but receives from " + std::to_string(in.from) +
                         "; the telephone model allows one exchange with one partner");
          return;
        }
      }
      StoredRecv* rv = arrived.chunks[size_t(k)].recvs.data() + arrived.recv_begin[size_t(i)];
      for (int q = 0; q < nr; ++q) {
        const uint64_t* src = arrived.chunks[size_t(rv[q].pool_chunk)].pool.data() + rv[q].pool_off;
        for (int x = 0; x < rv[q].nact; ++x) {
          const RecvAction& act = rv[q].act[x];
          apply_(bufs_[act.buf].data() + i * words_[act.buf] + act.dst_off, src, rv[q].len, act.mode);
        }
      }
    }
  }

  void record_trace(RunResult& r, StepStore& s, int64_t t) {
    TraceStep ts;
    ts.step = t;
    for (int b = 0; b < nbuf_; ++b) ts.buffers.push_back(bufs_[b]);
    if (s.active && s.send_step == t)
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
  const AlgoParams a_;
  const int64_t p_;
  const Operation op_;
  ApplyFn apply_;
  int nbuf_ = 1;
  int64_t words_[2] = {0, 0};
  std::vector<std::vector<uint64_t>> bufs_;
  int lambda_ = 1, rounds_ = 0, nchunks_ = 1;
  int64_t total_steps_ = 0, chunk_len_ = 1;
  std::vector<StepStore> stores_;
  std::vector<uint64_t> link_load_;  // (step << 32) | messages on the link in that step
};

}  // namespace

RunResult run_cpu(const RunConfig& c) {
  validate_config(c);
  auto start = std::chrono::steady_clock::now();
  RunResult r = CpuRun(c).run();
  if (c.verify) {
    Verification v = verify_buffers(c, r.buffers);
    r.mismatches = v.mismatches;
    r.first_mismatches = std::move(v.first);
    r.verified = v.mismatches == 0;
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
