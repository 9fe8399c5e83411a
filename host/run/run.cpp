// Choosing the backend for a run, and the LogGP timing of its rounds (--model loggp).
#include "ppsim/run.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "loggp/loggp_run.h"
#include "ppsim/bounds.h"
#include "ppsim/round_timing.h"

namespace ppsim {

namespace {

RunResult on_backend(const RunConfig& c, Backend requested, std::string* notice) {
  if (requested == Backend::cpu) return run_cpu(c);
  CudaStatus status = cuda_status();
  if (requested == Backend::cuda) {
    if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    return run_cuda(c);
  }
  if (status.usable && !auto_prefers_cpu(c)) return run_cuda(c);
  if (status.usable) return run_cpu(c);  // done before the device would have started (the report says which ran)
  // A machine without a GPU runs quietly on the CPU (the report says which backend ran); a GPU that
  // is there but cannot be used is worth a line.
  if (notice && status.device_present) *notice = "ppsim: " + no_usable_cuda_device(status) + "; running on the CPU";
  return run_cpu(c);
}

}  // namespace

bool auto_prefers_cpu(const RunConfig& c) { return estimate_run_seconds(c) < kDeviceStartSeconds; }

namespace {

// The LogGP timing of c's rounds (host code, whichever backend moves the data).
// With noise, the clocks are also run without it, for the slowdown. Both are timed in one lockstep
// pass, which reads the rounds once for both; where the lockstep conditions fail in one of them
// (the noisy one, mostly, under independent noise) the pass goes on with the other or, that early
// in the rounds, leaves it to a lockstep timing of its own; the one declined goes to the windows
// or the event engine, past the lockstep timing that would decline it again. Where neither is
// given under co-scheduled noise, the two timings run side by side, each on half the threads: a
// timing gains less from a second thread than a second timing does (allreduce at 2^18 on 2
// cores: 1.12 s one after the other, each on both cores). Where the noiseless time is not asked
// for (NoiseSpec::slowdown), only the pass gives it.
struct LoggpTiming {
  loggp::Result result;
  uint64_t noiseless = 0;
  bool noiseless_timed = true;
  std::string error, config_error;
  double seconds = 0;
  bool lockstep = false, windows = false;
  void run(const RunConfig& c, int threads = 1) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (c.noise) run_with_noise(c, threads);
      else result = loggp_run(c, false, &lockstep, threads, &windows);
    } catch (const loggp::TimeOverflowError& e) {
      config_error = std::string("LogGP timing: ") + e.what();  // a time past the limit, not a broken schedule
    } catch (const loggp::StuckError& e) {
      error = std::string("LogGP timing: ") + e.what();
    } catch (const NoiseError& e) {
      config_error = e.what();
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  void run_with_noise(const RunConfig& c, int threads) {
    NoisyAndNoiseless both = loggp_lockstep_noisy_and_noiseless(c, threads);
    RunConfig quiet = c;
    quiet.noise = nullptr;
    // One timing the pass did not give: past the lockstep timing where it declines it.
    auto alone = [](const RunConfig& x, bool declined, int share, bool* rounds, bool* in_windows) {
      return declined ? loggp_run_past_lockstep(x, false, share, in_windows) : loggp_run(x, false, rounds, share, in_windows);
    };
    if (both.noiseless) noiseless = both.noiseless->time;
    const bool asked = c.noise->slowdown;
    noiseless_timed = both.noiseless || asked;
    if (both.noisy) {
      result = std::move(*both.noisy);
      lockstep = true;
      if (!both.noiseless && asked) noiseless = alone(quiet, both.noiseless_declined, threads, nullptr, nullptr).time;
      return;
    }
    if (both.noiseless || !asked || !c.noise->cosched || threads < 2) {
      result = alone(c, both.noisy_declined, threads, &lockstep, &windows);
      if (!both.noiseless && asked) noiseless = alone(quiet, both.noiseless_declined, threads, nullptr, nullptr).time;
      return;
    }
    std::exception_ptr quiet_failed;
    std::thread other([&] {
      try {
        noiseless = alone(quiet, both.noiseless_declined, threads / 2, nullptr, nullptr).time;
      } catch (...) {
        quiet_failed = std::current_exception();
      }
    });
    try {
      result = alone(c, both.noisy_declined, threads - threads / 2, &lockstep, &windows);
    } catch (...) {
      other.join();
      throw;
    }
    other.join();
    if (quiet_failed) std::rethrow_exception(quiet_failed);
  }
  void into(RunResult& r) {
    if (!config_error.empty()) throw ConfigError(config_error);
    if (!error.empty()) throw ScheduleError(error);
    r.noiseless_time = noiseless;
    r.noiseless_timed = noiseless_timed;
    r.noise_total = result.noise;
    r.noise_per_processor = std::move(result.noise_per_host);
    r.time = double(result.time);
    r.finish = std::move(result.finish);
    r.last_processor = result.last_host;
    r.loggp_events = result.events;
    r.loggp_seconds = seconds;
    r.loggp_timing = lockstep ? "rounds" : windows ? "windows" : "events";
  }
};

}  // namespace

void add_loggp_times(const RunConfig& c, RunResult& r) {
  if (c.cost.model != CostModel::loggp) return;
  LoggpTiming t;
  t.run(c);
  t.into(r);
  r.wall_seconds += r.loggp_seconds;
}

namespace {

// A time that overflowed is no answer: the run is refused rather than reported as "inf".
void require_finite_times(const RunConfig& c, const RunResult& r) {
  const double formula = formula_time(c), bound = lower_bound_time(c);
  if (!std::isfinite(r.time) || std::isinf(formula) || std::isinf(bound))
    throw ConfigError("the run's time overflows to infinity: --ts, --tw, --th, --gamma or --tw-class are too large for " +
                      std::to_string(r.steps) + " steps");
}

// A run split across ranks (docs/DESIGN.md §8, "Past one process"): each rank runs its block,
// on the CPU backend or, with --backend cuda, on a device of its node (cuda/rounds.h: what crosses
// goes through host memory). The automatic choice stays on the CPU: a machine's ranks would share
// its devices unasked. The LogGP clocks need no data: rank 0 computes them for all processors, as
// one process does, before the data moves.
RunResult simulate_split(const RunConfig& c, Backend requested, std::string* notice) {
  Collectives& comm = *c.ranks;
  const bool device = requested == Backend::cuda;
  if (device)
    agreed_phase(comm, [&] {
      const CudaStatus status = cuda_status();
      if (!status.usable) throw ConfigError(cuda_backend_refusal(status));
    });
  if (notice && requested == Backend::automatic && comm.rank() == 0 && cuda_status().usable)
    *notice = "ppsim: a run split across MPI ranks runs on the CPU backend unless --backend cuda asks for a device per rank";
  // Said only where the transport could have taken device memory (a CUDA-aware Open MPI; Debian's
  // is not), since the run does not use that path.
  if (notice && device && comm.rank() == 0 && comm.takes_device_memory())
    *notice = "ppsim: this Open MPI is CUDA-aware, but the ranks' crossing messages go through host memory";
  const auto t0 = std::chrono::steady_clock::now();
  LoggpTiming t;
  const bool loggp = c.cost.model == CostModel::loggp;
  if (loggp)
    agreed_phase(comm, [&] {
      if (comm.rank() != 0) return;
      t.run(c, c.threads > 0 ? c.threads : int(std::max(1u, std::thread::hardware_concurrency())));
      if (!t.config_error.empty()) throw ConfigError(t.config_error);
      if (!t.error.empty()) throw ScheduleError(t.error);
    });
  RunResult r = device ? run_cuda(c) : run_cpu(c);
  if (loggp && comm.rank() == 0) {
    t.into(r);
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return r;
}

RunResult simulate(const RunConfig& c, Backend requested, std::string* notice) {
  if (c.ranks && c.ranks->size() > 1) return simulate_split(c, requested, notice);
  if (c.cost.model != CostModel::loggp) return on_backend(c, requested, notice);
  // The clocks need only the rounds, not the data. Beside a device they are computed on the host's
  // cores (all but the one that drives it) while the device moves and verifies the data; with the
  // CPU backend they come first, on its threads, and then the data (both parts scale with the
  // cores, so neither waits for a core the other holds: on 2 cores this was as fast as giving each
  // part one core where the clocks are the longer part, m = 1, and 1.4 times as fast where the
  // data is, m = 64).
  const auto t0 = std::chrono::steady_clock::now();
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const bool device = requested == Backend::cuda || (requested == Backend::automatic && cuda_status().usable && !auto_prefers_cpu(c));
  LoggpTiming t;
  RunResult r;
  if (!device) {
    t.run(c, c.threads > 0 ? c.threads : cores);
    if (!t.config_error.empty()) throw ConfigError(t.config_error);  // (before moving any data)
    if (!t.error.empty()) throw ScheduleError(t.error);
    r = on_backend(c, requested, notice);
  } else {
    std::thread clocks([&] { t.run(c, std::max(1, cores - 1)); });
    try {
      r = on_backend(c, requested, notice);
    } catch (...) {
      clocks.join();
      throw;
    }
    clocks.join();
  }
  t.into(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (notice) notice->clear();
  RunResult r = simulate(c, requested, notice);
  if (c.cost.model == CostModel::linear) r.time += c.base_latency;  // NCCL's protocol: once per operation
  if (c.timing == StepTiming::dataflow || c.timed_m > 0) {
    RunConfig timed = c;
    if (c.timed_m > 0) timed.params.m = c.timed_m;
    const RoundTimes t = time_rounds(timed);
    r.timing = c.timing == StepTiming::dataflow ? "dataflow" : "lockstep";
    r.lockstep_time = t.lockstep;
    r.time = c.timing == StepTiming::dataflow ? t.dataflow : t.lockstep;
    r.timed_words = timed.params.m;
  }
  require_finite_times(c, r);
  return r;
}

}  // namespace ppsim
