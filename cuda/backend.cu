// The CUDA backend: the same per-processor step code as the CPU backend (algorithms/all.h), run as
// synchronous kernel rounds on the device. Thrust/CUB live only in cuda/.
//
// Mapping: in the phases that move words (post, deliver) every simulated processor is a group of
// threads whose lanes copy and combine the words of its messages, sized by the round's average
// message (rounds.h): a thread block of kBlock threads for long messages (docs/DESIGN.md §7's thread
// block per processor), a warp (kBlock / kGroup processors share a block) for medium ones, one
// thread for short ones, where idle lanes would only recompute the processor's ops. The other
// phases are a thread per processor, send or receive. Kernel boundaries are the
// synchronization points docs/DESIGN.md §2 asks for: the bodies (round_bodies.h) of one phase of a step
// all finish before the next phase starts. rounds.h orders the phases; this file supplies the
// executor: a stream of its own, the kernels of kernels.h, CUB scans and reductions, and the
// device memory of device_memory.h.
#include <cuda_runtime.h>

#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "ppsim/cuda_backend.h"
#include "block_exec.h"
#include "device_memory.h"
#include "kernels.h"
#include "tally_launch.h"
#include "split_rounds.h"

namespace ppsim {

namespace kernels {

// (Here, not in kernels.h: a kernel that is not a template is defined in one file only.)
// The sizing pass's rounds are independent: a block sizes every gridDim-th round.
__global__ void __launch_bounds__(rounds::kWholeRunThreads) size_whole_run(const __grid_constant__ rounds::StepPlan pl, rounds::RoundTotals* out, int nrounds) {
  __shared__ alignas(16) unsigned char cells[rounds::kWholeRunThreads * rounds::kTeamCell];
  BlockExec exec(BlockTeam{}, cells);
  for (int r = int(blockIdx.x) + 1; r <= nrounds; r += int(gridDim.x)) rounds::size_round(pl, exec, r, out);
}

__global__ void __launch_bounds__(rounds::kWholeRunThreads) step_whole_run(const __grid_constant__ rounds::StepPlan pl) {
  __shared__ alignas(16) unsigned char cells[rounds::kWholeRunThreads * rounds::kTeamCell];
  BlockExec exec(BlockTeam{}, cells);
  for (int64_t t = 1; t <= pl.total_steps; ++t) rounds::run_step(pl, exec, t);
}

}  // namespace kernels

namespace {

using namespace kernels;  // the kernels this executor launches

// The most processors a run on the pull step takes in one cooperative launch (step_grid_run) by
// default: none. Measured on an H200 (bench/RESULTS.md), the one launch ran no faster than a
// launch a step at any size tried (ring all-gather 2^10..2^14, E-cube all-to-all 2^10 and 2^12,
// all-reduce 2^10..2^20): a step's time is its processors' own chain of work, not the launches.
// PPSIM_GRID_MAX_P=N in the environment lets runs of up to N processors take it.
constexpr int64_t kGridMaxP = 0;

// CUB copies the iterators it is given into every thread, and a scan or reduction over a body's
// values (SlotCount, CostOf, RoundCount: the context by value) would copy that body into each
// thread's local memory, as a plain kernel parameter would. So the body is first stored once in
// device memory, by one thread of a kernel queued on the same stream (no host wait), and CUB's
// transform iterator holds only its address.
template <class Fn>
__global__ void store_body(const __grid_constant__ Fn fn, Fn* at) {
  *at = fn;
}
template <class Fn>
struct StoredBody {
  const Fn* fn;
  PPSIM_HD auto operator()(int64_t i) const { return (*fn)(i); }
};
// Every round's values laid end to end, round r's processor i at (r - 1) n + i: their round is the
// key of a reduction by key, their value the stored body's fn(r, i).
struct RoundOfIndex {
  int64_t n;
  PPSIM_HD int operator()(int64_t k) const { return int(k / n); }
};
template <class Fn>
struct StoredRoundBody {
  const Fn* fn;
  int64_t n;
  PPSIM_HD auto operator()(int64_t k) const { return (*fn)(int(k / n) + 1, k % n); }
};
constexpr size_t kStoredBodyBytes = 4096;

// Device 0's name and memory (the name is asked once: cudaGetDeviceProperties is slow).
CudaStatus query_device() {
  CudaStatus s;
  s.built = true;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    s.why = std::string("no CUDA device or driver: ") + cudaGetErrorString(e);
    // No device, or no driver (the runtime's stub answers "insufficient driver"): no GPU to speak of.
    // Any other answer comes from a driver that found one it cannot give us.
    s.device_present = e != cudaErrorNoDevice && e != cudaErrorInsufficientDriver;
    cudaGetLastError();  // clear the sticky error
    return s;
  }
  if (count == 0) {
    s.why = "no CUDA device found";
    return s;
  }
  s.device_present = true;
  static std::once_flag once;
  static std::string name, name_error;
  std::call_once(once, [] {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) name = prop.name;
    else {
      name_error = "cannot query device 0";
      cudaGetLastError();
    }
  });
  if (!name_error.empty()) {
    s.why = name_error;
    return s;
  }
  s.device = name;
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

// The executor of rounds.h on device 0: everything is queued on one stream; only download waits.
class DeviceExec {
 public:
  template <class T>
  using Array = DeviceArray<T>;

