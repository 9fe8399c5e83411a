// Choosing the backend for a run, and the LogGP timing of its rounds (--model loggp).
#include "ppsim/run.h"

#include <chrono>

#include "goal/loggp_run.h"

namespace ppsim {

namespace {

RunResult on_backend(const RunConfig& c, Backend requested, std::string* notice) {
  if (requested == Backend::cpu) return run_cpu(c);
  CudaStatus status = cuda_status();
  if (requested == Backend::cuda) {
    if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    return run_cuda(c);
  }
  if (status.usable) return run_cuda(c);
  // A machine without a GPU runs quietly on the CPU (the report says which backend ran); a GPU that
  // is there but cannot be used is worth a line.
  if (notice && status.device_present) *notice = "ppsim: " + no_usable_cuda_device(status) + "; running on the CPU";
  return run_cpu(c);
}

}  // namespace

void add_loggp_times(const RunConfig& c, RunResult& r) {
  if (c.cost.model != CostModel::loggp) return;
  const auto t0 = std::chrono::steady_clock::now();
  loggp::Result lr;
  try {
    lr = loggp_run(c);
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(std::string("LogGP timing: ") + e.what());
  }
  r.time = double(lr.time);
  r.finish = std::move(lr.finish);
  r.last_processor = lr.last_host;
  r.loggp_events = lr.events;
  r.loggp_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.wall_seconds += r.loggp_seconds;
}

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (notice) notice->clear();
  RunResult r = on_backend(c, requested, notice);
  add_loggp_times(c, r);
  return r;
}

}  // namespace ppsim
