// `ppsim sweep`: one run per point of the cartesian product of lists and ranges, rows written as
// each point finishes (in point order), as CSV and/or JSON Lines; a point that cannot run is a row
// with status "refused" and the reason; a progress bar on a terminal; optional Chapter 5 metrics;
// optional gnuplot plot.
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

const std::vector<std::string> kColumns = {"point",
                                           "topology",
                                           "dims",
                                           "p",
                                           "logical",
                                           "map",
                                           "op",
                                           "algo",
                                           "m",
                                           "root",
                                           "ports",
                                           "lambda",
                                           "ts",
                                           "tw",
                                           "th",
                                           "routing",
                                           "combine",
                                           "backend",
                                           "steps",
                                           "time",
                                           "formula_time",
                                           "formula_ratio",
                                           "lower_bound_steps",
                                           "lower_bound_time",
                                           "messages",
                                           "words",
                                           "link_hops",
                                           "max_link_load",
                                           "verified",
                                           "mismatches",
                                           "wall_seconds",
                                           "problem",
                                           "tc",
                                           "serial_time",
                                           "parallel_time",
                                           "speedup",
                                           "efficiency",
                                           "cost",
                                           "status",
                                           "reason"};

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

std::vector<int64_t> expand_counts(const std::string& text, const char* option) {
  std::vector<int64_t> out;
  auto add = [&](int64_t x) {  // checked as values are made: 1..2^40:1 must not fill memory first
    if (out.size() == 100000) throw UsageError(std::string(option) + " has more than 100000 values");
    out.push_back(x);
  };
  for (const std::string& item : split_list(text)) {
    size_t dots = item.find("..");
    if (dots == std::string::npos) {
      add(parse_count(item, option));
      continue;
    }
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

void check_names(const std::string& topologies, const std::string& ports) {
  for (const auto& t : split_list(topologies)) parse_topology_option(t, "--topology");
  for (const auto& port : split_list(ports)) parse_ports_option(port);
}

namespace {

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void require_positive(const std::vector<int64_t>& values, const char* option) {
  for (int64_t v : values)
    if (v < 1) throw UsageError(std::string(option) + " must be at least 1 (got " + std::to_string(v) + ")");
}

// The options of every point of the product, in point order. What no point could take (an unknown
// name in a list, a count below 1) is a usage error here, before any row.
std::vector<RunOptions> point_options(const SweepOptions& s) {
  check_names(s.run.topology, s.run.ports);
  const auto topologies = split_list(s.run.topology);
  std::vector<std::pair<std::string, std::string>> shapes;  // (--p, --dims) of each shape
  if (!s.run.dims.empty())
    for (const auto& d : split_list(s.run.dims)) shapes.push_back({"", d});
  if (!s.run.p.empty()) {
    const auto ps = expand_counts(s.run.p, "--p");
    require_positive(ps, "--p");
    for (int64_t p : ps) shapes.push_back({std::to_string(p), ""});
  }
  if (shapes.empty()) throw UsageError(kNeedProcessors);
  const auto ms = expand_counts(s.run.m, "--m"), lambdas = expand_counts(s.lambdas, "--lambda");
  require_positive(ms, "--m");
  require_positive(lambdas, "--lambda");
  const auto ports = split_list(s.run.ports);
  const auto tss = expand_reals(s.ts, "--ts"), tws = expand_reals(s.tw, "--tw"), ths = expand_reals(s.th, "--th");
  const Operation op = parse_op_option(s.run.op);
  std::vector<std::string> algos;
  if (s.run.algo.empty() || s.run.algo == "all") {
    for (const auto& a : algorithms())
      if (a.op == op) algos.push_back(a.name);
  } else {
    algos = split_list(s.run.algo);
    for (const auto& a : algos)
      if (!find_algorithm(a)) throw UsageError("--algo '" + a + "' is unknown (see `ppsim list`)");
  }
  std::vector<RunOptions> out;
  for (const auto& topo : topologies)
    for (const auto& [p, dims] : shapes)
      for (const auto& algo : algos)
        for (int64_t m : ms)
          for (int64_t lambda : lambdas)
            for (const auto& port : ports)
              for (double ts : tss)
                for (double tw : tws)
                  for (double th : ths) {
                    RunOptions o = s.run;
                    o.topology = topo;
                    o.p = p;
                    o.dims = dims;
                    o.algo = algo;
                    o.m = std::to_string(m);
                    o.lambda = int(lambda);
                    o.ports = port;
                    o.ts = ts;
                    o.tw = tw;
                    o.th = th;
                    o.threads = 1;
                    out.push_back(std::move(o));
                  }
  return out;
}

// The configuration columns of a point whose configuration could not be built: its options.
nlohmann::json option_columns(const RunOptions& o) {
  auto count = [](const std::string& text) { return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(parse_count(text, "")); };
  Operation op = Operation::allreduce;
  parse_operation(o.op, op);  // checked by point_options
  return {{"topology", o.topology},   {"dims", o.dims}, {"p", count(o.p)}, {"logical", o.logical}, {"map", o.map},
          {"op", operation_name(op)}, {"algo", o.algo}, {"m", count(o.m)}, {"root", o.root},       {"ports", o.ports},
          {"lambda", o.lambda},       {"ts", o.ts},     {"tw", o.tw},      {"th", o.th},           {"routing", o.routing},
          {"combine", o.combine}};
}

nlohmann::json config_columns(const RunConfig& c) {
  const Topology& t = physical_topology(c);
  nlohmann::json row = model_json(c);
  row.update(nlohmann::json{{"topology", topology_name(t.kind)},
                            {"dims", topology_dims(t)},
                            {"p", t.p},
                            {"logical", c.mapped ? nlohmann::json(topology_shape(c.topology)) : nlohmann::json("")},
                            {"map", map_kind_name(c.mapped ? c.mapping.kind : MapKind::identity)},
                            {"op", operation_name(c.algorithm->op)},
                            {"algo", c.algorithm->name},
                            {"m", c.params.m},
                            {"root", c.params.root}});
  return row;
}

// The figures of a point that ran; with --tc and --problem, Chapter 5's too.
nlohmann::json result_columns(const SweepOptions& s, const RunConfig& c, const RunResult& r) {
  double f = formula_time(c);
  nlohmann::json row = {{"steps", r.steps},
                        {"time", r.time},
                        {"formula_time", number_or_null(f)},
                        {"formula_ratio", number_or_null(std::isnan(f) || f == 0 ? std::nan("") : r.time / f)},
                        {"lower_bound_steps", postal_lower_bound_json(c)},
                        {"lower_bound_time", number_or_null(lower_bound_time(c))},
                        {"messages", r.messages},
                        {"words", r.words},
                        {"link_hops", r.link_hops},
                        {"max_link_load", r.max_link_load},
                        {"verified", r.verified},
                        {"mismatches", r.mismatches},
                        {"wall_seconds", r.wall_seconds}};
  // Chapter 5: an N-element problem with t_c per local combine. Serial: (N - 1) t_c. Parallel: the
  // local fold of N/p elements, one combine per communication step, and the simulated communication.
  if (s.tc >= 0 && s.problem > 0) {
    const double p = double(physical_topology(c).p), n = double(s.problem);
    const double serial = (n - 1) * s.tc;
    const double parallel = (std::ceil(n / p) - 1) * s.tc + double(r.steps) * s.tc + r.time;
    row["problem"] = s.problem;
    row["tc"] = s.tc;
    row["serial_time"] = serial;
    row["parallel_time"] = parallel;
    row["speedup"] = parallel > 0 ? serial / parallel : 0.0;
    row["efficiency"] = parallel > 0 ? serial / parallel / p : 0.0;
    row["cost"] = p * parallel;
  }
  return row;
}

bool runs_on_device(const SweepPoint& pt, bool device) {
  return pt.backend == Backend::cuda || (pt.backend == Backend::automatic && device);
}

SweepPoint plan_point(const RunOptions& o, bool device) {
  SweepPoint pt;
  bool built = false;
  try {
    pt.config = build_config(o, pt.backend);
    built = true;
    pt.config.keep_buffers = false;                           // a row needs the figures only (on a GPU: verified there)
    validate_config(pt.config, !runs_on_device(pt, device));  // the GPU checks its own memory
  } catch (const std::exception& e) {                         // e.g. an algorithm not for this topology or p
    pt.refused = one_line(e.what());
  }
  pt.columns = built ? config_columns(pt.config) : option_columns(o);
  return pt;
}

}  // namespace

std::vector<SweepPoint> sweep_points(const SweepOptions& s, bool device) {
  std::vector<SweepPoint> points;
  for (const RunOptions& o : point_options(s)) points.push_back(plan_point(o, device));
  return points;
}

PointOutcome run_point(const SweepPoint& pt, bool device) {
  if (!pt.refused.empty()) return {std::nullopt, "", pt.refused};
  const bool on_device = runs_on_device(pt, device);
  std::string cuda_refusal;
  if (on_device) {
    try {
      return {run_simulation(pt.config, Backend::cuda), "cuda", ""};
    } catch (const ScheduleError& e) {  // the CPU would break the same rule
      return {std::nullopt, "cuda", one_line(e.what())};
    } catch (const ConfigError& e) {  // e.g. device memory: auto falls back to the CPU
      if (pt.backend == Backend::cuda) return {std::nullopt, "cuda", one_line(e.what())};
      cuda_refusal = "cuda refused: " + one_line(e.what()) + "; ";
    }
  }
  std::string why;
  try {
    if (on_device) require_host_memory(estimate_run_bytes(pt.config), "");  // planned for the GPU only
    RunResult r = run_simulation(pt.config, Backend::cpu);
    return {std::move(r), "cpu", cuda_refusal.empty() ? "" : cuda_refusal + "ran on the CPU"};
  } catch (const ConfigError& e) {  // e.g. host memory
    why = e.what();
  } catch (const ScheduleError& e) {  // e.g. more sends per step than the port model allows
    why = e.what();
  }
  return {std::nullopt, "cpu", cuda_refusal + (cuda_refusal.empty() ? "" : "on the CPU: ") + one_line(why)};
}

nlohmann::json sweep_row(const SweepOptions& s, int64_t index, const SweepPoint& pt, const PointOutcome& out) {
  nlohmann::json row = pt.columns;
  if (out.result) row.update(result_columns(s, pt.config, *out.result));
  row["point"] = index;
  row["backend"] = out.backend.empty() ? nlohmann::json(nullptr) : nlohmann::json(out.backend);
  row["status"] = out.result ? "ok" : "refused";
  row["reason"] = out.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(out.reason);
  for (const auto& k : kColumns)  // a refused row: only its configuration
    if (!row.contains(k)) row[k] = nullptr;
  return row;
}

namespace {

void check_sweep_options(const SweepOptions& s) {
  if (s.csv.empty() && s.jsonl.empty()) throw UsageError("give --csv FILE and/or --jsonl FILE (- for stdout)");
  if (s.csv == "-" && s.jsonl == "-") throw UsageError("--csv and --jsonl cannot both go to stdout");
  if (s.jobs < 0 || s.jobs > kMaxThreads)
    throw UsageError("--jobs must be between 0 and " + std::to_string(kMaxThreads) + " (got " + std::to_string(s.jobs) + ")");
  if ((s.tc >= 0) != (s.problem > 0)) throw UsageError("--tc and --problem go together (Chapter 5 metrics)");
  if (!s.plot.empty()) {  // refuse a plot that cannot be made before writing anything
    check_plot_file(s.plot);
    require_writable(s.plot, "--plot");
  }
}

// Before any file is written: a sweep none of whose points can run, or that asks for a GPU that is
// not there, is a usage error. Returns whether any point will run on the GPU.
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
    for (const auto& k : kColumns) header += (header.empty() ? "" : ",") + k;
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
    for (const auto& k : kColumns) line += (line.empty() ? "" : ",") + csv_cell(row[k]);
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

Subcommand add_sweep_command(CLI::App& app) {
  auto s = std::make_shared<SweepOptions>();
  RunOptions& o = s->run;
  auto* sweep = app.add_subcommand("sweep", "run every point of lists and ranges; rows as CSV / JSON Lines, optional plot");
  add_run_options(sweep, o,
                  {{"--topology", "topologies, comma-separated"},
                   {"--p", "processors: 8,13,64 or 2^4..2^20 (doubling) or 10..100:10"},
                   {"--dims", "mesh/torus extents, comma-separated (4x4,8x8)"},
                   {"--op", "operation"},
                   {"--algo", "algorithms, comma-separated, or all (default: all that apply)"},
                   {"--m", "message sizes (list or range)"},
                   {"--root", "root"},
                   {"--ports", "port models, comma-separated"}});
  sweep->add_option("--lambda", s->lambdas, "postal latencies (list or range)")->capture_default_str();
  sweep->add_option("--ts", s->ts, "startup times, comma-separated")->capture_default_str();
  sweep->add_option("--tw", s->tw, "per-word times, comma-separated")->capture_default_str();
  sweep->add_option("--th", s->th, "per-hop times, comma-separated")->capture_default_str();
  add_run_options(sweep, o,
                  {{"--routing", "cut-through | store-and-forward"},
                   {"--combine", "operator"},
                   {"--input", "iota | random:SEED"},
                   {"--backend", "cpu | cuda | auto"},
                   {"--logical", "logical topology mapped onto --topology"},
                   {"--logical-dims", "logical mesh extents"},
                   {"--map", "identity | gray | snake"},
                   {"--n", "scan: elements in all"},
                   {"--shift", "shift distance"},
                   {"--sources", "kbroadcast/kscatter sources"}});
  sweep->add_option("--csv", s->csv, "write rows as CSV (- for stdout)");
  sweep->add_option("--jsonl", s->jsonl, "write rows as JSON Lines (- for stdout)");
  sweep->add_option("--plot", s->plot, "draw the rows with gnuplot into FILE.svg or FILE.png");
  sweep->add_option("--plot-y", s->plot_y, "time | steps | speedup | efficiency | cost | parallel_time | max_link_load | link_hops")
      ->capture_default_str();
  sweep->add_option("--tc", s->tc, "Chapter 5: time per local combine (with --problem)");
  sweep->add_option("--problem", s->problem, "Chapter 5: elements of the problem (speedup, efficiency, cost)");
  sweep->add_option("--jobs", s->jobs, "points at once (0: every core; min(4, cores) when points run on the GPU, each on its own stream)")
      ->capture_default_str();
  sweep->add_flag("--quiet", s->quiet, "no progress bar or notes");
  return {sweep, [s] { return run_sweep(*s); }};
}

}  // namespace ppsim::cli