  explicit DeviceExec(std::string device) : device_(std::move(device)) {
    keep_device_memory();
    PPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    outer_stream_ = std::exchange(array_stream, stream_);
    body_.ensure(kStoredBodyBytes);
  }
  DeviceExec(const DeviceExec&) = delete;
  DeviceExec& operator=(const DeviceExec&) = delete;
  ~DeviceExec() {
    temp_.release();  // (in stream order, before the stream goes)
    body_.release();
    array_stream = outer_stream_;
    cudaStreamDestroy(stream_);
  }

  std::string name() const { return "device"; }
  std::string backend() const { return "cuda"; }
  bool accepts_test_hook() const { return false; }  // a host function cannot run in a kernel
  bool guesses_every_round() const { return false; }  // (a test's, on the host executor)
  // Whether a plain run takes its units' plain kernels (rules::PlainUnit): PPSIM_PLAIN = 1 (the
  // default) or 0 (the units' other kernels, for timing the two: bench/device_profile.sh part 6).
  static bool plain_runs() {
    static const bool plain = [] {
      const char* text = std::getenv("PPSIM_PLAIN");
      if (!text || std::string(text) == "1") return true;
      if (std::string(text) == "0") return false;
      throw ConfigError(std::string("PPSIM_PLAIN must be 1 or 0, not '") + text + "'");
    }();
    return plain;
  }

  // Refuses a run whose allocations (`need` bytes, counted exactly by rounds.h) do not fit in
  // what is free, keeping 64 MiB and a fiftieth spare for the allocator's rounding.
  void require(uint64_t need) const {
    size_t free_b = 0, total_b = 0;
    PPSIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    free_b += pool_spare_bytes();  // what earlier runs gave back is free to this one
    const uint64_t spare = free_b / 50 + (uint64_t{64} << 20);
    if (need + spare > free_b)
      throw ConfigError("this run needs about " + gib_text(need) + " of device memory but only " + gib_text(free_b) + " is free on " +
                        device_);
  }

  template <class Body>
  void each(int64_t n, const Body& body) {
    if (n <= 0) return;
    each_kernel<<<grid_for(n, kBlock), kBlock, 0, stream_>>>(n, body);
    PPSIM_CUDA_CHECK_LAUNCH("each_kernel");
  }
  // A thread, a warp or a block per processor.
  template <class Body>
  void groups(int64_t n, const Body& body, rounds::GroupWidth width) {
    if (n <= 0) return;
    switch (width) {
      case rounds::GroupWidth::thread:
        single_lane_kernel<<<grid_for(n, kBlock), kBlock, 0, stream_>>>(n, body);
        PPSIM_CUDA_CHECK_LAUNCH("single_lane_kernel");
        break;
      case rounds::GroupWidth::warp:
        group_kernel<<<grid_for(n, kBlock / kGroup), kBlock, 0, stream_>>>(n, body);
        PPSIM_CUDA_CHECK_LAUNCH("group_kernel");
        break;
      case rounds::GroupWidth::block:
        block_kernel<<<grid_for(n, 1), kBlock, 0, stream_>>>(n, body);
        PPSIM_CUDA_CHECK_LAUNCH("block_kernel");
        break;
    }
  }

  // groups, for bodies that return a tally: committed once per warp (or block) into out.
  template <class Body>
  void groups_tally(int64_t n, const Body& body, rounds::GroupWidth width, unsigned long long* out) {
    if (n > 0) launch_tally(n, body, width, out, stream_);  // (tally_launch.h: a plain body's in plain_kernels.cu)
  }

