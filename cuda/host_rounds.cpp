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
#include <utility>
#include <vector>

#include "ppsim/cuda_backend.h"
#include "block_exec.h"
#include "split_rounds.h"

namespace ppsim {

namespace {

// The bytes the host executor's arrays hold now and at most, to hold the run's memory figure to
// what it really takes (one run at a time per thread).
struct HostMemory {
  uint64_t live = 0, peak = 0;
  int64_t allocations = 0;  // blocks the pool did not have: what the device takes from its driver
};
thread_local HostMemory host_memory;

// The device's memory pool as the host executor sees it (backend.cu keeps what runs give back and
// hands it to later runs): blocks given back are kept per thread and taken again by size, so a run
// after the first in a process counts no allocation, as on the device.
struct HostPool {
  std::vector<std::vector<unsigned char>> kept;
  // A kept block of at least `bytes` (the smallest such), or a new one.
  std::vector<unsigned char> take(size_t bytes) {
    size_t best = kept.size();
    for (size_t k = 0; k < kept.size(); ++k)
      if (kept[k].size() >= bytes && (best == kept.size() || kept[k].size() < kept[best].size())) best = k;
    if (best == kept.size()) {
      ++host_memory.allocations;
      return std::vector<unsigned char>(bytes);
    }
    std::vector<unsigned char> block = std::move(kept[best]);
    kept.erase(kept.begin() + ptrdiff_t(best));
    return block;
  }
  void give(std::vector<unsigned char> block) {
    if (!block.empty()) kept.push_back(std::move(block));
  }
};
thread_local HostPool host_pool;

// An array that only grows, in a block of the pool; its words are whatever the block held (as on
// the device, nothing is zeroed unless the rounds zero it).
template <class T>
class HostArray {
 public:
  HostArray() = default;
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  HostArray(HostArray&& o) noexcept : block_(std::move(o.block_)), n_(std::exchange(o.n_, 0)) {}
  ~HostArray() { release(); }
  void ensure(size_t n) {
    if (n <= n_) return;
    release();
    host_memory.live += n * sizeof(T);
    host_memory.peak = std::max(host_memory.peak, host_memory.live);
    block_ = host_pool.take(n * sizeof(T));
    n_ = n;
  }
  T* get() { return n_ ? reinterpret_cast<T*>(block_.data()) : nullptr; }
  void release() {
    host_memory.live -= n_ * sizeof(T);
    host_pool.give(std::move(block_));
    block_.clear();
    n_ = 0;
  }

 private:
  std::vector<unsigned char> block_;  // (operator new's alignment: enough for every type held)
  size_t n_ = 0;
};

class HostExec {
 public:
  template <class T>
  using Array = HostArray<T>;

