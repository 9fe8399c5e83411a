// Where the CPU backend keeps what one step sent until its messages arrive (docs/DESIGN.md §2), and
// how the passes over it are shared among threads: the processors are split into contiguous
// chunks, one per thread, and each chunk holds the records of its own processors' messages.
// Storage is O(p + messages of lambda steps), never O(p * steps).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if defined(PPSIM_HAVE_OPENMP)
#include <omp.h>
#endif

#include "ppsim/errors.h"
#include "ppsim/partition.h"
#include "ppsim/result.h"
#include "ppsim/schedule.h"

namespace ppsim::cpu {

// Compact records (processor ids fit in 31 bits: make_topology caps p at 2^31): the passes stream
// through these arrays, so their size is the engine's memory traffic.
struct StoredSend {
  int32_t from, to;
  int16_t buf, route;  // route: 0 the topology's own, n >= 1 another (--reroute; rules/failure_rules.h)
  int32_t hops;
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
  std::vector<uint64_t> pool;     // the payloads, as the senders' buffers held them when the step began
  std::vector<RecvAction> more_actions;  // second (and later) actions, as {count, actions...} runs
  StepStats stats;
  int64_t matched = 0;  // receives of this chunk's messages that found their send
  int64_t error_proc = -1;
  std::string error;
  // A run split across ranks (dist_step.cpp): the chunk's sends to processors of other ranks (by
  // index into sends), and the links of other ranks its messages load. (A chunk of imported
  // messages, sent by another rank's processors to this one's, holds only their records and
  // payloads, in pool, as they arrived.)
  std::vector<int32_t> crossing;
  std::vector<int64_t> foreign_links;

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
  int64_t lo = 0;  // the first processor of this process's block (0 unless the run is split across ranks)
  // The chunks of this process's processors, then (a run split across ranks) one chunk per rank
  // holding the messages its processors sent to this one's (dist_step.cpp).
  std::vector<Chunk> chunks;
  std::vector<int32_t> send_begin, recv_begin;  // per processor (at(i)), index into its chunk's vectors
  std::vector<int32_t> send_count, recv_count;

  // Whether this store holds the messages sent in step t.
  bool sent_in(int64_t t) const { return active && send_step == t; }
  // Processor i's index in the per-processor vectors.
  size_t at(int64_t i) const { return size_t(i - lo); }
};

// This process's processors [lo, hi) (all of them, unless the run is split across ranks) split
// into contiguous chunks, one per thread.
struct ChunkPlan {
  int count = 1;      // chunks (and threads)
  int64_t len = 1;    // processors per chunk (the last may have fewer)
  int64_t lo = 0, hi = 1;
  int imports = 0;    // chunks of imported messages after the local ones: one per rank of a split run

  // Processors a thread takes at least when the configuration leaves the threads to the machine:
  // the threads of a step meet at a barrier between its passes, which costs more than a few
  // processors' work (8 processors, 131,074 steps of one word: 43 s on two threads, 0.26 s on one).
  static constexpr int64_t kMinChunkProcessors = 512;

  // `threads` as the configuration asks (0: as many as the machine has, each with at least
  // kMinChunkProcessors processors; 1 without OpenMP), never more chunks than processors, and no
  // empty chunk (an empty block has one empty chunk).
  static int automatic_threads(int64_t processors, int cores) { return int(std::clamp<int64_t>(processors / kMinChunkProcessors, 1, cores)); }
  static ChunkPlan for_run(int threads, int64_t lo, int64_t hi, int ranks = 0) {
    const int64_t n = hi - lo;
#if defined(PPSIM_HAVE_OPENMP)
    if (threads <= 0) threads = automatic_threads(n, omp_get_max_threads());
#else
    threads = 1;
#endif
    ChunkPlan plan;
    plan.lo = lo;
    plan.hi = hi;
    plan.imports = ranks;
    plan.count = int(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
    plan.len = std::max<int64_t>(1, (n + plan.count - 1) / plan.count);
    plan.count = int(std::max<int64_t>(1, (n + plan.len - 1) / plan.len));
    return plan;
  }
  int64_t chunk_of(int64_t proc) const { return (proc - lo) / len; }
  bool holds(int64_t proc) const { return proc >= lo && proc < hi; }

  // An empty store: one chunk per thread over its processors (and the import chunks), and the
  // per-processor indexes.
  void shape(StepStore& s) const {
    s.lo = lo;
    s.chunks.resize(size_t(count + imports));
    for (int k = 0; k < count; ++k) {
      s.chunks[size_t(k)].first = std::min(hi, lo + k * len);
      s.chunks[size_t(k)].last = std::min(hi, lo + (k + 1) * len);
    }
    s.send_begin.assign(size_t(hi - lo), 0);
    s.recv_begin.assign(size_t(hi - lo), 0);
    s.send_count.assign(size_t(hi - lo), 0);
    s.recv_count.assign(size_t(hi - lo), 0);
  }
};

// Processor d's receives in store s, and their count.
inline StoredRecv* recvs_of(StepStore& s, const ChunkPlan& plan, int64_t d, int32_t& count) {
  Chunk& dc = s.chunks[size_t(plan.chunk_of(d))];
  count = s.recv_count[s.at(d)];
  return dc.recvs.data() + s.recv_begin[s.at(d)];
}

// The error of the lowest processor that any chunk of s (the imported ones too) found.
[[noreturn]] inline void throw_chunk_error(const StepStore& s, const Chunk& first) {
  const Chunk* low = &first;
  for (const Chunk& ch : s.chunks)
    if (ch.error_proc >= 0 && ch.error_proc < low->error_proc) low = &ch;
  throw ProcessorError(low->error_proc, low->error);
}

// Runs body(chunk, k) on every chunk of s, chunk k on thread k; then reports the error of the
// lowest processor any chunk found as a ScheduleError.
inline void clear_chunk_errors(StepStore& s) {
  for (auto& ch : s.chunks) {
    ch.error_proc = -1;
    ch.error.clear();
  }
}
inline void throw_chunk_errors(const StepStore& s) {
  for (auto& ch : s.chunks)  // chunks are in processor order: the first error is the lowest processor's
    if (ch.error_proc >= 0) throw_chunk_error(s, ch);
}
// body(chunk, k) on every local chunk of s, chunk k on thread k; errors are left in the chunks.
template <class Body>
void run_chunks(const ChunkPlan& plan, StepStore& s, Body&& body) {
  const int nchunks = plan.count;
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(nchunks) if (nchunks > 1)
#endif
  for (int k = 0; k < nchunks; ++k) body(s.chunks[size_t(k)], k);
}
template <class Body>
void for_each_chunk(const ChunkPlan& plan, StepStore& s, Body&& body) {
  clear_chunk_errors(s);
  run_chunks(plan, s, body);
  throw_chunk_errors(s);
}

}  // namespace ppsim::cpu
