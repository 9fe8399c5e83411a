// `ppsim sweep`: one run per point of the cartesian product of lists and ranges, rows written as
// each point finishes (in point order), as CSV and/or JSON Lines; a progress bar on a terminal;
// optional Chapter 5 metrics; optional gnuplot plot.
#include "cli/sweep.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "ppsim/report.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/run.h"

namespace ppsim::cli {

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw UsageError("empty item in the list '" + text + "'");
    out.push_back(item);
  }
  if (out.empty()) throw UsageError("empty list");
  return out;
}

// A file (or stdout) that takes whole lines in one write(2), so a killed sweep never leaves half a row.
class LineSink {
 public:
  explicit LineSink(const std::string& path) : path_(path) {
    if (path.empty()) return;
    fd_ = path == "-" ? 1 : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) throw UsageError("cannot write " + path);
  }
  ~LineSink() { if (fd_ > 2) ::close(fd_); }
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

const std::vector<std::string> kColumns = {
    "point", "topology", "dims", "p", "logical", "map", "op", "algo", "m", "root", "ports", "lambda", "ts", "tw", "th",
    "routing", "combine", "backend", "steps", "time", "formula_time", "formula_ratio", "lower_bound_steps",
    "lower_bound_time", "messages", "words", "link_hops", "max_link_load", "verified", "mismatches", "wall_seconds",
    "problem", "tc", "serial_time", "parallel_time", "speedup", "efficiency", "cost"};

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

nlohmann::json number_or_null(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

}  // namespace

std::vector<int64_t> expand_counts(const std::string& text, const char* option) {
  std::vector<int64_t> out;
  auto add = [&](int64_t x) {  // checked as values are made: 1..2^40:1 must not fill memory first
    if (out.size() == 100000) throw UsageError(std::string(option) + " has more than 100000 values");
    out.push_back(x);
  };
  for (const std::string& item : split_list(text)) {
    size_t dots = item.find("..");
    if (dots == std::string::npos) { add(parse_count(item, option)); continue; }
    std::string rest = item.substr(dots + 2);
    size_t colon = rest.find(':');
    int64_t a = parse_count(item.substr(0, dots), option);
    int64_t b = parse_count(rest.substr(0, colon), option);
    if (a < 1 || b < a) throw UsageError(std::string(option) + " range '" + item + "' must go up from at least 1");
    // The next value is made only when it is at most b, so nothing overflows near 2^63.
    if (colon == std::string::npos) {
      for (int64_t x = a;; x *= 2) {  // a..b doubles
        add(x);
        if (x > b / 2) break;
      }
    } else {
      int64_t step = parse_count(rest.substr(colon + 1), option);
      if (step < 1) throw UsageError(std::string(option) + " range '" + item + "' needs a step of at least 1");
      for (int64_t x = a;; x += step) {
        add(x);
        if (x > b - step) break;
      }
    }
  }
  return out;
}