  // Scans and reductions over values a body computes per index (fn(0), ..., fn(n - 1)): CUB reads
  // them through a transform iterator, so no kernel writes them to memory first. The body itself is
  // read where store() left it (StoredBody); the sizes of CUB's scratch do not depend on where.
  template <class Fn>
  static auto generated(const Fn* fn) {
    return thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), StoredBody<Fn>{fn});
  }
  template <class Fn>
  const Fn* store(const Fn& fn) {
    static_assert(sizeof(Fn) <= kStoredBodyBytes && alignof(Fn) <= 256, "a scanned body fits the stored body's space");
    Fn* at = reinterpret_cast<Fn*>(body_.get());  // queued after every earlier use of the space
    store_body<<<1, 1, 0, stream_>>>(fn, at);
    PPSIM_CUDA_CHECK_LAUNCH("store_body");
    return at;
  }
  template <class T, class Fn, class Op>
  uint64_t reduce_scratch(int64_t n, const Fn&, const Op& op, T init) {
    size_t bytes = 0;
    PPSIM_CUDA_CHECK(
        cub::DeviceReduce::Reduce(nullptr, bytes, generated((const Fn*)nullptr), (T*)nullptr, std::max<int64_t>(1, n), op, init, stream_));
    return bytes + 1;
  }
  template <class T, class Fn, class Op>
  uint64_t scan_scratch(int64_t n, const Fn&, const Op& op, T init) {
    size_t bytes = 0;
    PPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, generated((const Fn*)nullptr), (T*)nullptr, op, init,
                                                    std::max<int64_t>(1, n), stream_));
    return bytes + 1;
  }
  // A run may take one launch for the sizing pass (a block a round) and one for all the steps
  // (one thread block, up to kWholeRunMaxP processors) where PPSIM_ONE_BLOCK_MAX_P in the
  // environment lets it: runs of at most that many processors. By default none does. Measured on
  // an H200 (bench/RESULTS.md), a launch a step over the whole card beat the one block at every
  // size tried: all-reduce at 2^6..2^14 processors, m = 1 and 256 (at 2^14: 0.4 ms against
  // 4.1 ms, and 2.9 ms against 123 ms), and the ring all-gather and E-cube all-to-all at 2^12
  // (4,095 steps: 0.10 s against 0.62 s, 0.11 s against 0.85 s). The variable is there so that a
  // benchmark can time both ways.
  bool whole_run_fits(int64_t p, long long words) const { return p <= one_block_max_p() && rounds::whole_run_fits(p, words); }
  static int64_t one_block_max_p() {
    static const int64_t most = processors_from_env("PPSIM_ONE_BLOCK_MAX_P", 0);
    return most;
  }
  // A number of processors from the environment variable `name` (`otherwise` where it is unset);
  // anything but a whole number of 0 or more is a ConfigError.
  static int64_t processors_from_env(const char* name, int64_t otherwise) {
    const char* text = std::getenv(name);
    if (!text) return otherwise;
    char* end = nullptr;
    const long long v = std::strtoll(text, &end, 10);
    if (end == text || *end != '\0' || v < 0)
      throw ConfigError(std::string(name) + " must be a number of processors (0 or more), not '" + text + "'");
    return int64_t(v);
  }
  void size_in_one_launch(const rounds::StepPlan& pl, rounds::RoundTotals* out, int nrounds) {
    size_whole_run<<<unsigned(std::min(nrounds, 4096)), rounds::kWholeRunThreads, 0, stream_>>>(pl, out, nrounds);
    PPSIM_CUDA_CHECK_LAUNCH("size_whole_run");
  }
  void steps_in_one_launch(const rounds::StepPlan& pl) {
    step_whole_run<<<1, rounds::kWholeRunThreads, 0, stream_>>>(pl);
    PPSIM_CUDA_CHECK_LAUNCH("step_whole_run");
  }
  // A run on the pull step may take one cooperative launch for all its steps (step_grid_run)
  // where it has at most PPSIM_GRID_MAX_P processors (default kGridMaxP) and the device can
  // launch cooperatively.
  bool grid_run_fits(int64_t p) const { return p <= grid_max_p() && cooperative_device(); }
  void steps_in_one_grid(const rounds::StepPlan& pl) {
    rounds::with_pull_source(pl, [&](auto src) { launch_grid_run<decltype(src)>(pl); });
  }

  static int64_t grid_max_p() {
    static const int64_t most = processors_from_env("PPSIM_GRID_MAX_P", kGridMaxP);
    return most;
  }
  // Taken before a run's steps (a reallocation inside the steps would wait for the device).
  void reserve_scratch(uint64_t bytes) { temp_.ensure(size_t(bytes)); }
  template <class T, class Fn, class Op>
  void reduce(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    const auto in = generated(store(fn));
    size_t bytes = 0;
    PPSIM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, in, out, n, op, init, stream_));
    temp_.ensure(bytes + 1);
    PPSIM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp_.get(), bytes, in, out, n, op, init, stream_));
  }
  // Every round's totals in one pass (the sizing): fn(r, i) summed over i, for every round r, by a
  // reduction by key whose keys are the rounds, in order.
  template <class Fn>
  void reduce_rounds(int64_t n, int nrounds, const Fn& fn, rounds::RoundTotals* out) {
    if (n <= 0 || nrounds <= 0) return;
    const auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), RoundOfIndex{n});
    const auto values = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), StoredRoundBody<Fn>{store(fn), n});
    const int64_t items = n * int64_t(nrounds);
    size_t bytes = 0;
    PPSIM_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, bytes, keys, thrust::make_discard_iterator(), values, out, thrust::make_discard_iterator(),
                                                    rounds::SumOf{}, items, stream_));
    temp_.ensure(bytes + 1);
    PPSIM_CUDA_CHECK(cub::DeviceReduce::ReduceByKey(temp_.get(), bytes, keys, thrust::make_discard_iterator(), values, out,
                                                    thrust::make_discard_iterator(), rounds::SumOf{}, items, stream_));
  }
  template <class T, class Fn, class Op>
  void exclusive_scan(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    const auto in = generated(store(fn));
    size_t bytes = 0;
    PPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, op, init, n, stream_));
    temp_.ensure(bytes + 1);
    PPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp_.get(), bytes, in, out, op, init, n, stream_));
  }
  void zero(void* dst, size_t bytes) { PPSIM_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream_)); }
  // (The host executor counts launches per step between these; nothing to do on the device.)
  void start_of_steps() {}
  void end_of_step() {}
  // src may be a temporary of the caller: from pageable memory (all the rounds upload) the copy
  // returns once the bytes are staged, so no wait for the stream is needed to free it.
  void upload(void* dst, const void* src, size_t bytes) { PPSIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_)); }
  void download(void* dst, const void* src, size_t bytes) {
    PPSIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    PPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  std::string device_;
  template <class Src>
  void launch_grid_run(const rounds::StepPlan& pl) {
    launch_grid_steps<Src>(pl, stream_);
    rounds::pull_run_end(pl, *this);  // (launches of their own: the kernel holds the rounds alone)
  }
  // Whether device 0 can launch cooperatively (else every run takes a launch a step).
  static bool cooperative_device() {
    static const bool can = [] {
      int cooperative = 0;
      if (cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
      return cooperative != 0;
    }();
    return can;
  }
  cudaStream_t stream_ = nullptr, outer_stream_ = nullptr;
  DeviceArray<unsigned char> temp_;
  DeviceArray<unsigned char> body_;  // the body of the scan or reduction under way (store)
};

}  // namespace