  std::string name() const { return "host execution of the device rounds"; }
  std::string backend() const { return "cuda-host"; }
  bool accepts_test_hook() const { return true; }
  bool guess_every_round = false;  // (HostRoundsProbe)
  bool guesses_every_round() const { return guess_every_round; }
  bool plain = true;  // (HostRoundsProbe: false runs a plain run on its units' other kernels)
  bool plain_runs() const { return plain; }
  int64_t plain_passes = 0;  // pull passes of a plain run's bodies (rules::PlainUnit)
  // With a budget, refuses as the device does when the run's allocations would not fit in what is
  // left of it; records what was asked for.
  void require(uint64_t need) {
    required = need;
    live_at_require = host_memory.live;
    if (budget > 0 && host_memory.live + need > budget)
      throw ConfigError("this run needs about " + std::to_string(need) + " bytes of memory but only " +
                        std::to_string(budget - std::min(budget, host_memory.live)) + " are free in the host executor's budget");
  }
  uint64_t budget = 0, required = 0, live_at_require = 0;
  template <class Body>
  void each(int64_t n, const Body& body) {
    ++launches;
    for (int64_t x = 0; x < n; ++x) body(x);
  }
  // One lane per processor, or (lanes > 1, for warp and block widths) that many threads, one per
  // lane, each walking the processors in order and meeting the others at the body's barriers.
  template <class Body>
  void groups(int64_t n, const Body& body, rounds::GroupWidth width) {
    ++launches;
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
  // groups, for bodies that return a tally (rounds::PullTally): each lane (thread) adds up its
  // own and commits the sum once, as a warp does on the device.
  template <class Body>
  void groups_tally(int64_t n, const Body& body, rounds::GroupWidth width, unsigned long long* out) {
    plain_passes += Body::kPlain;
    std::vector<rounds::PullTally> sums(size_t(width == rounds::GroupWidth::thread ? 1 : std::max(1, lanes)), rounds::PullTally{});
    groups(
        n, [&](int64_t i, int lane, int count) { sums[size_t(lane)].add(body(i, lane, count)); }, width);
    for (const rounds::PullTally& t : sums) rounds::commit_tally(out, t);
  }
  int lanes = 1;
  // The device runs small runs whole in one thread block (block_exec.h); with team_threads > 0
  // this executor runs the same team code on that many threads, else every run step by step.
  int team_threads = 0;
  bool whole_run_fits(int64_t p, long long words) const { return team_threads > 0 && rounds::whole_run_fits(p, words); }
  void size_in_one_launch(const rounds::StepPlan& pl, rounds::RoundTotals* out, int nrounds) {
    ++launches;
    as_team([&](auto& team) {
      for (int r = 1; r <= nrounds; ++r) rounds::size_round(pl, team, r, out);
    });
  }
  void steps_in_one_launch(const rounds::StepPlan& pl) {
    ++launches;
    as_team([&](auto& team) {
      for (int64_t t = 1; t <= pl.total_steps; ++t) rounds::run_step(pl, team, t);
    });
  }
  // The device's cooperative launch of a run on the pull step (step_grid_run) as the same team:
  // every round in one launch, then the run's end in launches of its own, as on the device.
  bool grid_run_fits(int64_t) const { return team_threads > 0; }
  void steps_in_one_grid(const rounds::StepPlan& pl) {
    rounds::with_pull_source(pl, [&](auto src) {
      ++launches;
      as_team([&](auto& team) {
        for (int64_t t = 1; t <= pl.total_steps; ++t) rounds::pull_round_of(src, pl, team, t);
      });
    });
    rounds::pull_run_end(pl, *this);
  }
  template <class Work>
  void as_team(const Work& work) {
    struct Team {
      int k, n;
      std::barrier<>* b;
      int rank() const { return k; }
      int size() const { return n; }
      void sync() const { b->arrive_and_wait(); }
      void commit(unsigned long long* out, const rounds::PullTally& t) const { rounds::commit_tally(out, t); }
    };
    std::barrier<> barrier(team_threads);
    std::vector<rounds::RoundTotals> cells(static_cast<size_t>(team_threads));  // one kTeamCell each
    std::vector<std::thread> threads;
    for (int k = 0; k < team_threads; ++k)
      threads.emplace_back([&, k] {
        rounds::TeamExec<Team> team(Team{k, team_threads, &barrier}, reinterpret_cast<unsigned char*>(cells.data()));
        work(team);
      });
    for (auto& t : threads) t.join();
  }
  // Reductions and scans over fn(0), ..., fn(n - 1), in index order.
  template <class T, class Fn, class Op>
  uint64_t reduce_scratch(int64_t, const Fn&, const Op&, T) const {
    return 0;
  }
  template <class T, class Fn, class Op>
  uint64_t scan_scratch(int64_t, const Fn&, const Op&, T) const {
    return 0;
  }
  void reserve_scratch(uint64_t) {}
  template <class T, class Fn, class Op>
  void reduce(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    launches += kLaunchesPerCubCall;
    for (int64_t i = 0; i < n; ++i) init = op(init, fn(i));
    *out = init;
  }
  // Every round's totals, fn(r, i) summed over i for r = 1 .. nrounds: one reduction by key on the
  // device.
  template <class Fn>
  void reduce_rounds(int64_t n, int nrounds, const Fn& fn, rounds::RoundTotals* out) {
    launches += kLaunchesPerCubCall;
    for (int r = 1; r <= nrounds; ++r) {
      rounds::RoundTotals t{0, 0, 0, 0, 0};
      for (int64_t i = 0; i < n; ++i) t = t + fn(r, i);
      out[r - 1] = t;
    }
  }
  template <class T, class Fn, class Op>
  void exclusive_scan(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    launches += kLaunchesPerCubCall;
    for (int64_t i = 0; i < n; ++i) {
      const T v = fn(i);
      out[i] = init;
      init = op(init, v);
    }
  }
  void zero(void* dst, size_t bytes) {
    ++launches;
    std::memset(dst, 0, bytes);
  }
  void upload(void* dst, const void* src, size_t bytes) {
    ++uploads;
    std::memcpy(dst, src, bytes);
  }
  void download(void* dst, const void* src, size_t bytes) {
    std::memcpy(dst, src, bytes);
    ++downloads;  // on the device, each is a wait for the stream: a return to the host
  }
  int64_t downloads = 0;
  // What the device executor (backend.cu) would launch: a scan or reduction stores the context
  // for CUB, then CUB runs two kernels.
  static constexpr int kLaunchesPerCubCall = 3;
  int64_t launches = 0, uploads = 0;
  std::vector<int64_t> step_launches;
  void end_of_step() { step_launches.push_back(launches - std::exchange(launches_before_step_, launches)); }
  void start_of_steps() { launches_before_step_ = launches; }

 private:
  int64_t launches_before_step_ = 0;
};

}  // namespace

RunResult run_device_rounds_on_host(const RunConfig& c, int64_t* host_waits, int lanes) {
  HostRoundsProbe probe;
  probe.lanes = lanes;
  RunResult r = run_device_rounds_on_host(c, probe);
  if (host_waits) *host_waits = probe.host_waits;
  return r;
}

RunResult run_device_rounds_on_host(const RunConfig& c, HostRoundsProbe& probe) {
  if (probe.lanes < 1 || probe.lanes > 256) throw ConfigError("run_device_rounds_on_host: lanes must be 1 to 256");
  if (probe.team_threads < 0 || probe.team_threads > 64) throw ConfigError("run_device_rounds_on_host: team_threads must be 0 to 64");
  HostExec exec;
  exec.lanes = probe.lanes;
  exec.team_threads = probe.team_threads;
  exec.guess_every_round = probe.guess_every_round;
  exec.plain = probe.plain;
  exec.budget = probe.budget_bytes;
  host_memory = HostMemory{};
  RunResult r = rounds::run_rounds(c, exec);
  probe.host_waits = exec.downloads;
  probe.plain_passes = exec.plain_passes;
  probe.required_bytes = exec.required;
  probe.live_at_require = exec.live_at_require;
  probe.peak_bytes = host_memory.peak;
  probe.launches = exec.launches;
  probe.uploads = exec.uploads;
  probe.allocations = host_memory.allocations;
  probe.step_launches = std::move(exec.step_launches);
  return r;
}

int64_t device_mismatches_on_host(const RunConfig& c, std::vector<std::vector<uint64_t>> buffers) {
  validate_config(c, false);
  HostExec exec;
  rounds::Ctx ctx = rounds::make_ctx(c);
  if (int(buffers.size()) != ctx.nbuf()) throw ConfigError("device_mismatches_on_host: wrong number of buffers");
  for (int b = 0; b < ctx.nbuf(); ++b) {
    if (int64_t(buffers[size_t(b)].size()) != c.params.p * ctx.words(b)) throw ConfigError("device_mismatches_on_host: wrong buffer size");
    ctx.bufs[b] = buffers[size_t(b)].data();
  }
  return rounds::count_mismatches(c, exec, ctx).mismatches;
}

}  // namespace ppsim
