// Benchmark of the GOAL reader (host/goal/goal_reader.h) on LogGOPSim's schedules: megabytes of GOAL
// text read a second on one core, by the quick reader (each rank block straight from its bytes)
// and by the token reader alone (the same text with a comment after every block's `}`, which the
// quick reader gives back), side by side in one run, with the schedule both give checked equal.
//
// Without --file it writes the schedule LogGOPSim's generator writes for a dissemination barrier,
// byte for byte (schedgen -p dissemination -s P -d 8 at 76451de: in round k rank r sends 8 bytes to
// r + 2^k and receives from r - 2^k, each send after the receive before it), into a temporary file.
//
//   ppsim_bench_goal_read                        # p = 2^16: about 80 MB of text
//   ppsim_bench_goal_read --p 262144 --repeat 3
//   ppsim_bench_goal_read --file schedule.goal   # any GOAL file (schedgen's, ATLAHS's, ppsim goal's)
//   ppsim_bench_goal_read --p 65536 --write d.goal   # only write the generated schedule
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "goal/goal.h"

namespace {

using namespace ppsim;

std::string dissemination(uint32_t p) {
  std::string s = "num_ranks " + std::to_string(p) + "\n";
  int rounds = 0;
  while ((uint64_t(1) << rounds) < p) ++rounds;
  for (uint32_t r = 0; r < p; ++r) {
    s += "\nrank " + std::to_string(r) + " {\n";
    int label = 1;
    for (int k = 0; k < rounds; ++k) {
      const uint32_t d = uint32_t(1) << k, to = uint32_t((uint64_t(r) + d) % p), from = uint32_t((uint64_t(r) + p - d) % p);
      const int send = label++, recv = label++;
      s += "l" + std::to_string(send) + ": send 8b to " + std::to_string(to) + " tag 0\n";
      if (k > 0) s += "l" + std::to_string(send) + " requires l" + std::to_string(send - 1) + "\n";
      s += "l" + std::to_string(recv) + ": recv 8b from " + std::to_string(from) + " tag 0\n";
    }
    s += "}\n";
  }
  return s;
}

template <class F>
double best_seconds(int repeat, F&& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ppsim GOAL reader benchmark: the quick reader against the token reader"};
  uint32_t p = 65536;
  int repeat = 3, threads = 1;
  std::string file, write;
  app.add_option("--write", write, "write the generated schedule to this file and stop");
  app.add_option("--p", p, "ranks of the generated dissemination schedule")->check(CLI::Range(2u, 1u << 24));
  app.add_option("--repeat", repeat, "reads of each; the best is reported")->check(CLI::Range(1, 100));
  app.add_option("--file", file, "read this GOAL file instead of a generated one");
  app.add_option("--threads", threads, "also read it on this many threads (its rank blocks in parallel)")->check(CLI::Range(1, 256));
  CLI11_PARSE(app, argc, argv);

  std::string text;
  if (!write.empty()) {
    std::ofstream out(write, std::ios::binary);
    out << dissemination(p);
    if (!out.flush()) {
      std::fprintf(stderr, "ppsim_bench_goal_read: %s cannot be written\n", write.c_str());
      return 2;
    }
    return 0;
  }
  if (file.empty()) {
    text = dissemination(p);
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "ppsim_bench_goal_read: %s cannot be read\n", file.c_str());
      return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = std::move(ss).str();
  }
  std::string slow_text;  // a comment after every `}`: the token reader reads every block
  slow_text.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    slow_text.push_back(c);
    if (c == '}') slow_text += " //";
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string quick_path = (dir / ("ppsim_goal_read_" + std::to_string(::getpid()) + ".goal")).string();
  const std::string slow_path = quick_path + ".tokens.goal";
  std::ofstream(quick_path, std::ios::binary) << text;
  std::ofstream(slow_path, std::ios::binary) << slow_text;

  goal::Schedule quick, slow, parallel;
  int status = 0;
  auto equal = [](const goal::Schedule& x, const goal::Schedule& y) {
    bool same = x.size() == y.size() && x.first == y.first && x.done == y.done && x.start == y.start && x.cpus == y.cpus &&
                x.nics == y.nics;
    for (uint32_t i = 0; same && i < x.size(); ++i) {
      const goal::OpFields a = x.op(i), b = y.op(i);
      same = a.peer == b.peer && a.tag == b.tag && a.size == b.size && a.type == b.type && a.cpu == b.cpu && a.nic == b.nic;
    }
    return same;
  };
  try {
    const double quick_s = best_seconds(repeat, [&] { quick = goal::read_file(quick_path); });
    const double slow_s = best_seconds(repeat, [&] { slow = goal::read_file(slow_path); });
    const double parallel_s = threads > 1 ? best_seconds(repeat, [&] { parallel = goal::read_file(quick_path, threads); }) : 0;
    bool same = equal(quick, slow) && (threads == 1 || equal(quick, parallel));
    const double mb = double(text.size()) / 1e6;
    std::printf("GOAL text: %s, %.1f MB, %u ranks, %u operations, %llu dependencies; best of %d reads (read_file: mapped, one core)\n",
                file.empty() ? ("dissemination p = " + std::to_string(p)).c_str() : file.c_str(), mb, quick.ranks, quick.size(),
                (unsigned long long)quick.edges(), repeat);
    std::printf("| reader | seconds | MB/s | blocks read quickly |\n|---|---:|---:|---:|\n");
    std::printf("| token reader (every block) | %.3f | %.0f | %u |\n", slow_s, mb / slow_s, slow.quick_blocks);
    std::printf("| quick reader | %.3f | %.0f | %u |\n", quick_s, mb / quick_s, quick.quick_blocks);
    if (threads > 1)
      std::printf("| quick reader, rank blocks on %d threads | %.3f | %.0f | %u |\n", threads, parallel_s, mb / parallel_s, parallel.quick_blocks);
    std::printf("speed-up %.2fx; schedules %s\n", slow_s / quick_s, same ? "equal" : "DIFFER");
    if (!same) status = 1;
  } catch (const goal::ParseError& e) {
    std::fprintf(stderr, "ppsim_bench_goal_read: %s\n", e.what());
    status = 2;
  }
  std::filesystem::remove(quick_path);
  std::filesystem::remove(slow_path);
  return status;
}
