// Benchmark: simulate collectives at growing processor counts and report, per point, the wall
// time, time per simulated step, simulated messages and words per second, and the peak memory of
// the run. Every point runs in its own child process, so the peak (ru_maxrss from wait4) is that
// point's alone; verification against the sequential reference is included in the wall time.
//
//   ppsim_bench                          # allreduce + broadcast, fully connected, p = 2^10..2^20, m = 1, 256
//   ppsim_bench --p-to 16 --m 1 --markdown
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"

namespace {

using namespace ppsim;

struct Point {
  std::string op;
  int64_t p, m;
};

struct Figures {
  int64_t steps = 0, messages = 0, words = 0;
  double wall = 0;
  int verified = 0;
  char error[200] = {0};
};

Figures run_point(const Point& pt, const std::string& topology, int threads) {
  Figures f;
  try {
    TopologyKind kind;
    parse_topology_kind(topology, kind);
    RunConfig c;
    c.topology = make_topology(kind, pt.p, "");
    Operation op;
    parse_operation(pt.op, op);
    c.params = params_for(c.topology, pt.m, 0);
    c.algorithm = default_algorithm(op, c.topology, c.params, OperatorKind::sum);
    c.threads = threads;
    RunResult r = run_cpu(c);
    f.steps = r.steps;
    f.messages = r.messages;
    f.words = r.words;
    f.wall = r.wall_seconds;
    f.verified = r.verified ? 1 : 0;
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
  std::string topology = "full";
  bool markdown = false;
  app.add_option("--ops", ops, "operations (default algorithm of the topology is used)")->delimiter(',');
  app.add_option("--m", ms, "message sizes in words")->delimiter(',');
  app.add_option("--p-from", p_from, "smallest p = 2^k")->capture_default_str();
  app.add_option("--p-to", p_to, "largest p = 2^k")->capture_default_str();
  app.add_option("--threads", threads, "CPU threads (0: all)")->capture_default_str();
  app.add_option("--topology", topology, "topology")->capture_default_str();
  app.add_flag("--markdown", markdown, "print a Markdown table");
  CLI11_PARSE(app, argc, argv);

  const char* head = markdown ? "| op | algorithm | p | m | steps | wall s | s/step | msgs/s | words/s | peak MiB | verified |\n"
                                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
                              : "op         algorithm              p         m    steps  wall_s     s_per_step  msgs_per_s  words_per_s  peak_MiB  verified\n";
  std::cout << head << std::flush;
  for (const auto& op : ops)
    for (int64_t m : ms)
      for (int k = p_from; k <= p_to; ++k) {
        Point pt{op, int64_t{1} << k, m};
        int fds[2];
        if (pipe(fds) != 0) return 1;
        pid_t child = fork();
        if (child == 0) {
          close(fds[0]);
          Figures f = run_point(pt, topology, threads);
          ssize_t w = write(fds[1], &f, sizeof f);
          _exit(w == ssize_t(sizeof f) ? 0 : 1);
        }
        close(fds[1]);
        Figures f;
        ssize_t got = read(fds[0], &f, sizeof f);
        close(fds[0]);
        int status = 0;
        struct rusage ru;
        wait4(child, &status, 0, &ru);
        double peak_mib = double(ru.ru_maxrss) / 1024.0;
        std::string algo = "?";
        {
          TopologyKind kind;
          Operation o;
          if (parse_topology_kind(topology, kind) && parse_operation(op, o)) {
            Topology t = make_topology(kind, pt.p, "");
            if (const AlgorithmInfo* a = default_algorithm(o, t, params_for(t, m, 0), OperatorKind::sum)) algo = a->name;
          }
        }
        if (got != ssize_t(sizeof f) || f.error[0]) {
          std::cout << (markdown ? "| " : "") << op << " p=2^" << k << " m=" << m << ": " << (f.error[0] ? f.error : "child failed")
                    << (markdown ? " |" : "") << "\n";
          continue;
        }
        char line[512];
        double per_step = f.steps ? f.wall / double(f.steps) : 0;
        if (markdown)
          std::snprintf(line, sizeof line, "| %s | %s | 2^%d | %lld | %lld | %.3f | %.2e | %.3g | %.3g | %.0f | %s |\n", op.c_str(),
                        algo.c_str(), k, (long long)m, (long long)f.steps, f.wall, per_step, double(f.messages) / f.wall,
                        double(f.words) / f.wall, peak_mib, f.verified ? "yes" : "NO");
        else
          std::snprintf(line, sizeof line, "%-10s %-22s 2^%-7d %-4lld %-6lld %-10.3f %-11.2e %-11.3g %-12.3g %-9.0f %s\n", op.c_str(),
                        algo.c_str(), k, (long long)m, (long long)f.steps, f.wall, per_step, double(f.messages) / f.wall,
                        double(f.words) / f.wall, peak_mib, f.verified ? "yes" : "NO");
        std::cout << line << std::flush;
      }
  return 0;
}
