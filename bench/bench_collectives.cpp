// Benchmark: simulate collectives at growing processor counts and report, per point, the wall
// time, time per simulated step, simulated messages and words per second and the peak memory of
// the run. Every point runs in its own child process, so the peak (ru_maxrss from wait4) is that
// point's alone; verification against the sequential reference is included in the wall time.
//
// With --backend cuda it also measures the device-to-device copy bandwidth in the same run and
// reports the ratio of the bytes the run must move to it, and (--compare-cpu) the speedup over the
// CPU backend on the same point. Bytes per simulated word: those any design must move, 8 read from
// the sender's buffer and 8 read + 8 written at the receiver = 24 (a copy needs 16, a combine 24;
// the push design of cuda/rounds.h moves 40, through its payload pool). A ratio of 1 is the run at
// the card's copy bandwidth with no traffic beyond those words.
// CUDA is used only inside the children (a CUDA context does not survive fork). In each child,
// a small run of the same algorithm first loads the kernels, then the timed run keeps its buffers
// on the device and verifies there (RunConfig::keep_buffers = false), as sweeps do.
//
//   ppsim_bench                          # allreduce + broadcast, fully connected, p = 2^10..2^20, m = 1, 256
//   ppsim_bench --backend cuda --p-to 24 --compare-cpu --markdown
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"

namespace {

using namespace ppsim;

constexpr double kTrafficBytesPerWord = 24;  // read the sent word, read and write the receiver's

struct Figures {
  int64_t steps = 0, messages = 0, words = 0;
  double wall = 0, cpu_wall = 0, bandwidth = 0;
  int verified = 0;
  char algo[64] = {0};
  char error[200] = {0};
};

// Runs f in a child process; its Figures come back through a pipe, with the child's peak memory.
template <class F>
bool in_child(F f, Figures& out, double& peak_mib) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Figures r = f();
    ssize_t w = write(fds[1], &r, sizeof r);
    _exit(w == ssize_t(sizeof r) ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], &out, sizeof out);
  close(fds[0]);
  int status = 0;
  struct rusage ru;
  wait4(child, &status, 0, &ru);
  peak_mib = double(ru.ru_maxrss) / 1024.0;
  return got == ssize_t(sizeof out);
}

// Device memory refused: by the run's check before it allocates ("... of device memory but only
// ... is free") or by a cudaMalloc after it ("the device ran out of memory").
bool refused_for_device_memory(const ConfigError& e) {
  return std::strstr(e.what(), "of device memory") != nullptr || std::strstr(e.what(), "ran out of memory") != nullptr;
}

