// The CUDA backend: the same per-processor step code as the CPU backend (algorithms/all.h), run as
// synchronous kernel rounds on the device. Thrust/CUB live only in cuda/.
//
// Mapping: every simulated processor is a group of kGroup threads (one warp: "its thread block";
// kBlock / kGroup processors share a CUDA block so that small messages do not waste the GPU). The
// group's lanes copy and combine the words of that processor's messages.
//
// Per send step t (kernel boundaries are the synchronization points, as DESIGN.md §2 asks):
//   count    one thread per processor: the round's ops, port limits, message counts and words;
//   scan     CUB exclusive sums give every processor its slots for sends, receives and payloads;
//   post     one group per processor: records its sends and receives, copies payloads (sends read
//            the start-of-step state: nothing has been delivered yet);
//   match    one thread per send: finds the receive, hands it the payload, counts link loads;
//   cost     one thread per send: congestion and time; CUB max reductions give the step's
//            max link load and time;
//   check    one thread per receive: receives no send matched.
// At the end of step t, deliver (one group per processor) applies the messages sent in step
// t - lambda + 1, in each processor's receive order.
// A broken rule is recorded on the device (lowest processor); the host then reproduces the CPU
// backend's exact message for that step.
#include <cuda_runtime.h>

#include <chrono>
#include <climits>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "algorithms/all.h"
#include "cuda_check.h"
#include "round_kernels.cuh"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "topologies/routing.h"

namespace ppsim {

namespace {

unsigned grid_for(int64_t items, int64_t per_block) {
  int64_t blocks = (items + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  if (blocks > 65535LL * 64) blocks = 65535LL * 64;  // grid-stride loops cover the rest
  return unsigned(blocks);
}

// CUB exclusive sum into out (temporary storage grows as needed).
void exclusive_sum(DeviceArray<unsigned char>& temp, const long long* in, long long* out, int64_t n) {
  size_t bytes = 0;
  PPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
  temp.ensure(bytes + 1);
  PPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, n));
}

template <class T>
void device_max(DeviceArray<unsigned char>& temp, const T* in, T* out, int64_t n) {
  size_t bytes = 0;
  PPSIM_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, in, out, n));
  temp.ensure(bytes + 1);
  PPSIM_CUDA_CHECK(cub::DeviceReduce::Max(temp.get(), bytes, in, out, n));
}

std::string gib(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(uint64_t{1} << 30));
  return text;
}

}  // namespace

CudaStatus cuda_status() {
  CudaStatus s;
  s.built = true;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    s.why = std::string("no CUDA device or driver: ") + cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error
    return s;
  }
  if (count == 0) {
    s.why = "no CUDA device found";
    return s;
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    s.why = "cannot query device 0";
    cudaGetLastError();
    return s;
  }
  s.device = prop.name;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    s.why = "cannot query the memory of " + s.device;
    cudaGetLastError();
    return s;
  }
  s.free_bytes = free_b;
  s.total_bytes = total_b;
  s.usable = true;
  return s;
}

double cuda_copy_bandwidth(uint64_t bytes) {
  if (!cuda_status().usable) return 0;
  DeviceArray<unsigned char> a, b;
  a.ensure(bytes);
  b.ensure(bytes);
  cudaEvent_t start, stop;
  PPSIM_CUDA_CHECK(cudaEventCreate(&start));
  PPSIM_CUDA_CHECK(cudaEventCreate(&stop));
  float best_ms = 0;
  for (int rep = 0; rep < 5; ++rep) {
    PPSIM_CUDA_CHECK(cudaEventRecord(start));
    PPSIM_CUDA_CHECK(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice));
    PPSIM_CUDA_CHECK(cudaEventRecord(stop));
    PPSIM_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    PPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (rep > 0 && (best_ms == 0 || ms < best_ms)) best_ms = ms;  // rep 0 warms up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  // A copy reads and writes every byte.
  return best_ms > 0 ? 2.0 * double(bytes) / (double(best_ms) * 1e-3) : 0;
}

uint64_t cuda_estimate_bytes(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  const uint64_t p = uint64_t(c.params.p);
  uint64_t buffers = 0;
  for (int b = 0; b < run_buffer_count(c); ++b) buffers += p * uint64_t(run_buffer_words(c, b)) * 8;
  uint64_t sends = p * uint64_t(std::max(1, c.algorithm->sends_per_step));
  uint64_t per_store = p * 6 * 8 + sends * (sizeof(DevSend) + sizeof(DevRecv) + 16) + buffers;
  uint64_t links = direct_links(physical_topology(c)) ? 0 : uint64_t(link_space(physical_topology(c))) * 8;
  return buffers + uint64_t(std::max(1, c.params.lambda)) * per_store + links + (uint64_t{64} << 20);
}

