// Ranking the algorithms of an operation (`ppsim best`, its crossover maps, ppsim.best): every
// candidate at every size is planned first (its configuration built and checked, or the reason it
// cannot run), the least time of all that will run is checked against --time-limit, and only then
// do they run, one after another on one thread, with a progress bar on a terminal.
#include <algorithm>
#include <cmath>

#include "best.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "progress.h"
#include "sweep.h"
#include "tuning.h"

namespace ppsim::cli {

namespace {

// The default candidates are every algorithm of the operation, less those that reduce in switches
// a machine without them lacks (kSwitchAgents: they cannot be mapped onto it either).
std::vector<std::string> candidate_names(const std::string& op_text, const std::string& algos, const std::string& topology) {
  const Operation op = parse_op_option(op_text);
  std::vector<std::string> names;
  if (algos.empty() || algos == "all") {
    const TopologyKind machine = parse_topology_option(topology, "--topology").kind;
    for (const auto& a : algorithms())
      if (a.op == op && (!a.switch_agents() || a.runs_on(machine))) names.push_back(a.name);
    return names;
  }
  std::string item;
  for (size_t at = 0; at <= algos.size(); ++at)
    if (at == algos.size() || algos[at] == ',') {
      names.push_back(item);
      item.clear();
    } else item += algos[at];
  for (const auto& n : names) {
    const AlgorithmInfo* a = find_algorithm(n);
    if (!a) throw UsageError("--algo '" + n + "' is unknown (see `ppsim list`)");
    if (a->op != op) throw UsageError(wrong_operation(n, a->op, op_text));
  }
  return names;
}

// One candidate at one size, planned: its configuration, or why it cannot run there.
struct PlannedRun {
  std::string name;
  int64_t m = 0;
  RunConfig config;
  std::string refused;
};

PlannedRun plan_run(const RunOptions& base, const std::string& name, int64_t m) {
  PlannedRun run{name, m, {}, {}};
  RunOptions o = base;
  o.algo = name;
  o.m = std::to_string(m);
  o.threads = 1;
  Backend backend = Backend::cpu;
  try {
    run.config = build_config(o, backend);
    validate_config(run.config);
  } catch (const UsageError& e) {  // not for this topology, p or m
    run.refused = e.what();
  } catch (const ConfigError& e) {  // sizes, memory
    run.refused = e.what();
  }
  return run;
}

void note_refusal(std::vector<BestRefusal>& refused, const std::string& name, int64_t m, std::string reason) {
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  auto it = std::find_if(refused.begin(), refused.end(), [&](const BestRefusal& r) { return r.name == name; });
  if (it == refused.end()) it = refused.insert(refused.end(), {name, reason, {}});
  it->ms.push_back(m);
}

// Runs one planned candidate into `row`; returns why it could not run after all ("" when it ran).
std::string run_candidate(const PlannedRun& run, BestRow& row) {
  if (!run.refused.empty()) return run.refused;
  RunResult r;
  try {
    r = run_simulation(run.config, Backend::cpu);  // (--model loggp: with the LogGP clocks)
  } catch (const ConfigError& e) {  // e.g. a time that overflows
    return e.what();
  } catch (const ScheduleError& e) {  // more sends per step than the port model allows
    return e.what();
  }
  if (!r.verified) throw UsageError(run.name + " failed verification at m = " + std::to_string(run.m));
  row.entries.push_back({run.name, r.time, formula_time(run.config)});
  return "";
}

void pick_winners(BestRow& row) {
  auto better = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  for (size_t i = 0; i < row.entries.size(); ++i) {
    if (i == 0 || row.entries[i].time < row.entries[size_t(row.best_sim)].time) row.best_sim = int(i);
    if (better(row.entries[i].formula, row.best_formula < 0 ? std::nan("") : row.entries[size_t(row.best_formula)].formula))
      row.best_formula = int(i);
  }
}

void find_changes(BestResult& out) {
  for (size_t i = 1; i < out.rows.size(); ++i) {
    const auto &a = out.rows[i - 1], &b = out.rows[i];
    if (a.entries[size_t(a.best_sim)].name != b.entries[size_t(b.best_sim)].name)
      out.sim_changes.push_back({b.m, a.entries[size_t(a.best_sim)].name, b.entries[size_t(b.best_sim)].name});
    if (a.best_formula >= 0 && b.best_formula >= 0 && a.entries[size_t(a.best_formula)].name != b.entries[size_t(b.best_formula)].name)
      out.formula_changes.push_back({b.m, a.entries[size_t(a.best_formula)].name, b.entries[size_t(b.best_formula)].name});
  }
}

// Every candidate at every size of one machine, in order (sizes outside, candidates inside).
struct RankingPlan {
  std::vector<std::string> names;
  size_t sizes = 0;
  std::vector<PlannedRun> runs;
};

RankingPlan plan_ranking(const RunOptions& base, const std::string& m_range, const std::string& algos) {
  RankingPlan plan;
  check_names(base.topology, base.ports);
  plan.names = candidate_names(base.op, algos, base.topology);
  const std::vector<int64_t> ms = expand_counts(m_range, "--m");
  plan.sizes = ms.size();
  for (int64_t m : ms)
    for (const auto& name : plan.names) plan.runs.push_back(plan_run(base, name, m));
  return plan;
}

BestResult run_ranking(const RankingPlan& plan, ProgressBar& bar) {
  BestResult out;
  out.sizes = plan.sizes;
  const size_t per_size = plan.names.size();
  for (size_t first = 0; first < plan.runs.size(); first += per_size) {
    BestRow row;
    row.m = plan.runs[first].m;
    for (size_t i = first; i < first + per_size; ++i) {
      const std::string why = run_candidate(plan.runs[i], row);
      if (!why.empty()) note_refusal(out.refused, plan.runs[i].name, row.m, why);
      bar.advance();
    }
    if (row.entries.empty()) continue;  // nothing runs at this size: each candidate is listed as refused
    pick_winners(row);
    out.rows.push_back(row);
  }
  const auto& names = plan.names;
  std::sort(out.refused.begin(), out.refused.end(), [&](const BestRefusal& a, const BestRefusal& b) {
    return std::find(names.begin(), names.end(), a.name) < std::find(names.begin(), names.end(), b.name);
  });
  find_changes(out);
  return out;
}

// The least time of the planned runs that will run, and the longest of them in words.
struct PlanTime {
  double seconds = 0, longest = -1;
  std::string which;
  void add(const RankingPlan& plan) {
    for (const PlannedRun& run : plan.runs) {
      if (!run.refused.empty()) continue;
      const double t = estimate_run_seconds(run.config);
      seconds += t;
      if (t > longest) {
        longest = t;
        which = "the longest run: " + run.name + " on " + topology_shape(physical_topology(run.config)) + " with m = " + std::to_string(run.m);
      }
    }
  }
};

size_t run_count(const std::vector<RankingPlan>& plans) {
  size_t n = 0;
  for (const auto& plan : plans) n += plan.runs.size();
  return n;
}

}  // namespace

BestResult rank_algorithms(const BestOptions& b) {
  if (!(b.time_limit > 0)) throw UsageError("--time-limit must be a positive number of minutes");
  const std::vector<RankingPlan> plans = {plan_ranking(b.run, b.m, b.algos)};
  PlanTime time;
  time.add(plans[0]);
  check_estimated_time(time.seconds, b.time_limit, "this ranking", time.which, b.quiet);
  ProgressBar bar(run_count(plans), "runs", b.quiet);
  BestResult out = run_ranking(plans[0], bar);
  bar.finish();
  if (out.rows.empty())
    throw UsageError("no algorithm of " + b.run.op + " runs on this machine" +
                     (out.refused.empty() ? std::string() : " (" + out.refused.front().name + ": " + out.refused.front().reason + ")"));
  return out;
}

CrossoverMap crossover_map(const BestOptions& b) {
  const RunOptions& base = b.run;
  if (!(b.time_limit > 0)) throw UsageError("--time-limit must be a positive number of minutes");
  if (base.p.empty()) throw UsageError("a crossover map (--emit, --plot) needs --p: a list or range of processor counts");
  if (!base.dims.empty()) throw UsageError("a crossover map takes --p (a list or range), not --dims");
  CrossoverMap map;
  map.op = parse_op_option(base.op);
  map.topology = base.topology;
  map.radix = base.radix;
  map.segments = base.segments;
  map.ps = expand_counts(base.p, "--p");
  map.ms = expand_counts(b.m, "--m");
  std::vector<RankingPlan> plans;
  PlanTime time;
  for (int64_t p : map.ps) {
    if (p < 1) throw UsageError("--p must be at least 1 (got " + std::to_string(p) + ")");
    RunOptions o = base;
    o.p = std::to_string(p);
    plans.push_back(plan_ranking(o, b.m, b.algos));
    time.add(plans.back());
  }
  check_estimated_time(time.seconds, b.time_limit, "this crossover map", time.which, b.quiet);
  ProgressBar bar(run_count(plans), "runs", b.quiet);
  bool any = false;
  for (size_t i = 0; i < plans.size(); ++i) {
    CrossoverRow row;
    row.p = map.ps[i];
    row.ranking = run_ranking(plans[i], bar);
    if (row.ranking.rows.empty())
      row.refused =
          row.ranking.refused.empty() ? "no candidate" : row.ranking.refused.front().name + ": " + row.ranking.refused.front().reason;
    any = any || !row.ranking.rows.empty();
    map.rows.push_back(std::move(row));
  }
  bar.finish();
  if (!any) throw UsageError("no algorithm of " + base.op + " runs at any p and m (" + map.rows.front().refused + ")");
  return map;
}

}  // namespace ppsim::cli
