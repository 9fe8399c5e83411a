// `ppsim sweep`: runs the points of the cartesian product of lists and ranges (study/sweep.h
// plans them and runs them on threads, and under mpirun on every rank's), writes their rows as each
// finishes (in point order), as CSV and/or JSON Lines, or else as a table on stdout; a point that
// cannot run is a row with status "refused" and the reason; a progress bar on a terminal; optional
// gnuplot plot. Under mpirun every rank plans the same points and rank 0 alone writes, prints and
// plots: the rows are one process's (wall_seconds aside).
#include "sweep_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
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
#include "options.h"
#include "output_file.h"
#include "plot.h"
#include "study/progress.h"
#include "study/spread.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/report.h"
#include "ppsim/run.h"

namespace ppsim::cli {

namespace {

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

// The aligned table a sweep prints when it writes no CSV or JSON Lines: the columns a person reads
// first, one line per point as it is written.
class RowTable {
 public:
  explicit RowTable(const std::vector<SweepPoint>& points) {
    for (const SweepPoint& pt : points) {
      topology_ = std::max(topology_, topology_text(pt.columns).size());
      algo_ = std::max(algo_, text(pt.columns["algo"]).size());
      p_ = std::max(p_, text(pt.columns["p"]).size());
      m_ = std::max(m_, text(pt.columns["m"]).size());
    }
  }
  std::string header() const {
    return format("topology", "p", "m", "algo", "steps", "time", "formula", "verified", "status");
  }
  std::string line(const nlohmann::json& row) const {
    const bool ok = row["status"] == "ok";
    return format(topology_text(row), text(row["p"]), text(row["m"]), text(row["algo"]), ok ? text(row["steps"]) : "-",
                  ok ? number(row["time"]) : "-", ok ? number(row["formula_time"]) : "-",
                  ok ? (row["verified"].get<bool>() ? "yes" : "NO") : "-",
                  ok ? std::string("ok") : "refused: " + row["reason"].get<std::string>());
  }

