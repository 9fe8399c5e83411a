// What a run of the device rounds asks of a GPU, counted without one: the rounds executed on the
// host (run_device_rounds_on_host) count the launches the device executor would make, per step
// and outside the steps, the waits for the stream, the device allocations, and how often each
// processor's ops are evaluated per round. These are the proxies a machine without a GPU can drive
// the device step by (bench/RESULTS.md holds them with their targets); the registers and frames of
// the kernels are read from the built device object, not here.
//
//   ppsim_bench_proxies                 # allreduce 2^20 (m = 1, 256), ring all-gather 2^12, E-cube all-to-all 2^12
//   ppsim_bench_proxies --quick         # the same points at 2^14 and 2^10 (a few seconds)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "algorithms/dispatch.h"
#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace {

using namespace ppsim;

// The algorithm's ops, counted: the run's test hook calls this for every evaluation.
AlgorithmId counted_algorithm;
std::atomic<int64_t> evaluations{0};
void counted_ops(const AlgoParams& a, int64_t proc, int round, StepOps& out) {
  evaluations.fetch_add(1, std::memory_order_relaxed);
  algorithm_ops(counted_algorithm, a, proc, round, out);
}

struct Point {
  const char* label;
  TopologyKind topology;
  const char* algo;
  int log2_p;
  int64_t m;
};

// The median of the launches the steps made (the steady state), or -1 when the run was one launch.
int64_t steady_launches(std::vector<int64_t> per_step) {
  if (per_step.empty()) return -1;
  std::nth_element(per_step.begin(), per_step.begin() + ptrdiff_t(per_step.size() / 2), per_step.end());
  return per_step[per_step.size() / 2];
}

int report(const Point& pt, int log2_p) {
  RunConfig c;
  c.topology = make_topology(pt.topology, int64_t(1) << log2_p, "");
  c.params = params_for(c.topology, pt.m, 0);
  c.algorithm = find_algorithm(pt.algo);
  if (!c.algorithm) {
    std::cerr << "ppsim_bench_proxies: no algorithm " << pt.algo << "\n";
    return 2;
  }
  c.keep_buffers = false;
  counted_algorithm = c.algorithm->id;
  c.test_ops_override = counted_ops;
  evaluations = 0;
  HostRoundsProbe probe;
  // As the device runs by default: a launch a step (the one thread block and the one cooperative
  // launch are off unless PPSIM_ONE_BLOCK_MAX_P or PPSIM_GRID_MAX_P allows them).
  probe.team_threads = 0;
  const RunResult r = run_device_rounds_on_host(c, probe);
  HostRoundsProbe again;  // the same run once more: what a run takes after one in the same process
  again.team_threads = probe.team_threads;
  const int64_t first_evaluations = evaluations.load();
  if (!r.verified || !run_device_rounds_on_host(c, again).verified) {
    std::cerr << "ppsim_bench_proxies: " << pt.label << " did not verify\n";
    return 1;
  }
  int64_t in_steps = 0;
  for (int64_t n : probe.step_launches) in_steps += n;
  const int rounds = c.algorithm->rounds(c.params);
  const double per_proc_round = double(first_evaluations) / double(c.params.p) / double(std::max(1, rounds));
  const int64_t steady = steady_launches(probe.step_launches);
  std::printf("| %s | 2^%d | %lld | %lld | %s | %lld | %lld | %lld | %lld, then %lld | %.2f | %s |\n", pt.label, log2_p, (long long)pt.m,
              (long long)r.steps, steady < 0 ? "whole run" : std::to_string(steady).c_str(), (long long)(probe.launches - in_steps),
              (long long)probe.host_waits, (long long)probe.uploads, (long long)probe.allocations, (long long)again.allocations,
              per_proc_round, r.verified ? "yes" : "NO");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"counts what a run of the device rounds asks of a GPU, on the host"};
  bool quick = false;
  app.add_flag("--quick", quick, "the same points at 2^14 and 2^10 processors");
  CLI11_PARSE(app, argc, argv);
  const Point points[] = {
      {"allreduce (recursive doubling, full)", TopologyKind::full, "allreduce_hypercube", 20, 1},
      {"allreduce (recursive doubling, full)", TopologyKind::full, "allreduce_hypercube", 20, 256},
      {"ring all-gather", TopologyKind::ring, "allgather_ring", 12, 1},
      {"E-cube all-to-all (hypercube)", TopologyKind::hypercube, "alltoall_xor_ecube", 12, 1},
  };
  std::cout << "Launches: a kernel for each body pass, 3 for a scan or reduction (the context stored, then CUB's two), 1 for a\n"
               "memset or for a run taken whole by one team (then 'whole run' a step; off by default on the device). Waits: downloads (each a\n"
               "stream synchronization); uploads from pageable memory return once staged, without a wait. Allocations: blocks the device's memory pool did not\n"
               "hold, in the run and in the same run made again in the same process. Evaluations: calls of the algorithm's ops\n"
               "per processor and round. Counted by the rounds executed on the host, the device's own logic; no GPU needed.\n\n";
  std::cout << "| point | p | m | steps | launches a step | launches outside the steps | waits (downloads) | uploads | "
               "allocations (first run, then) | op evaluations per processor and round | verified |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const Point& pt : points) {
    const int log2_p = quick ? std::min(pt.log2_p, pt.log2_p == 20 ? 14 : 10) : pt.log2_p;
    if (const int code = report(pt, log2_p)) return code;
    std::cout << std::flush;
  }
  return 0;
}