CudaStatus cuda_status() { return query_device(); }

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

namespace {

// A rank of a run split across ranks takes device local_rank % devices (its node's ranks share
// its devices), and the rounds of its block run there (rounds.h). Every rank must find one.
std::string take_rank_device(Collectives& comm) {
  std::string device;
  agreed_phase(comm, [&] {
    const CudaStatus status = cuda_status();
    if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    int count = 0;
    PPSIM_CUDA_CHECK(cudaGetDeviceCount(&count));
    const int d = comm.local_rank() % std::max(1, count);
    PPSIM_CUDA_CHECK(cudaSetDevice(d));
    cudaDeviceProp prop;
    PPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    device = std::string(prop.name) + " (device " + std::to_string(d) + " of rank " + std::to_string(comm.rank()) + ")";
  });
  return device;
}

std::atomic<int> rank_device{-1};  // cuda_use_rank_device's local rank, or -1

}  // namespace

void cuda_use_rank_device(int local_rank) { rank_device = std::max(0, local_rank); }

RunResult run_cuda(const RunConfig& c) {
  if (c.test_ops_override) throw ConfigError("the test hook for broken schedules runs on the host only");
  if (Collectives* comm = rounds::split_ranks(c)) {
    DeviceExec exec(take_rank_device(*comm));
    return rounds::run_rounds(c, exec);
  }
  if (const int local = rank_device; local >= 0) {  // the current device is a host thread's own
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) PPSIM_CUDA_CHECK(cudaSetDevice(local % count));
    else cudaGetLastError();  // (cuda_status below says why there is none)
  }
  CudaStatus status = cuda_status();
  if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
  DeviceExec exec(status.device);
  return rounds::run_rounds(c, exec);
}

}  // namespace ppsim