RunResult run_cuda(const RunConfig& c) {
  validate_config(c);
  if (c.test_ops_override) throw ConfigError("the test hook for broken schedules runs on the CPU backend only");
  CudaStatus status = cuda_status();
  if (!status.usable) throw ConfigError("--backend cuda: no usable CUDA device (" + status.why + ")");
  uint64_t need = cuda_estimate_bytes(c);
  if (need > status.free_bytes - status.free_bytes / 10)
    throw ConfigError("this run needs about " + gib(need) + " of device memory but only " + gib(status.free_bytes) +
                      " is free on " + status.device);
  auto start = std::chrono::steady_clock::now();

  const Operation op = c.algorithm->op;
  const int64_t p = c.params.p;
  const int lambda = std::max(1, c.params.lambda);
  const bool postal_native = c.algorithm->postal_native();
  const int rounds = c.algorithm->rounds(c.params);
  const int64_t total_steps = postal_native ? int64_t(rounds) : int64_t(rounds) * lambda;

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
  std::vector<DeviceArray<uint64_t>> bufs(static_cast<size_t>(ctx.nbuf));
  for (int b = 0; b < ctx.nbuf; ++b) {
    ctx.words[b] = run_buffer_words(c, b);
    bufs[size_t(b)].ensure(size_t(p * ctx.words[b]));
    ctx.bufs[b] = bufs[size_t(b)].get();
  }
  DeviceArray<StepOut> out;
  out.ensure(1);
  ctx.out = out.get();
  DeviceArray<unsigned long long> link_load;
  if (!direct_links(ctx.topo)) {
    link_load.ensure(size_t(std::max<int64_t>(1, link_space(ctx.topo))));
    PPSIM_CUDA_CHECK(cudaMemset(link_load.get(), 0, size_t(link_space(ctx.topo)) * sizeof(unsigned long long)));
  }
  DeviceArray<unsigned char> temp;
  std::vector<DevStore> stores(static_cast<size_t>(lambda));
  for (auto& s : stores)
    for (auto* arr : {&s.nsend, &s.nrecv, &s.nwords, &s.send_begin, &s.recv_begin, &s.pool_begin}) arr->ensure(size_t(p));

  const unsigned per_proc_grid = grid_for(p, kBlock);
  const unsigned group_grid = grid_for(p, kBlock / kGroup);
  for (int b = 0; b < ctx.nbuf; ++b) {
    init_buffer_kernel<<<grid_for(p * ctx.words[b], kBlock), kBlock>>>(ctx, op, c.input, b);
    PPSIM_CUDA_CHECK_LAUNCH("init_buffer_kernel");
  }

  RunResult r;
  r.backend = "cuda";
  auto fetch_buffers = [&]() {
    std::vector<std::vector<uint64_t>> host(size_t(ctx.nbuf));
    for (int b = 0; b < ctx.nbuf; ++b) {
      host[size_t(b)].resize(size_t(p * ctx.words[b]));
      PPSIM_CUDA_CHECK(cudaMemcpy(host[size_t(b)].data(), ctx.bufs[b], host[size_t(b)].size() * 8, cudaMemcpyDeviceToHost));
    }
    return host;
  };
  auto local = [&](LocalPhase phase) {
    if (!c.algorithm->has_local) return;
    local_kernel<<<per_proc_grid, kBlock>>>(ctx, phase);
    PPSIM_CUDA_CHECK_LAUNCH("local_kernel");
  };
  // A rule was broken: reproduce the CPU backend's message (same code, same step, same processor).
  auto report_error = [&](int64_t step, unsigned long long proc) {
    run_cpu(c);
    throw ScheduleError("step " + std::to_string(step) + ": processor " + std::to_string(proc) +
                        " breaks the schedule (detected on the device)");
  };
  local(LocalPhase::before_first_step);
  if (c.trace) r.trace.push_back(TraceStep{0, fetch_buffers(), {}});

  for (int64_t t = 1; t <= total_steps; ++t) {
    DevStore& s = stores[size_t(t % lambda)];
    s.active = false;
    StepOut host_out{};
    host_out.error_proc = kNoError;
    PPSIM_CUDA_CHECK(cudaMemcpy(out.get(), &host_out, sizeof host_out, cudaMemcpyHostToDevice));
    StepStats st;
    st.step = t;
    if (postal_native || (t - 1) % lambda == 0) {
      const int round = postal_native ? int(t) : int((t - 1) / lambda) + 1;
      s.active = true;
      s.send_step = t;
      count_kernel<<<per_proc_grid, kBlock>>>(ctx, round, s.nsend.get(), s.nrecv.get(), s.nwords.get());
      PPSIM_CUDA_CHECK_LAUNCH("count_kernel");
      exclusive_sum(temp, s.nsend.get(), s.send_begin.get(), p);
      exclusive_sum(temp, s.nrecv.get(), s.recv_begin.get(), p);
      exclusive_sum(temp, s.nwords.get(), s.pool_begin.get(), p);
      totals_kernel<<<1, 1>>>(p, s.nsend.get(), s.nrecv.get(), s.nwords.get(), s.send_begin.get(), s.recv_begin.get(),
                              s.pool_begin.get(), out.get());
      PPSIM_CUDA_CHECK_LAUNCH("totals_kernel");
      PPSIM_CUDA_CHECK(cudaMemcpy(&host_out, out.get(), sizeof host_out, cudaMemcpyDeviceToHost));
      if (host_out.error_proc != kNoError) report_error(t, host_out.error_proc);
      s.total_sends = host_out.totals[0];
      s.total_recvs = host_out.totals[1];
      s.total_words = host_out.totals[2];
      s.sends.ensure(size_t(std::max(1LL, s.total_sends)));
      s.recvs.ensure(size_t(std::max(1LL, s.total_recvs)));
      s.pool.ensure(size_t(std::max(1LL, s.total_words)));
      s.load.ensure(size_t(std::max(1LL, s.total_sends)));
      s.time.ensure(size_t(std::max(1LL, s.total_sends)));
      post_kernel<<<group_grid, kBlock>>>(ctx, round, s.nsend.get(), s.send_begin.get(), s.recv_begin.get(), s.pool_begin.get(),
                                          s.sends.get(), s.recvs.get(), s.pool.get());
      PPSIM_CUDA_CHECK_LAUNCH("post_kernel");
      if (s.total_sends > 0) {
        match_kernel<<<grid_for(s.total_sends, kBlock), kBlock>>>(ctx, t, s.total_sends, s.sends.get(), s.recvs.get(),
                                                                  s.send_begin.get(), s.recv_begin.get(), s.nrecv.get(),
                                                                  link_load.get());
        PPSIM_CUDA_CHECK_LAUNCH("match_kernel");
        cost_kernel<<<grid_for(s.total_sends, kBlock), kBlock>>>(ctx, t, s.total_sends, s.sends.get(), s.send_begin.get(),
                                                                 s.nsend.get(), link_load.get(), s.load.get(), s.time.get());
        PPSIM_CUDA_CHECK_LAUNCH("cost_kernel");
        device_max(temp, s.load.get(), &out.get()->max_load, s.total_sends);
        device_max(temp, s.time.get(), &out.get()->max_time, s.total_sends);
      }
      if (s.total_recvs > 0) {
        unmatched_kernel<<<grid_for(s.total_recvs, kBlock), kBlock>>>(ctx, s.total_recvs, s.recvs.get());
        PPSIM_CUDA_CHECK_LAUNCH("unmatched_kernel");
      }
    }
    int64_t j = t - lambda + 1;
    if (j >= 1) {
      DevStore& arrived = stores[size_t(j % lambda)];
      if (arrived.active && arrived.send_step == j && arrived.total_recvs > 0) {
        bool check = s.active && s.send_step == t &&
                     (c.ports.model == PortModel::half_duplex || c.ports.model == PortModel::telephone);
        deliver_kernel<<<group_grid, kBlock>>>(ctx, check, arrived.recvs.get(), arrived.recv_begin.get(), arrived.nrecv.get(),
                                               arrived.pool.get(), s.sends.get(), s.send_begin.get(), s.nsend.get());
        PPSIM_CUDA_CHECK_LAUNCH("deliver_kernel");
      }
    }
    if (t == total_steps) local(LocalPhase::after_last_step);
    PPSIM_CUDA_CHECK(cudaMemcpy(&host_out, out.get(), sizeof host_out, cudaMemcpyDeviceToHost));  // waits for the step
    if (host_out.error_proc != kNoError) report_error(t, host_out.error_proc);
    if (s.active && s.send_step == t) {
      st.messages = int64_t(host_out.messages);
      st.words = int64_t(host_out.words);
      st.link_hops = int64_t(host_out.hops);
      st.max_link_load = s.total_sends > 0 ? int64_t(host_out.max_load) : 0;
      st.time = s.total_sends > 0 ? host_out.max_time : 0.0;
    }
    add_step(r, st, lambda);
    if (c.trace) {
      TraceStep ts{t, fetch_buffers(), {}};
      if (s.active && s.send_step == t && s.total_sends > 0) {
        std::vector<DevSend> sends(size_t(s.total_sends));
        PPSIM_CUDA_CHECK(cudaMemcpy(sends.data(), s.sends.get(), sends.size() * sizeof(DevSend), cudaMemcpyDeviceToHost));
        for (const auto& x : sends) ts.messages.push_back(TraceMessage{x.from, x.to, x.len, x.src_off, x.buf, t, t + lambda - 1});
      }
      r.trace.push_back(std::move(ts));
    }
  }
  if (total_steps == 0) {
    local(LocalPhase::after_last_step);
    if (c.trace) { r.trace.clear(); r.trace.push_back(TraceStep{0, fetch_buffers(), {}}); }
  }
  PPSIM_CUDA_CHECK(cudaDeviceSynchronize());
  r.steps = total_steps;
  r.buffers = fetch_buffers();
  finish_verification(c, r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