 private:
  static std::string text(const nlohmann::json& v) { return v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump(); }
  static std::string number(const nlohmann::json& v) {
    if (v.is_null()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  static std::string topology_text(const nlohmann::json& row) {
    const std::string dims = text(row["dims"]);
    return text(row["topology"]) + (dims.empty() ? "" : " " + dims);
  }
  static std::string pad(const std::string& s, size_t width, bool right) {
    const std::string fill(s.size() < width ? width - s.size() : 0, ' ');
    return right ? fill + s : s + fill;
  }
  std::string format(const std::string& topology, const std::string& p, const std::string& m, const std::string& algo,
                     const std::string& steps, const std::string& time, const std::string& formula, const std::string& verified,
                     const std::string& status) const {
    return pad(topology, topology_, false) + "  " + pad(p, p_, true) + "  " + pad(m, m_, true) + "  " + pad(algo, algo_, false) + "  " +
           pad(steps, 5, true) + "  " + pad(time, 12, true) + "  " + pad(formula, 12, true) + "  " + pad(verified, 8, false) + "  " +
           status;
  }

  size_t topology_ = 8, algo_ = 4, p_ = 1, m_ = 1;
};

void check_sweep_options(const SweepOptions& s) {
  require_distinct_outputs({{"--csv", s.csv}, {"--jsonl", s.jsonl}, {"--plot", s.plot}});
  check_plot_y(s.plot_y, s.problem > 0);
  // refuse a plot that cannot be made before anything runs (rank 0 draws it)
  if (!s.plot.empty() && lead_rank()) check_plot_file(s.plot);
}

// Takes rows as points finish and writes them in point order, each whole: to --csv and --jsonl
// (each completed, and a regular file renamed into place, only when the sweep is), else as a
// table on stdout. Counts the outcomes in that order, keeps the ok rows for the plot and draws the
// progress bar. Callers hold one lock.
class RowWriter {
 public:
  RowWriter(const SweepOptions& s, const std::vector<SweepPoint>& points) : rows_(points.size()), bar_(points.size(), "points", s.quiet) {
    if (!s.csv.empty()) csv_.emplace(s.csv, "--csv");
    if (!s.jsonl.empty()) jsonl_.emplace(s.jsonl, "--jsonl");
    if (!csv_ && !jsonl_) table_.emplace(points);
  }
  void start() {
    std::string header;
    for (const auto& k : kSweepColumns) header += (header.empty() ? "" : ",") + k;
    if (csv_) csv_->write(header + "\n");
    if (table_) print(table_->header());
  }
  void put(size_t i, nlohmann::json row) {
    rows_[i] = std::move(row);
    while (next_ < rows_.size() && rows_[next_]) write(*rows_[next_++]);
    bar_.advance();
  }
  void finish() { bar_.finish(); }
  void commit() {
    if (csv_) csv_->commit();
    if (jsonl_) jsonl_->commit();
  }

  std::vector<nlohmann::json> ok_rows;
  int64_t refused = 0, fallbacks = 0, failed = 0, first_refused = -1, first_failed = -1;
  std::string first_reason, first_fallback;

 private:
  void print(const std::string& line) {
    bar_.clear();  // the table line replaces the bar, which comes back below it
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  void write(const nlohmann::json& row) {
    if (csv_) {
      std::string line;
      for (const auto& k : kSweepColumns) {
        if (!line.empty()) line += ',';
        line += csv_cell(row[k]);
      }
      csv_->write(line + "\n");
    }
    if (jsonl_) jsonl_->write(row.dump() + "\n");
    if (table_) print(table_->line(row));
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
  std::optional<OutputFile> csv_, jsonl_;
  std::optional<RowTable> table_;
  std::vector<std::optional<nlohmann::json>> rows_;
  size_t next_ = 0;
  ProgressBar bar_;
};

// After the last row, on rank 0: the files committed, the notes, the plot; 1 when a point failed
// verification.
int finish_sweep(const SweepOptions& s, RowWriter& out, size_t points) {
  const auto total = (long long)points;
  if (out.ok_rows.empty()) throw UsageError("no point of the sweep can run: " + out.first_reason);  // files left as they were
  out.commit();
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

}  // namespace

int run_sweep(const SweepOptions& s) {
  // Under mpirun: every rank plans (the same points), rank 0 alone opens the files; a refusal
  // anywhere is agreed on, printed once by rank 0, and ends every rank.
  bool device = false;
  std::vector<SweepPoint> points;
  int jobs = 1;
  std::optional<RowWriter> out;
  on_every_rank([&] {
    check_sweep_options(s);
    device = s.run.backend != "cpu" && cuda_status().usable;
    points = sweep_points(s, device);
    jobs = sweep_jobs(s, check_points(points, device));
    check_sweep_time(s, points, device, jobs * rank_count());
    if (!lead_rank()) return;
    out.emplace(s, points);
    if (!s.plot.empty()) require_writable(s.plot, "--plot");
    out->start();
  });
  try {
    run_points(s, points, device, jobs, [&](size_t i, nlohmann::json row) { out->put(i, std::move(row)); });
  } catch (...) {
    if (out) out->finish();
    throw;
  }
  if (out) out->finish();
  int code = 0;
  on_every_rank([&] {
    if (out) code = finish_sweep(s, *out, points.size());
  });
  return lead_code(code);
}

void add_sweep_options(Command& sweep, SweepOptions& s) {
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
  sweep.text("--lambda", s.lambdas, "postal latencies (list or range)", true);
  sweep.text("--ts", s.ts, "startup times, comma-separated", true);
  sweep.text("--tw", s.tw, "per-word times, comma-separated", true);
  sweep.text("--th", s.th, "per-hop times, comma-separated", true);
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
                   {"--segments", "pipelined broadcast: segments"},
                   {"--channels", "NCCL's rings: channels"},
                   {"--inter", "allreduce_hierarchical: the all-reduce between nodes"},
                   {"--protocol", "NCCL's protocol: simple | ll | ll128"},
                   {"--nccl-version", "whose tuning model --protocol follows: 2.20.3 | 2.8.3"},
                   {"--timing", "lockstep | dataflow (each processor goes on when its data has arrived)"}});
  add_loggp_options(sweep, o);
  sweep.text("--csv", s.csv, "write rows as CSV (- for stdout)");
  sweep.text("--jsonl", s.jsonl, "write rows as JSON Lines (- for stdout)");
  sweep.text("--plot", s.plot, "draw the rows with gnuplot into FILE.svg or FILE.png");
  sweep.text("--plot-y", s.plot_y, "time | steps | speedup | efficiency | cost | parallel_time | max_link_load | link_hops", true);
  sweep.real("--tc", s.tc, "Chapter 5: time per local combine (with --problem)");
  sweep.integer("--problem", s.problem, "Chapter 5: elements of the problem (speedup, efficiency, cost)", false, 1);
  sweep.integer("--jobs", s.jobs, "points at once, on each rank under mpirun (0: every core, or the node's shared among its ranks; min(4, cores) when points run on the GPU, each on its own stream)", true, 0,
                kMaxThreads);
  sweep.real("--time-limit", s.time_limit, "refuse a sweep that would take longer than this many minutes (a lower bound of its time)", true);
  sweep.flag("--quiet", s.quiet, "no progress bar or notes");
}

Command sweep_command() {
  auto s = std::make_shared<SweepOptions>();
  Command sweep("sweep", "run every point of lists and ranges; rows as a table, CSV or JSON Lines, optional plot");
  add_sweep_options(sweep, *s);
  sweep.run = [s](const Command&) { return run_sweep(*s); };
  return sweep;
}

}  // namespace ppsim::cli
