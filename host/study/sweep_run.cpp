// Running a sweep's points (sweep.h): how many at once, their least time checked first, and each
// started when its memory fits beside the running ones', on threads and MPI ranks (spread.h).
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "ppsim/cuda_backend.h"
#include "ppsim/run.h"
#include "study/progress.h"
#include "study/spread.h"
#include "study/sweep.h"

namespace ppsim::study {

bool check_points(const std::vector<SweepPoint>& points, bool device) {
  bool any_runs = false, any_device = false;
  for (const auto& pt : points) {
    if (!pt.refused.empty()) continue;
    any_runs = true;
    any_device = any_device || runs_on_device(pt, device);
    if (pt.backend == Backend::cuda && !device) throw UsageError(cuda_backend_refusal(cuda_status()));
  }
  if (!any_runs) throw UsageError("no point of the sweep can run: " + points.front().refused);
  return any_device;
}

// A point on every core (the GPU's points a few at a time among them, run_points). Under mpirun
// the cores are the node's shared among its ranks.
int sweep_jobs(const SweepOptions& s, bool) { return s.jobs > 0 ? s.jobs : rank_cores(); }

void check_sweep_time(const SweepOptions& s, const std::vector<SweepPoint>& points, bool device, int jobs) {
  double seconds = 0, largest = -1;
  std::string which;
  for (const SweepPoint& pt : points) {
    if (!pt.refused.empty() || runs_on_device(pt, device)) continue;
    const double t = estimate_run_seconds(pt.config);
    seconds += t;
    if (t > largest) {
      largest = t;
      which = std::string("the longest point: ") + pt.config.algorithm->name + " on " + topology_shape(physical_topology(pt.config)) +
              " with m = " + std::to_string(pt.config.params.m);
    }
  }
  check_estimated_time(seconds / jobs, s.time_limit, "this sweep", which, s.quiet || !lead_rank());
}

namespace {

// GPU points a few at once: each run queues its steps on a stream of its own, so independent
// points overlap on the device, while the other jobs run the CPU's points.
constexpr int kDeviceJobs = 4;
class DeviceGate {
 public:
  void enter() {
    std::unique_lock<std::mutex> g(lock_);
    freed_.wait(g, [&] { return running_ < kDeviceJobs; });
    ++running_;
  }
  void leave() {
    {
      std::lock_guard<std::mutex> g(lock_);
      --running_;
    }
    freed_.notify_one();
  }

 private:
  std::mutex lock_;
  std::condition_variable freed_;
  int running_ = 0;
};

// The memory the points running at once hold: a point starts when its estimate fits beside those
// of the points running (or when none runs: alone it was checked when planned).
class MemoryGate {
 public:
  explicit MemoryGate(uint64_t budget) : budget_(budget) {}
  void enter(uint64_t need) {
    std::unique_lock<std::mutex> g(lock_);
    freed_.wait(g, [&] { return running_ == 0 || held_ + need <= budget_; });
    held_ += need;
    ++running_;
  }
  void leave(uint64_t need) {
    {
      std::lock_guard<std::mutex> g(lock_);
      held_ -= need;
      --running_;
    }
    freed_.notify_all();
  }

 private:
  std::mutex lock_;
  std::condition_variable freed_;
  uint64_t budget_, held_ = 0;
  int running_ = 0;
};

}  // namespace

void run_points(const SweepOptions& s, const std::vector<SweepPoint>& points, bool device, int jobs,
                const std::function<void(size_t, nlohmann::json)>& done) {
  // A point on the GPU holds host memory only for its figures; the ranks on a node share its memory.
  MemoryGate memory(usable_memory_bytes() / uint64_t(node_ranks()));
  DeviceGate gpu;
  auto work = [&](size_t i) {
    const SweepPoint& pt = points[i];
    const bool on_device = pt.refused.empty() && runs_on_device(pt, device);
    const uint64_t need = pt.refused.empty() && !on_device ? estimate_run_bytes(pt.config) : 0;
    memory.enter(need);
    if (on_device) gpu.enter();
    nlohmann::json row;
    try {
      row = sweep_row(s, int64_t(i), pt, run_point(pt, device));
    } catch (...) {
      if (on_device) gpu.leave();
      memory.leave(need);
      throw;
    }
    if (on_device) gpu.leave();
    memory.leave(need);
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(row);
    return std::string(bytes.begin(), bytes.end());
  };
  spread_work(points.size(), jobs, work, [&](size_t i, const std::string& bytes) { done(i, nlohmann::json::from_cbor(bytes)); },
              "sweep stopped");
}


}  // namespace ppsim::study