// The previous point's process has exited, but the driver may not yet have returned its device
// memory: f (anything that takes device memory) is tried again for up to two seconds when refused
// for it, before the refusal stands (a point that truly does not fit is refused after the last
// try, and reported as its row).
template <class F>
auto when_device_memory_returns(F f) -> decltype(f()) {
  for (int attempt = 1;; ++attempt) {
    try {
      return f();
    } catch (const ConfigError& e) {
      if (attempt == 10 || !refused_for_device_memory(e)) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

Figures run_point(const std::string& topology, const std::string& op_name, int64_t p, int64_t m, bool cuda, bool compare_cpu, int threads) {
  Figures f;
  try {
    TopologyKind kind;
    Operation op;
    if (!parse_topology_kind(topology, kind) || !parse_operation(op_name, op)) throw std::invalid_argument("unknown topology or operation");
    RunConfig c;
    c.topology = make_topology(kind, p, "");
    c.params = params_for(c.topology, m, 0);
    c.algorithm = default_algorithm(op, c.topology, c.params, OperatorKind::sum);
    if (!c.algorithm) throw std::invalid_argument("no algorithm");
    std::snprintf(f.algo, sizeof f.algo, "%s", c.algorithm->name);
    c.threads = threads;
    c.keep_buffers = false;
    if (cuda) {
      f.bandwidth = when_device_memory_returns([] { return cuda_copy_bandwidth(uint64_t{1} << 30); });
      RunConfig warm = c;  // loads the kernels this algorithm uses
      warm.topology = make_topology(kind, std::min<int64_t>(p, 64), "");
      warm.params = params_for(warm.topology, m, 0);
      when_device_memory_returns([&] { return run_cuda(warm); });
    }
    RunResult r = cuda ? when_device_memory_returns([&] { return run_cuda(c); }) : run_cpu(c);
    f.steps = r.steps;
    f.messages = r.messages;
    f.words = r.words;
    f.wall = r.wall_seconds;
    f.verified = r.verified ? 1 : 0;
    if (cuda && compare_cpu) f.cpu_wall = run_cpu(c).wall_seconds;
  } catch (const std::exception& e) {
    std::snprintf(f.error, sizeof f.error, "%s", e.what());
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ppsim benchmark: simulated collectives at growing p"};
  std::vector<std::string> ops = {"allreduce", "broadcast"};
  std::vector<int64_t> ms = {1, 256};
  int p_from = 10, p_to = 20, threads = 1;
  std::string topology = "full", backend = "cpu";
  bool markdown = false, compare_cpu = false;
  app.add_option("--ops", ops, "operations (the topology's default algorithm is used)")->delimiter(',');
  app.add_option("--m", ms, "message sizes in words")->delimiter(',');
  app.add_option("--p-from", p_from, "smallest p = 2^k")->capture_default_str();
  app.add_option("--p-to", p_to, "largest p = 2^k")->capture_default_str();
  app.add_option("--threads", threads, "CPU threads (0: all)")->capture_default_str();
  app.add_option("--topology", topology, "topology")->capture_default_str();
  app.add_option("--backend", backend, "cpu or cuda")->capture_default_str();
  app.add_flag("--compare-cpu", compare_cpu, "cuda: also run the CPU backend on each point (speedup column)");
  app.add_flag("--markdown", markdown, "print a Markdown table");
  CLI11_PARSE(app, argc, argv);
  if (backend != "cpu" && backend != "cuda") {
    std::cerr << "ppsim_bench: error: --backend must be cpu or cuda\n";
    return 2;
  }
  const bool cuda = backend == "cuda";
  if (cuda) {  // asked in a child: the parent never starts CUDA, so its children can
    Figures probe;
    double unused = 0;
    bool ok = in_child(
        [] {
          Figures r;
          CudaStatus s = cuda_status();
          std::snprintf(s.usable ? r.algo : r.error, s.usable ? sizeof r.algo : sizeof r.error, "%s",
                        s.usable ? s.device.c_str() : s.why.c_str());
          return r;
        },
        probe, unused);
    if (!ok || probe.error[0]) {
      std::cerr << "ppsim_bench: error: --backend cuda: " << (ok ? probe.error : "the device probe failed") << "\n";
      return 2;
    }
    std::cout << "device: " << probe.algo << "; copy bw: device-to-device copy bandwidth measured in each point's process "
              << "(1 GiB cudaMemcpy, best of 4); bytes/s: 24 B a simulated word, what any design must move\n\n";
  }
  if (markdown)
    std::cout << "| op | algorithm | p | m | steps | wall s | s/step | msgs/s | words/s | peak MiB | verified |"
              << (cuda ? " copy bw GB/s | bytes/s ÷ copy bw | CPU s | speedup |" : "")
              << "\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|" << (cuda ? "---:|---:|---:|---:|" : "") << "\n";
  else
    std::cout
        << "op         algorithm              p         m    steps  wall_s     s_per_step  msgs_per_s  words_per_s  peak_MiB  verified"
        << (cuda ? "  copy_GB/s bw_ratio  cpu_s    speedup" : "") << "\n";
  std::cout << std::flush;
  for (const auto& op : ops)
    for (int64_t m : ms)
      for (int k = p_from; k <= p_to; ++k) {
        Figures f;
        double peak_mib = 0;
        bool got = in_child([&] { return run_point(topology, op, int64_t{1} << k, m, cuda, compare_cpu, threads); }, f, peak_mib);
        if (!got || f.error[0]) {
          std::cout << (markdown ? "| " : "") << op << " p=2^" << k << " m=" << m << ": " << (f.error[0] ? f.error : "child failed")
                    << (markdown ? " |" : "") << "\n";
          continue;
        }
        char line[640];
        double per_step = f.steps ? f.wall / double(f.steps) : 0;
        double ratio = f.bandwidth > 0 ? double(f.words) * kTrafficBytesPerWord / f.wall / f.bandwidth : 0;
        double speedup = f.cpu_wall > 0 ? f.cpu_wall / f.wall : 0;
        if (markdown) {
          int n = std::snprintf(line, sizeof line, "| %s | %s | 2^%d | %lld | %lld | %.4f | %.2e | %.3g | %.3g | %.0f | %s |", op.c_str(),
                                f.algo, k, (long long)m, (long long)f.steps, f.wall, per_step, double(f.messages) / f.wall,
                                double(f.words) / f.wall, peak_mib, f.verified ? "yes" : "NO");
          if (cuda)
            std::snprintf(line + n, sizeof line - size_t(n), " %.0f | %.3f | %.3f | %.1f |", f.bandwidth / 1e9, ratio, f.cpu_wall, speedup);
        } else {
          int n = std::snprintf(line, sizeof line, "%-10s %-22s 2^%-7d %-4lld %-6lld %-10.4f %-11.2e %-11.3g %-12.3g %-9.0f %-8s",
                                op.c_str(), f.algo, k, (long long)m, (long long)f.steps, f.wall, per_step, double(f.messages) / f.wall,
                                double(f.words) / f.wall, peak_mib, f.verified ? "yes" : "NO");
          if (cuda)
            std::snprintf(line + n, sizeof line - size_t(n), "  %-9.0f %-8.3f  %-7.3f  %.1f", f.bandwidth / 1e9, ratio, f.cpu_wall,
                          speedup);
        }
        std::cout << line << "\n" << std::flush;
      }
  return 0;
}
