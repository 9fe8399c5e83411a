// The CUDA backend's rounds executed on the host: the executor of rounds.h that runs every body
// one index after another (lane 0 of a group of one) and does the scans and reductions with std::
// algorithms. Built in every configuration, with or without nvcc, so that CI checks the device
// backend's round logic (sizing, slots, matching, link counters, costs, delivery, error records)
// against the CPU backend without a GPU. It shows nothing about races between lanes or blocks:
// that part needs a device.
#include <algorithm>
#include <barrier>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "ppsim/cuda_backend.h"
#include "rounds.h"

namespace ppsim {

namespace {

template <class T>
class HostArray {
 public:
  void ensure(size_t n) {
    if (n > data_.size()) data_.resize(n);
  }
  T* get() { return data_.data(); }

 private:
  std::vector<T> data_;
};

class HostExec {
 public:
  template <class T>
  using Array = HostArray<T>;

  std::string name() const { return "host execution of the device rounds"; }
  std::string backend() const { return "cuda-host"; }
  bool accepts_test_hook() const { return true; }
  void require(uint64_t, uint64_t) const {}
  template <class Body>
  void each(int64_t n, const Body& body) {
    for (int64_t x = 0; x < n; ++x) body(x);
  }
  // One lane per processor, or (lanes > 1, for warp and block widths) that many threads, one per
  // lane, each walking the processors in order and meeting the others at the body's barriers.
  template <class Body>
  void groups(int64_t n, const Body& body, rounds::GroupWidth width) {
    if (lanes <= 1 || width == rounds::GroupWidth::thread) {
      for (int64_t i = 0; i < n; ++i) body(i, 0, 1);
      return;
    }
    struct Barrier final : rounds::HostLaneBarrier {
      explicit Barrier(int count) : b(count) {}
      void wait() override { b.arrive_and_wait(); }
      std::barrier<> b;
    } barrier(lanes);
    std::vector<std::thread> threads;
    for (int lane = 0; lane < lanes; ++lane)
      threads.emplace_back([&, lane] {
        rounds::host_lane_barrier = &barrier;
        for (int64_t i = 0; i < n; ++i) body(i, lane, lanes);
        rounds::host_lane_barrier = nullptr;
      });
    for (auto& t : threads) t.join();
  }
  int lanes = 1;
  void reserve_scratch(int64_t, int64_t) {}
  void exclusive_sum(const long long* in, long long* out, int64_t n) { std::exclusive_scan(in, in + n, out, 0LL); }
  void sum(const long long* in, long long* out, int64_t n) { *out = std::accumulate(in, in + n, 0LL); }
  template <class T>
  void max(const T* in, T* out, int64_t n) {
    *out = *std::max_element(in, in + n);
  }
  void zero(void* dst, size_t bytes) { std::memset(dst, 0, bytes); }
  void upload(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    ++downloads;  // on the device, each is a wait for the stream: a return to the host
  }
  int64_t downloads = 0;
};

}  // namespace

RunResult run_device_rounds_on_host(const RunConfig& c, int64_t* host_waits, int lanes) {
  if (lanes < 1 || lanes > 256) throw ConfigError("run_device_rounds_on_host: lanes must be 1 to 256");
  HostExec exec;
  exec.lanes = lanes;
  RunResult r = rounds::run_rounds(c, exec);
  if (host_waits) *host_waits = exec.downloads;
  return r;
}

int64_t device_mismatches_on_host(const RunConfig& c, std::vector<std::vector<uint64_t>> buffers) {
  validate_config(c, false);
  HostExec exec;
  rounds::Ctx ctx = rounds::make_ctx(c);
  if (int(buffers.size()) != ctx.nbuf) throw ConfigError("device_mismatches_on_host: wrong number of buffers");
  for (int b = 0; b < ctx.nbuf; ++b) {
    if (int64_t(buffers[size_t(b)].size()) != c.params.p * ctx.words[b]) throw ConfigError("device_mismatches_on_host: wrong buffer size");
    ctx.bufs[b] = buffers[size_t(b)].data();
  }
  return rounds::count_mismatches(c, exec, ctx);
}

}  // namespace ppsim