std::vector<double> expand_reals(const std::string& text, const char* option) {
  std::vector<double> out;
  for (const std::string& item : split_list(text)) {
    try {
      size_t used = 0;
      double v = std::stod(item, &used);
      if (used != item.size() || !std::isfinite(v) || v < 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw UsageError(std::string(option) + " '" + item + "' is not a non-negative number");
    }
  }
  return out;
}

std::vector<SweepPoint> sweep_points(const SweepOptions& s, int64_t& skipped, std::string& last_reason) {
  std::vector<SweepPoint> points;
  skipped = 0;
  const auto topologies = split_list(s.run.topology);
  std::vector<std::string> shapes;  // "p:<n>" or "dims:<RxC>"
  if (!s.run.dims.empty()) for (const auto& d : split_list(s.run.dims)) shapes.push_back("dims:" + d);
  if (!s.run.p.empty()) for (int64_t p : expand_counts(s.run.p, "--p")) shapes.push_back("p:" + std::to_string(p));
  if (shapes.empty()) throw UsageError("give --p (or --dims for mesh and torus)");
  const auto ms = expand_counts(s.run.m, "--m");
  const auto ports = split_list(s.run.ports);
  const auto lambdas = expand_counts(s.lambdas, "--lambda");
  const auto tss = expand_reals(s.ts, "--ts"), tws = expand_reals(s.tw, "--tw"), ths = expand_reals(s.th, "--th");
  Operation op;
  if (!parse_operation(s.run.op, op)) throw UsageError("--op '" + s.run.op + "' is unknown (see `ppsim list`)");
  std::vector<std::string> algos;
  if (s.run.algo.empty() || s.run.algo == "all") {
    for (const auto& a : algorithms()) if (a.op == op) algos.push_back(a.name);
  } else {
    algos = split_list(s.run.algo);
    for (const auto& a : algos) if (!find_algorithm(a)) throw UsageError("--algo '" + a + "' is unknown (see `ppsim list`)");
  }
  for (const auto& topo : topologies)
    for (const auto& shape : shapes)
      for (const auto& algo : algos)
        for (int64_t m : ms)
          for (int64_t lambda : lambdas)
            for (const auto& port : ports)
              for (double ts : tss)
                for (double tw : tws)
                  for (double th : ths) {
                    RunOptions o = s.run;
                    o.topology = topo;
                    o.p = shape.rfind("p:", 0) == 0 ? shape.substr(2) : "";
                    o.dims = shape.rfind("dims:", 0) == 0 ? shape.substr(5) : "";
                    o.algo = algo;
                    o.m = std::to_string(m);
                    o.lambda = int(lambda);
                    o.ports = port;
                    o.ts = ts;
                    o.tw = tw;
                    o.th = th;
                    o.threads = 1;
                    try {
                      Backend backend = Backend::automatic;
                      RunConfig c = build_config(o, backend);
                      c.keep_buffers = false;  // a row needs the figures only (on a GPU: verified there)
                      validate_config(c, backend != Backend::cuda);  // a CUDA run checks device memory itself
                      points.push_back({c, backend});
                    } catch (const std::exception& e) {  // e.g. an algorithm not for this topology or p
                      ++skipped;
                      last_reason = e.what();
                    }
                  }
  return points;
}

nlohmann::json sweep_row(const SweepOptions& s, int64_t index, const SweepPoint& pt, const RunResult& r) {
  const RunConfig& c = pt.config;
  const Topology& t = physical_topology(c);
  std::string dims;
  for (int k = 0; k < t.ndims && (t.kind == TopologyKind::mesh || t.kind == TopologyKind::torus); ++k)
    dims += (k ? "x" : "") + std::to_string(t.dims[k]);
  double f = formula_time(c);
  int64_t bound = postal_lower_bound_steps(c);
  nlohmann::json row = {{"point", index}, {"topology", topology_name(t.kind)}, {"dims", dims}, {"p", t.p},
                        {"logical", c.mapped ? nlohmann::json(topology_shape(c.topology)) : nlohmann::json("")},
                        {"map", map_kind_name(c.mapped ? c.mapping.kind : MapKind::identity)},
                        {"op", operation_name(c.algorithm->op)}, {"algo", c.algorithm->name}, {"m", c.params.m},
                        {"root", c.params.root}, {"ports", port_spec_name(c.ports)}, {"lambda", c.params.lambda},
                        {"ts", c.cost.ts}, {"tw", c.cost.tw}, {"th", c.cost.th},
                        {"routing", c.cost.routing == Routing::cut_through ? "cut-through" : "store-and-forward"},
                        {"combine", operator_name(c.combine)}, {"backend", r.backend}, {"steps", r.steps}, {"time", r.time},
                        {"formula_time", number_or_null(f)},
                        {"formula_ratio", number_or_null(std::isnan(f) || f == 0 ? std::nan("") : r.time / f)},
                        {"lower_bound_steps", bound < 0 ? nlohmann::json(nullptr) : nlohmann::json(bound)},
                        {"lower_bound_time", number_or_null(lower_bound_time(c))}, {"messages", r.messages},
                        {"words", r.words}, {"link_hops", r.link_hops}, {"max_link_load", r.max_link_load},
                        {"verified", r.verified}, {"mismatches", r.mismatches}, {"wall_seconds", r.wall_seconds}};
  // Chapter 5: an N-element problem with t_c per local combine. Serial: (N - 1) t_c. Parallel: the
  // local fold of N/p elements, one combine per communication step, and the simulated communication.
  if (s.tc >= 0 && s.problem > 0) {
    const double p = double(t.p), n = double(s.problem);
    const double serial = (n - 1) * s.tc;
    const double parallel = (std::ceil(n / p) - 1) * s.tc + double(r.steps) * s.tc + r.time;
    row["problem"] = s.problem;
    row["tc"] = s.tc;
    row["serial_time"] = serial;
    row["parallel_time"] = parallel;
    row["speedup"] = parallel > 0 ? serial / parallel : 0.0;
    row["efficiency"] = parallel > 0 ? serial / parallel / p : 0.0;
    row["cost"] = p * parallel;
  } else {
    for (const char* k : {"problem", "tc", "serial_time", "parallel_time", "speedup", "efficiency", "cost"}) row[k] = nullptr;
  }
  return row;
}

int run_sweep(const SweepOptions& s) {
  if (s.csv.empty() && s.jsonl.empty()) throw UsageError("give --csv FILE and/or --jsonl FILE (- for stdout)");
  if (s.csv == "-" && s.jsonl == "-") throw UsageError("--csv and --jsonl cannot both go to stdout");
  if (s.jobs < 0 || s.jobs > kMaxThreads)
    throw UsageError("--jobs must be between 0 and " + std::to_string(kMaxThreads) + " (got " + std::to_string(s.jobs) + ")");
  if ((s.tc >= 0) != (s.problem > 0)) throw UsageError("--tc and --problem go together (Chapter 5 metrics)");
  if (!s.plot.empty()) {  // refuse a plot that cannot be made before writing anything
    const std::string ext = std::filesystem::path(s.plot).extension().string();
    if (ext != ".svg" && ext != ".png") throw UsageError("--plot '" + s.plot + "' must end in .svg or .png");
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
      throw UsageError("--plot needs gnuplot (Debian package gnuplot-nox; scripts/setup.sh installs it)");
    require_writable(s.plot, "--plot");
  }
  int64_t skipped = 0;
  std::string reason;
  std::vector<SweepPoint> points = sweep_points(s, skipped, reason);
  if (points.empty()) throw UsageError("no point of the sweep can run" + (reason.empty() ? std::string() : ": " + reason));
  bool any_cuda = false;
  for (const auto& pt : points) any_cuda = any_cuda || pt.backend == Backend::cuda;
  if (any_cuda) {  // refused before any file is written
    CudaStatus status = cuda_status();
    if (!status.usable) throw UsageError("--backend cuda: " + (status.built ? "no usable CUDA device (" + status.why + ")" : status.why));
  }
  LineSink csv(s.csv), jsonl(s.jsonl);
  if (csv.active()) {
    std::string header;
    for (const auto& k : kColumns) header += (header.empty() ? "" : ",") + k;
    csv.line(header);
  }
  // CPU points: one per core. CUDA points: one at a time from one host thread; each point's
  // steps are queued back to back on the device, which returns to the host only after its sizing
  // pass and at its end, and the next point follows at once.
  const int jobs = s.jobs > 0 ? s.jobs : any_cuda ? 1 : int(std::max(1u, std::thread::hardware_concurrency()));
  const bool bar = isatty(2) && !s.quiet;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::optional<nlohmann::json>> rows(points.size());
  std::mutex lock;
  size_t next_to_write = 0, done = 0;
  std::atomic<size_t> next_point{0};
  std::string failure;
  std::vector<nlohmann::json> written;  // kept for the plot
  auto worker = [&]() {
    for (size_t i = next_point++; i < points.size(); i = next_point++) {
      nlohmann::json row;
      try {
        RunResult r = run_simulation(points[i].config, points[i].backend == Backend::cuda ? Backend::cuda : Backend::cpu);
        row = sweep_row(s, int64_t(i), points[i], r);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> g(lock);
        if (failure.empty()) failure = e.what();
        next_point = points.size();
        return;
      }
      std::lock_guard<std::mutex> g(lock);
      rows[i] = std::move(row);
      ++done;
      while (next_to_write < rows.size() && rows[next_to_write]) {  // in point order, each row whole
        const nlohmann::json& out = *rows[next_to_write];
        if (csv.active()) {
          std::string line;
          for (const auto& k : kColumns) line += (line.empty() ? "" : ",") + csv_cell(out[k]);
          csv.line(line);
        }
        jsonl.line(out.dump());
        written.push_back(out);
        ++next_to_write;
      }
      if (bar) {
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double left = elapsed / double(done) * double(points.size() - done);
        const int width = 30;
        int filled = int(double(width) * double(done) / double(points.size()));
        std::fprintf(stderr, "\r[%s%s] %zu/%zu points, %.1f s elapsed, ~%.1f s left ", std::string(size_t(filled), '#').c_str(),
                     std::string(size_t(width - filled), '.').c_str(), done, points.size(), elapsed, left);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::min<int>(jobs, int(points.size())); ++j) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  if (bar) std::fprintf(stderr, "\n");
  if (!failure.empty()) throw UsageError("sweep stopped: " + failure);
  if (skipped > 0 && !s.quiet)
    std::fprintf(stderr, "ppsim: %lld of %lld points skipped (e.g. %s)\n", (long long)skipped, (long long)(skipped + int64_t(points.size())),
                 reason.c_str());
  if (!s.plot.empty()) plot_sweep(written, s.plot, s.plot_y);
  return 0;
}

}  // namespace ppsim::cli
