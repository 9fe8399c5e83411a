// The points of `ppsim sweep`: lists and ranges expanded into the cartesian product of run
// options, each planned (its configuration built and checked, or the one-line reason it cannot
// run), run on its backend (auto: the GPU, else the CPU, saying why), and turned into a row.
#include <algorithm>
#include <cmath>

#include "ppsim/report.h"
#include "ppsim/run.h"
#include "study/sweep.h"

namespace ppsim::study {

const std::vector<std::string> kSweepColumns = {"point",
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
                                                "gamma",
                                                "routing",
                                                "model",
                                                "timing",
                                                "L",
                                                "o",
                                                "g",
                                                "G",
                                                "O",
                                                "S",
                                                "combine",
                                                "backend",
                                                "steps",
                                                "time",
                                                "formula_time",
                                                "formula_ratio",
                                                "lower_bound_steps",
                                                "lower_bound_time",
                                                "algbw",
                                                "busbw",
                                                "messages",
                                                "words",
                                                "link_hops",
                                                "max_link_load",
                                                "verified",
                                                "mismatches",
                                                "max_error_ulps",
                                                "results_agree",
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

namespace {

// "a,b,c": the items of a comma list; an empty item ("a,,b", "a,", ",a") is refused.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty()) throw UsageError(text.empty() ? "empty list" : "empty item in the list '" + text + "'");
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
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
    const double v = parse_real(item, option);
    if (v < 0) throw UsageError(std::string(option) + " '" + item + "' is negative");
    out.push_back(v);
  }
  return out;
}

void check_names(const std::string& topologies, const std::string& ports) {
  for (const auto& t : split_list(topologies)) parse_topology_option(t, "--topology");
  for (const auto& port : split_list(ports)) parse_ports_option(port);
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

bool runs_on_device(const SweepPoint& pt, bool device) {
  if (pt.backend != Backend::automatic) return pt.backend == Backend::cuda;
  return device && pt.refused.empty() && estimate_run_seconds(pt.config) >= kDevicePointSeconds;  // quick points: CPU threads
}

namespace {

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
  // --op is a list like every other axis; each algorithm runs its own operation.
  std::vector<Operation> ops;
  for (const auto& name : split_list(s.run.op)) ops.push_back(parse_op_option(name));
  if (ops.empty()) throw UsageError("--op needs an operation (see `ppsim list`)");
  auto listed = [&](Operation op) { return std::find(ops.begin(), ops.end(), op) != ops.end(); };
  std::vector<std::string> algos;
  if (s.run.algo.empty() || s.run.algo == "all") {
    for (Operation op : ops)
      for (const auto& a : algorithms())
        if (a.op == op) algos.push_back(a.name);
  } else {
    algos = split_list(s.run.algo);
    for (const auto& a : algos) {
      const AlgorithmInfo* info = find_algorithm(a);
      if (!info) throw UsageError("--algo '" + a + "' is unknown (see `ppsim list`)");
      if (!listed(info->op)) throw UsageError(wrong_operation(a, info->op, s.run.op));
    }
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
                    o.op = operation_name(find_algorithm(algo)->op);
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
  return {{"topology", o.topology},   {"dims", o.dims},   {"p", count(o.p)},     {"logical", o.logical}, {"map", o.map},
          {"op", operation_name(op)}, {"algo", o.algo},   {"m", count(o.m)},     {"root", o.root},       {"ports", o.ports},
          {"lambda", o.lambda},       {"ts", o.ts},       {"tw", o.tw},          {"th", o.th},           {"gamma", o.gamma},
          {"routing", o.routing},     {"model", o.model}, {"timing", o.timing}, {"combine", o.combine}};
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
                            {"root", c.params.root},
                            {"timing", c.timing == StepTiming::dataflow ? "dataflow" : "lockstep"}});
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
                        {"algbw", number_or_null(bandwidth(c, r.time).algbw)},
                        {"busbw", number_or_null(bandwidth(c, r.time).busbw)},
                        {"messages", r.messages},
                        {"words", r.words},
                        {"link_hops", r.link_hops},
                        {"max_link_load", r.max_link_load},
                        {"verified", r.verified},
                        {"mismatches", r.mismatches},
                        {"wall_seconds", r.wall_seconds}};
  row.update(rounding_json(r));
  // Chapter 5: an N-element problem with t_c per local combine. Serial: (N - 1) t_c. Parallel: the
  // local fold of N/p elements, one combine per communication step, and the simulated communication.
  if (!std::isnan(s.tc) && s.problem > 0) {
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

void check_chapter5_options(const SweepOptions& s) {
  if (s.tc < 0) throw UsageError("--tc must not be negative");
  if (std::isnan(s.tc) != (s.problem == 0)) throw UsageError("--tc and --problem go together (Chapter 5 metrics)");
  // The serial time (N - 1) t_c, and the parallel time and cost built on it, stay finite.
  if (!std::isnan(s.tc) && !std::isfinite(double(s.problem) * s.tc * 4))
    throw UsageError("--tc times --problem overflows: the Chapter 5 times would be infinite");
}

std::vector<SweepPoint> sweep_points(const SweepOptions& s, bool device) {
  check_chapter5_options(s);
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
  for (const auto& k : kSweepColumns)  // a refused row: only its configuration
    if (!row.contains(k)) row[k] = nullptr;
  return row;
}

}  // namespace ppsim::study
