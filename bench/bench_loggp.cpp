// Benchmark of the LogGP clocks of --model loggp: per algorithm and p = 2^k, the wall
// time of the lockstep timing (round by round, on 1 and on --threads threads) and of the event
// engine, the events they time, nanoseconds per event, and whether all give the same times (they
// must: the bench exits 1 if not). The data run is not part of it (`ppsim run --model loggp`
// reports both, `wall_seconds` and `loggp.seconds`).
//
//   ppsim_bench_loggp                                   # allreduce_hypercube, p = 2^14..2^20
//   ppsim_bench_loggp --algos allreduce_hypercube,barrier_dissemination --p-to 18 --markdown
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "loggp/loggp_run.h"
#include "ppsim/algorithm.h"
#include "ppsim/engine.h"

namespace {

using namespace ppsim;

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ppsim LogGP clocks benchmark: lockstep timing against the event engine"};
  std::vector<std::string> algos = {"allreduce_hypercube"};
  int p_from = 14, p_to = 20, threads = 0;
  int64_t m = 1;
  std::string topology = "full";
  bool markdown = false;
  app.add_option("--algos", algos, "algorithms")->delimiter(',');
  app.add_option("--m", m, "message size in words")->capture_default_str();
  app.add_option("--p-from", p_from, "smallest p = 2^k")->capture_default_str();
  app.add_option("--p-to", p_to, "largest p = 2^k")->capture_default_str();
  app.add_option("--threads", threads, "threads of the parallel lockstep timing (0: one per core)")->capture_default_str();
  app.add_option("--topology", topology, "topology")->capture_default_str();
  app.add_flag("--markdown", markdown, "print a Markdown table");
  CLI11_PARSE(app, argc, argv);
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  TopologyKind kind;
  if (!parse_topology_kind(topology, kind) || p_from < 1 || p_to > 30 || p_from > p_to) {
    std::cerr << "ppsim_bench_loggp: error: bad --topology or p range\n";
    return 2;
  }
  const std::string t = std::to_string(threads);
  // A row: Markdown cells, or text columns of 14 characters (wider ones get a space).
  auto row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (const std::string& x : cells) {
      if (markdown) line += "| " + x + " ";
      else line += x + std::string(x.size() < 14 ? 14 - x.size() : 1, ' ');
    }
    return line + (markdown ? "|\n" : "\n");
  };
  if (markdown)
    std::cout << row({"algorithm", "p", "events", "lockstep s (1 thread)", "lockstep s (" + t + " threads)", "event engine s",
                      "ns/event lockstep (1)", "ns/event engine", "engine ÷ lockstep (1)", "same times"})
              << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  else
    std::cout << row({"algorithm", "p", "events", "lockstep_1_s", "lockstep_" + t + "_s", "engine_s", "ns/ev_lockstep", "ns/ev_engine",
                      "engine/lockst", "same"});
  bool all_same = true;
  for (const std::string& name : algos) {
    const AlgorithmInfo* a = find_algorithm(name);
    if (!a) {
      std::cerr << "ppsim_bench_loggp: error: no algorithm " << name << "\n";
      return 2;
    }
    for (int k = p_from; k <= p_to; ++k) {
      RunConfig c;
      c.topology = make_topology(kind, int64_t(1) << k, "");
      c.algorithm = a;
      c.params = params_for(c.topology, m, 0);
      c.cost.model = CostModel::loggp;
      std::optional<loggp::Result> one, many;
      loggp::Result ev;
      const double s1 = seconds([&] { one = loggp_lockstep(c, 1); });
      const double sn = seconds([&] { many = loggp_lockstep(c, threads); });
      const double se = seconds([&] { ev = loggp_run(c, true); });
      const bool same = one && many && one->finish == ev.finish && many->finish == ev.finish && one->events == ev.events;
      all_same = all_same && (same || !one);
      const double events = double(ev.events);
      auto num = [](const char* f, double v) {
        char b[32];
        std::snprintf(b, sizeof b, f, v);
        return std::string(b);
      };
      const std::vector<std::string> cells = {
          name, "2^" + std::to_string(k), num("%.0f", events), one ? num("%.3f", s1) : "declined", one ? num("%.3f", sn) : "declined",
          num("%.3f", se), one ? num("%.1f", s1 / events * 1e9) : "-", num("%.1f", se / events * 1e9), one ? num("%.1f", se / s1) : "-",
          one ? (same ? "yes" : "NO") : "-"};
      const std::string line = row(cells);
      std::cout << line << std::flush;
    }
  }
  return all_same ? 0 : 1;
}
