// The CUDA backend's device side: per-step records, a growing device array, and the round kernels
// (count, post, match, cost, check, deliver, local work, buffer set-up). Included once, by backend.cu.
#pragma once
#include <cuda_runtime.h>

#include <climits>

#include "algorithms/all.h"
#include "cuda_check.h"
#include "ppsim/engine.h"
#include "topologies/routing.h"

namespace ppsim {
namespace {

constexpr int kGroup = 32;   // threads per simulated processor
constexpr int kBlock = 256;  // threads per CUDA block
constexpr unsigned long long kNoError = ULLONG_MAX;

struct DevSend {
  int32_t from, to, buf, hops;
  int64_t src_off, len, pool_off;
};

struct DevRecv {
  int32_t proc, from, nact, pad;
  int64_t len, pool_off;  // pool_off < 0: not matched
  RecvAction act[kMaxActions];
};

// What a step reports back to the host in one copy.
struct StepOut {
  unsigned long long messages, words, hops;
  long long max_load;
  double max_time;
  unsigned long long error_proc;  // kNoError: no rule broken
  long long totals[3];            // sends, receives, payload words posted this step
};

// A device array that only grows.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { if (ptr_) cudaFree(ptr_); }
  void ensure(size_t n) {
    if (n <= cap_) return;
    if (ptr_) PPSIM_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    size_t want = n + n / 2;
    PPSIM_CUDA_CHECK(cudaMalloc(&ptr_, want * sizeof(T)));
    cap_ = want;
  }
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  size_t cap_ = 0;
};

struct DevStore {
  DeviceArray<long long> nsend, nrecv, nwords, send_begin, recv_begin, pool_begin;
  DeviceArray<DevSend> sends;
  DeviceArray<DevRecv> recvs;
  DeviceArray<uint64_t> pool;
  DeviceArray<long long> load;  // per send
  DeviceArray<double> time;     // per send
  long long total_sends = 0, total_recvs = 0, total_words = 0;
  bool active = false;
  int64_t send_step = 0;
};

// Everything a kernel needs, passed by value.
struct Ctx {
  AlgorithmId algo;
  AlgoParams a;
  Topology topo;  // physical: routes and links
  bool mapped;
  Mapping mapping;
  OperatorKind op;
  CostParams cost;
  PortModel port_model;
  int port_limit;
  int nbuf;
  uint64_t* bufs[kMaxBuffers];
  int64_t words[kMaxBuffers];
  StepOut* out;
};

__device__ int64_t node_of(const Ctx& c, int64_t i) { return c.mapped ? map_node(c.mapping, i) : i; }

__device__ void flag_error(const Ctx& c, int64_t proc) { atomicMin(&c.out->error_proc, (unsigned long long)proc); }

__device__ bool slice_ok(const Ctx& c, int32_t buf, int64_t off, int64_t len, int64_t run, int64_t stride) {
  if (run == 0) run = stride = len;
  return buf >= 0 && buf < c.nbuf && off >= 0 && len >= 1 && run >= 1 && len % run == 0 && stride >= run &&
         off + slice_extent(len, run, stride) <= c.words[buf];
}

// The checks of the CPU backend's pass 1: valid sends and receives, port limits.
__device__ bool ops_valid(const Ctx& c, const StepOps& ops, int64_t i) {
  if (ops.overflow || ops.nsend > c.port_limit || ops.nrecv > c.port_limit) return false;
  for (int n = 0; n < ops.nsend; ++n) {
    const Send& x = ops.send[n];
    if (x.to < 0 || x.to >= c.a.p || x.to == i || !slice_ok(c, x.buf, x.src_off, x.len, x.run, x.stride)) return false;
  }
  for (int n = 0; n < ops.nrecv; ++n) {
    const Recv& x = ops.recv[n];
    if (x.from < 0 || x.from >= c.a.p || x.from == i || x.nact < 1) return false;
    for (int q = 0; q < x.nact; ++q) {
      const RecvAction& a = x.act[q];
      if (a.msg_off < 0 || a.words < 0 || a.msg_off + a.words > x.len || (a.words == 0 && a.msg_off >= x.len)) return false;
      if (!slice_ok(c, a.buf, a.dst_off, a.words ? a.words : x.len - a.msg_off, a.run, a.stride)) return false;
    }
  }
  if (c.port_model == PortModel::all) {
    for (int n = 0; n < ops.nsend; ++n)
      for (int q = 0; q < n; ++q) {
        int64_t f1, l1, f2, l2;
        route_end_links(c.topo, node_of(c, i), node_of(c, ops.send[n].to), f1, l1);
        route_end_links(c.topo, node_of(c, i), node_of(c, ops.send[q].to), f2, l2);
        if (f1 == f2) return false;
      }
    for (int n = 0; n < ops.nrecv; ++n)
      for (int q = 0; q < n; ++q) {
        int64_t f1, l1, f2, l2;
        route_end_links(c.topo, node_of(c, ops.recv[n].from), node_of(c, i), f1, l1);
        route_end_links(c.topo, node_of(c, ops.recv[q].from), node_of(c, i), f2, l2);
        if (l1 == l2) return false;
      }
  }
  return true;
}

__device__ void ops_of(const Ctx& c, int64_t i, int round, StepOps& ops) {
  ops.nsend = ops.nrecv = 0;
  ops.overflow = false;
  algorithm_ops(c.algo, c.a, i, round, ops);
}

__global__ void init_buffer_kernel(Ctx c, Operation op, InputSpec in, int32_t b) {
  int64_t total = c.a.p * c.words[b];
  bool scratch = b >= operation_buffer_count(op);
  for (int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < total; x += int64_t(gridDim.x) * blockDim.x)
    c.bufs[b][x] = scratch ? operator_unset(c.op) : operation_initial_word(op, c.op, in, c.a, b, x / c.words[b], x % c.words[b]);
}

__global__ void local_kernel(Ctx c, LocalPhase phase) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < c.a.p; i += int64_t(gridDim.x) * blockDim.x) {
    ProcBuffers view;
    for (int b = 0; b < c.nbuf; ++b) { view.buf[b] = c.bufs[b] + i * c.words[b]; view.words[b] = c.words[b]; }
    algorithm_local(c.algo, c.a, c.op, i, phase, view);
  }
}

