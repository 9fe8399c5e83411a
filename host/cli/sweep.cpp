// `ppsim sweep`: runs the points of the cartesian product of lists and ranges (sweep_points.cpp
// plans them) on threads, writes their rows as each finishes (in point order), as CSV and/or JSON
// Lines; a point that cannot run is a row with status "refused" and the reason; a progress bar on a
// terminal; optional gnuplot plot.
#include "sweep.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "commands.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/report.h"
#include "ppsim/run.h"

namespace ppsim::cli {

namespace {

// A file (or stdout) that takes whole lines in one write(2), so a killed sweep never leaves half a row.
class LineSink {
 public:
  explicit LineSink(const std::string& path) : path_(path) {
    if (path.empty()) return;
    fd_ = path == "-" ? 1 : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) throw UsageError("cannot write " + path);
  }
  ~LineSink() {
    if (fd_ > 2) ::close(fd_);
  }
  bool active() const { return fd_ >= 0; }
  void line(const std::string& text) {
    if (fd_ < 0) return;
    std::string all = text + "\n";
    const char* at = all.data();
    size_t left = all.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, at, left);
      if (n <= 0) throw UsageError("failed writing " + path_);
      at += n;
      left -= size_t(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string csv_cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  return v.dump();
}

}  // namespace

namespace {

void check_sweep_options(const SweepOptions& s) {
  if (s.csv.empty() && s.jsonl.empty()) throw UsageError("give --csv FILE and/or --jsonl FILE (- for stdout)");
  if (s.csv == "-" && s.jsonl == "-") throw UsageError("--csv and --jsonl cannot both go to stdout");
  if (s.jobs < 0 || s.jobs > kMaxThreads)
    throw UsageError("--jobs must be between 0 and " + std::to_string(kMaxThreads) + " (got " + std::to_string(s.jobs) + ")");
  if (!s.plot.empty()) {  // refuse a plot that cannot be made before writing anything
    check_plot_file(s.plot);
    require_writable(s.plot, "--plot");
  }
}

// Points at once: every core for CPU points; for GPU points a few (each run queues its steps on a
// stream of its own, so independent points overlap on the device), at most the cores.
int sweep_jobs(const SweepOptions& s, bool any_device) {
  constexpr int kDeviceJobs = 4;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return s.jobs > 0 ? s.jobs : any_device ? std::min(kDeviceJobs, cores) : cores;
}

// Takes rows as points finish and writes them in point order, each whole; counts the outcomes in
// that order, keeps the ok rows for the plot and draws the progress bar. Callers hold one lock.
class RowWriter {
 public:
  RowWriter(const SweepOptions& s, size_t points)
      : csv_(s.csv), jsonl_(s.jsonl), rows_(points), bar_(isatty(2) && !s.quiet), start_(std::chrono::steady_clock::now()) {
    std::string header;
    for (const auto& k : kSweepColumns) header += (header.empty() ? "" : ",") + k;
    csv_.line(header);
  }
  void put(size_t i, nlohmann::json row) {
    rows_[i] = std::move(row);
    ++done_;
    while (next_ < rows_.size() && rows_[next_]) write(*rows_[next_++]);
    if (bar_) progress();
  }
  void finish() const {
    if (bar_) std::fprintf(stderr, "\n");
  }

  std::vector<nlohmann::json> ok_rows;
  int64_t refused = 0, fallbacks = 0, failed = 0, first_refused = -1, first_failed = -1;
  std::string first_reason, first_fallback;

 private:
  void write(const nlohmann::json& row) {
    std::string line;
    for (const auto& k : kSweepColumns) line += (line.empty() ? "" : ",") + csv_cell(row[k]);
    csv_.line(line);
    jsonl_.line(row.dump());
    const int64_t point = row["point"].get<int64_t>();
    if (row["status"] == "refused") {
      if (refused++ == 0) {
        first_refused = point;
        first_reason = row["reason"].get<std::string>();
      }
      return;
    }
    if (!row["reason"].is_null() && fallbacks++ == 0) first_fallback = row["reason"].get<std::string>();
    if (!row["verified"].get<bool>() && failed++ == 0) first_failed = point;
    ok_rows.push_back(row);
  }
  void progress() const {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    double left = elapsed / double(done_) * double(rows_.size() - done_);
    const int width = 30;
    int filled = int(double(width) * double(done_) / double(rows_.size()));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu points, %.1f s elapsed, ~%.1f s left ", std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(width - filled), '.').c_str(), done_, rows_.size(), elapsed, left);
  }