// count: one thread per processor.
__global__ void count_kernel(Ctx c, int round, long long* nsend, long long* nrecv, long long* nwords) {
  StepOps ops;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < c.a.p; i += int64_t(gridDim.x) * blockDim.x) {
    ops_of(c, i, round, ops);
    if (!ops_valid(c, ops, i)) {
      flag_error(c, i);
      nsend[i] = nrecv[i] = nwords[i] = 0;
      continue;
    }
    long long words = 0;
    for (int n = 0; n < ops.nsend; ++n) words += ops.send[n].len;
    nsend[i] = ops.nsend;
    nrecv[i] = ops.nrecv;
    nwords[i] = words;
  }
}

__global__ void totals_kernel(int64_t p, const long long* nsend, const long long* nrecv, const long long* nwords,
                              const long long* send_begin, const long long* recv_begin, const long long* pool_begin,
                              StepOut* out) {
  out->totals[0] = send_begin[p - 1] + nsend[p - 1];
  out->totals[1] = recv_begin[p - 1] + nrecv[p - 1];
  out->totals[2] = pool_begin[p - 1] + nwords[p - 1];
}

// post: one group of kGroup lanes per processor.
__global__ void post_kernel(Ctx c, int round, const long long* nsend, const long long* send_begin, const long long* recv_begin,
                            const long long* pool_begin, DevSend* sends, DevRecv* recvs, uint64_t* pool) {
  const int lane = threadIdx.x % kGroup;
  const int64_t groups = int64_t(gridDim.x) * (blockDim.x / kGroup);
  StepOps ops;
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup; i < c.a.p; i += groups) {
    ops_of(c, i, round, ops);  // every lane computes the same ops (a pure function)
    if (!ops_valid(c, ops, i)) continue;  // reported by count_kernel
    int64_t at = pool_begin[i];
    for (int n = 0; n < ops.nsend; ++n) {
      const Send& x = ops.send[n];
      if (lane == 0)
        sends[send_begin[i] + n] = DevSend{int32_t(i), int32_t(x.to), x.buf, 0, x.src_off, x.len, at};
      const uint64_t* src = c.bufs[x.buf] + i * c.words[x.buf] + x.src_off;
      for (int64_t w = lane; w < x.len; w += kGroup) pool[at + w] = src[(w / x.run) * x.stride + w % x.run];
      at += x.len;
    }
    if (lane == 0)
      for (int n = 0; n < ops.nrecv; ++n) {
        const Recv& x = ops.recv[n];
        DevRecv r;
        r.proc = int32_t(i);
        r.from = int32_t(x.from);
        r.nact = x.nact;
        r.pad = 0;
        r.len = x.len;
        r.pool_off = -1;
        for (int q = 0; q < kMaxActions; ++q) r.act[q] = x.act[q];
        recvs[recv_begin[i] + n] = r;
      }
  }
}

__device__ void count_link(unsigned long long* cell, uint32_t stamp) {
  unsigned long long old = *cell, assumed, next;
  do {
    assumed = old;
    next = (uint32_t(assumed >> 32) == stamp) ? assumed + 1 : ((unsigned long long)stamp << 32) | 1ull;
    old = atomicCAS(cell, assumed, next);
  } while (old != assumed);
}

// match: one thread per send.
__global__ void match_kernel(Ctx c, int64_t step, long long total_sends, DevSend* sends, DevRecv* recvs,
                             const long long* send_begin, const long long* recv_begin, const long long* nrecv,
                             unsigned long long* link_load) {
  const uint32_t stamp = uint32_t(step);
  const bool direct = direct_links(c.topo);
  for (int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < total_sends; s += int64_t(gridDim.x) * blockDim.x) {
    DevSend x = sends[s];
    int occurrence = 0;
    for (int64_t q = send_begin[x.from]; q < s; ++q) occurrence += sends[q].to == x.to;
    DevRecv* match = nullptr;
    for (int64_t q = recv_begin[x.to], end = recv_begin[x.to] + nrecv[x.to]; q < end; ++q)
      if (recvs[q].from == x.from && occurrence-- == 0) { match = &recvs[q]; break; }
    if (!match || match->len != x.len) { flag_error(c, x.from); continue; }
    match->pool_off = x.pool_off;
    const int64_t s_node = node_of(c, x.from), d_node = node_of(c, x.to);
    int64_t hops = route_hops(c.topo, s_node, d_node);
    sends[s].hops = int32_t(hops);
    atomicAdd(&c.out->messages, 1ull);
    atomicAdd(&c.out->words, (unsigned long long)x.len);
    atomicAdd(&c.out->hops, (unsigned long long)hops);
    if (!direct) for_each_route_link(c.topo, s_node, d_node, [&](int64_t id) { count_link(&link_load[id], stamp); });
  }
}

// cost: one thread per send; the step's maxima come from CUB.
__global__ void cost_kernel(Ctx c, int64_t step, long long total_sends, const DevSend* sends, const long long* send_begin,
                            const long long* nsend, const unsigned long long* link_load, long long* load, double* time) {
  const uint32_t stamp = uint32_t(step);
  for (int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < total_sends; s += int64_t(gridDim.x) * blockDim.x) {
    DevSend x = sends[s];
    long long congestion = 0;
    if (direct_links(c.topo)) {
      for (int64_t q = send_begin[x.from], end = q + nsend[x.from]; q < end; ++q) congestion += sends[q].to == x.to;
    } else {
      for_each_route_link(c.topo, node_of(c, x.from), node_of(c, x.to), [&](int64_t id) {
        unsigned long long v = link_load[id];
        long long l = uint32_t(v >> 32) == stamp ? (long long)uint32_t(v) : 0;
        if (l > congestion) congestion = l;
      });
    }
    load[s] = congestion;
    time[s] = message_time(c.cost, x.len, x.hops, congestion);
  }
}

__global__ void unmatched_kernel(Ctx c, long long total_recvs, const DevRecv* recvs) {
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < total_recvs; r += int64_t(gridDim.x) * blockDim.x)
    if (recvs[r].pool_off < 0) flag_error(c, recvs[r].proc);
}

// deliver: one group per processor, its arrived receives in order.
__global__ void deliver_kernel(Ctx c, bool check_sends, const DevRecv* recvs, const long long* recv_begin, const long long* nrecv,
                               const uint64_t* pool, const DevSend* sends_now, const long long* send_begin_now,
                               const long long* nsend_now) {
  const int lane = threadIdx.x % kGroup;
  const int64_t groups = int64_t(gridDim.x) * (blockDim.x / kGroup);
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kGroup; i < c.a.p; i += groups) {
    const int64_t first = recv_begin[i], count = nrecv[i];
    if (count == 0) continue;
    if (check_sends && lane == 0 && nsend_now[i] > 0) {  // half-duplex / telephone: this step's sends and arrivals
      const DevSend& out = sends_now[send_begin_now[i]];
      if (c.port_model == PortModel::half_duplex || out.to != recvs[first].from) flag_error(c, i);
    }
    for (int64_t r = first; r < first + count; ++r) {
      const DevRecv& rv = recvs[r];
      const uint64_t* src = pool + rv.pool_off;
      for (int q = 0; q < rv.nact; ++q) {
        const RecvAction act = rv.act[q];
        uint64_t* dst = c.bufs[act.buf] + i * c.words[act.buf] + act.dst_off;
        const int64_t len = act.words ? act.words : rv.len - act.msg_off;
        const int64_t run = act.run == 0 ? len : act.run, stride = act.run == 0 ? len : act.stride;
        for (int64_t w = lane; w < len; w += kGroup) {
          uint64_t& slot = dst[(w / run) * stride + w % run];
          uint64_t x = src[act.msg_off + w];
          slot = act.mode == RecvMode::copy ? x : act.mode == RecvMode::recv_op_slot ? combine_dyn(c.op, x, slot)
                                                                                     : combine_dyn(c.op, slot, x);
        }
        __syncwarp();  // a later action may touch words another lane just wrote
      }
    }
  }
}

}  // namespace

}  // namespace ppsim