  LineSink csv_, jsonl_;
  std::vector<std::optional<nlohmann::json>> rows_;
  size_t next_ = 0, done_ = 0;
  bool bar_;
  std::chrono::steady_clock::time_point start_;
};

// Runs the points on `jobs` threads; a genuine error (not a refusal) stops the sweep.
void run_points(const SweepOptions& s, const std::vector<SweepPoint>& points, bool device, int jobs, RowWriter& out) {
  std::mutex lock;
  std::atomic<size_t> next_point{0};
  std::string failure;
  auto worker = [&]() {
    for (size_t i = next_point++; i < points.size(); i = next_point++) {
      nlohmann::json row;
      try {
        row = sweep_row(s, int64_t(i), points[i], run_point(points[i], device));
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> g(lock);
        if (failure.empty()) failure = one_line(e.what());
        next_point = points.size();
        return;
      }
      std::lock_guard<std::mutex> g(lock);
      out.put(i, std::move(row));
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::min<int>(jobs, int(points.size())); ++j) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  out.finish();
  if (!failure.empty()) throw UsageError("sweep stopped: " + failure);
}

}  // namespace

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

int run_sweep(const SweepOptions& s) {
  check_sweep_options(s);
  const bool device = s.run.backend != "cpu" && cuda_status().usable;
  const std::vector<SweepPoint> points = sweep_points(s, device);
  const int jobs = sweep_jobs(s, check_points(points, device));
  RowWriter out(s, points.size());
  run_points(s, points, device, jobs, out);
  const auto total = (long long)points.size();
  if (out.ok_rows.empty()) throw UsageError("no point of the sweep can run: " + out.first_reason);
  if (!s.quiet && out.refused > 0)
    std::fprintf(stderr, "ppsim: %lld of %lld points refused (first, point %lld: %s); see the status and reason columns\n",
                 (long long)out.refused, total, (long long)out.first_refused, out.first_reason.c_str());
  if (!s.quiet && out.fallbacks > 0)
    std::fprintf(stderr, "ppsim: %lld of %lld points ran on the CPU (first: %s)\n", (long long)out.fallbacks, total,
                 out.first_fallback.c_str());
  if (!s.plot.empty()) plot_sweep(out.ok_rows, s.plot, s.plot_y);
  if (out.failed > 0) {
    std::fprintf(stderr, "ppsim: error: %lld of %lld points failed verification (first: point %lld)\n", (long long)out.failed, total,
                 (long long)out.first_failed);
    return 1;
  }
  return 0;
}

void add_sweep_options(CLI::App* sweep, SweepOptions& s) {
  RunOptions& o = s.run;
  add_run_options(sweep, o,
                  {{"--topology", "topologies, comma-separated"},
                   {"--p", "processors: 8,13,64 or 2^4..2^20 (doubling) or 10..100:10"},
                   {"--dims", "mesh/torus/fattree/dragonfly extents, comma-separated (4x4,8x8)"},
                   {"--op", "operations, comma-separated"},
                   {"--algo", "algorithms, comma-separated, or all (default: all that apply)"},
                   {"--m", "message sizes (list or range)"},
                   {"--root", "root"},
                   {"--ports", "port models, comma-separated"}});
  sweep->add_option("--lambda", s.lambdas, "postal latencies (list or range)")->capture_default_str();
  sweep->add_option("--ts", s.ts, "startup times, comma-separated")->capture_default_str();
  sweep->add_option("--tw", s.tw, "per-word times, comma-separated")->capture_default_str();
  sweep->add_option("--th", s.th, "per-hop times, comma-separated")->capture_default_str();
  add_run_options(sweep, o,
                  {{"--tw-class", "per-word times of link classes, CLASS=X[,CLASS=X...] (every point)"},
                   {"--routing", "cut-through | store-and-forward"},
                   {"--combine", "operator"},
                   {"--input", "iota | random:SEED"},
                   {"--backend", "cpu | cuda | auto"},
                   {"--logical", "logical topology mapped onto --topology"},
                   {"--logical-dims", "logical mesh extents"},
                   {"--map", "identity | gray | snake"},
                   {"--n", "scan: elements in all"},
                   {"--shift", "shift distance"},
                   {"--sources", "kbroadcast/kscatter sources"},
                   {"--gamma", "time per combined word"},
                   {"--radix", "Bruck all-to-all, k-nomial trees: the radix"},
                   {"--segments", "pipelined broadcast: segments"}});
  add_loggp_options(sweep, o);
  sweep->add_option("--csv", s.csv, "write rows as CSV (- for stdout)");
  sweep->add_option("--jsonl", s.jsonl, "write rows as JSON Lines (- for stdout)");
  sweep->add_option("--plot", s.plot, "draw the rows with gnuplot into FILE.svg or FILE.png");
  sweep->add_option("--plot-y", s.plot_y, "time | steps | speedup | efficiency | cost | parallel_time | max_link_load | link_hops")
      ->capture_default_str();
  sweep->add_option("--tc", s.tc, "Chapter 5: time per local combine (with --problem)");
  sweep->add_option("--problem", s.problem, "Chapter 5: elements of the problem (speedup, efficiency, cost)");
  sweep->add_option("--jobs", s.jobs, "points at once (0: every core; min(4, cores) when points run on the GPU, each on its own stream)")
      ->capture_default_str();
  sweep->add_flag("--quiet", s.quiet, "no progress bar or notes");
}

Subcommand add_sweep_command(CLI::App& app) {
  auto s = std::make_shared<SweepOptions>();
  auto* sweep = app.add_subcommand("sweep", "run every point of lists and ranges; rows as CSV / JSON Lines, optional plot");
  add_sweep_options(sweep, *s);
  return {sweep, [s] { return run_sweep(*s); }};
}

}  // namespace ppsim::cli
