// Ranking the algorithms of an operation (`ppsim best`, its crossover maps, ppsim.best): every
// candidate at every size is planned first (its configuration built and checked, or the reason it
// cannot run), the least time of all that will run is checked against --time-limit, and only then
// do they run, one after another on one thread, or under mpirun one at a time on each rank
// (spread.h), with a progress bar on a terminal. Rank 0 alone gathers the outcomes and ranks them,
// in the order one process does.
#include <algorithm>
#include <cmath>
#include <optional>

#include "study/ranking.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "study/progress.h"
#include "study/spread.h"
#include "study/sweep.h"
#include "study/tuning.h"

namespace ppsim::study {

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

// What running one planned candidate gave, as rank 0 gets it: {"time": T} when it ran and
// verified, {"refused": why} when it could not run after all, {"unverified": true}.
nlohmann::json run_candidate(const PlannedRun& run) {
  if (!run.refused.empty()) return {{"refused", run.refused}};
  RunResult r;
  try {
    r = run_simulation(run.config, Backend::cpu);  // (--model loggp: with the LogGP clocks)
  } catch (const ConfigError& e) {  // e.g. a time that overflows
    return {{"refused", e.what()}};
  } catch (const ScheduleError& e) {  // more sends per step than the port model allows
    return {{"refused", e.what()}};
  }
  if (!r.verified) return {{"unverified", true}};
  return {{"time", r.time}};
}

// Puts one candidate's outcome into `row`; returns why it could not run ("" when it ran).
std::string take_outcome(const PlannedRun& run, const nlohmann::json& outcome, BestRow& row) {
  if (outcome.contains("refused")) return outcome["refused"].get<std::string>();
  if (outcome.contains("unverified")) throw UsageError(run.name + " failed verification at m = " + std::to_string(run.m));
  row.entries.push_back({run.name, outcome["time"].get<double>(), formula_time(run.config)});
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

// Ranks one machine's candidates from the outcomes of its runs (outcomes[i] is plan.runs[i]'s), in
// the order of the runs: the first that failed verification is the error.
BestResult rank_outcomes(const RankingPlan& plan, const nlohmann::json* outcomes) {
  BestResult out;
  out.sizes = plan.sizes;
  const size_t per_size = plan.names.size();
  for (size_t first = 0; first < plan.runs.size(); first += per_size) {
    BestRow row;
    row.m = plan.runs[first].m;
    for (size_t i = first; i < first + per_size; ++i) {
      const std::string why = take_outcome(plan.runs[i], outcomes[i], row);
      if (!why.empty()) note_refusal(out.refused, plan.runs[i].name, row.m, why);
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

// Runs every planned run of every plan, one at a time on this thread, or on each rank under mpirun;
// the outcomes, in the plans' order, are rank 0's (empty elsewhere). A run travels as CBOR (an
// exact time), alone as under mpirun.
std::vector<nlohmann::json> run_plans(const std::vector<RankingPlan>& plans, bool quiet) {
  std::vector<const PlannedRun*> runs;
  for (const auto& plan : plans)
    for (const auto& run : plan.runs) runs.push_back(&run);
  std::vector<nlohmann::json> outcomes(runs.size());
  std::optional<ProgressBar> bar;
  if (lead_rank()) bar.emplace(runs.size(), "runs", quiet);
  auto work = [&](size_t i) {
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(run_candidate(*runs[i]));
    return std::string(bytes.begin(), bytes.end());
  };
  auto done = [&](size_t i, const std::string& bytes) {
    outcomes[i] = nlohmann::json::from_cbor(bytes);
    bar->advance();
  };
  try {
    spread_work(runs.size(), 1, work, done, "ranking stopped");
  } catch (...) {
    if (bar) bar->finish();
    throw;
  }
  if (bar) bar->finish();
  return outcomes;
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

}  // namespace

// Under mpirun every rank plans (the same runs) and checks the time; rank 0 alone ranks the
// outcomes, and a failure anywhere is agreed on. The other ranks return an empty result.
BestResult rank_algorithms(const BestOptions& b) {
  std::vector<RankingPlan> plans;
  on_every_rank([&] {
    plans = {plan_ranking(b.run, b.m, b.algos)};
    PlanTime time;
    time.add(plans[0]);
    check_estimated_time(time.seconds / rank_count(), b.time_limit, "this ranking", time.which, b.quiet || !lead_rank());
  });
  const std::vector<nlohmann::json> outcomes = run_plans(plans, b.quiet);
  BestResult out;
  on_every_rank([&] {
    if (!lead_rank()) return;
    out = rank_outcomes(plans[0], outcomes.data());
    if (out.rows.empty())
      throw UsageError("no algorithm of " + b.run.op + " runs on this machine" +
                       (out.refused.empty() ? std::string() : " (" + out.refused.front().name + ": " + out.refused.front().reason + ")"));
  });
  return out;
}

CrossoverMap crossover_map(const BestOptions& b) {
  const RunOptions& base = b.run;
  CrossoverMap map;
  std::vector<RankingPlan> plans;
  on_every_rank([&] {
    if (base.p.empty()) throw UsageError("a crossover map (--emit, --plot) needs --p: a list or range of processor counts");
    if (!base.dims.empty()) throw UsageError("a crossover map takes --p (a list or range), not --dims");
    map.op = parse_op_option(base.op);
    map.topology = base.topology;
    map.radix = base.radix;
    map.segments = base.segments;
    map.ps = expand_counts(base.p, "--p");
    map.ms = expand_counts(b.m, "--m");
    PlanTime time;
    for (int64_t p : map.ps) {
      if (p < 1) throw UsageError("--p must be at least 1 (got " + std::to_string(p) + ")");
      RunOptions o = base;
      o.p = std::to_string(p);
      plans.push_back(plan_ranking(o, b.m, b.algos));
      time.add(plans.back());
    }
    check_estimated_time(time.seconds / rank_count(), b.time_limit, "this crossover map", time.which, b.quiet || !lead_rank());
  });
  const std::vector<nlohmann::json> outcomes = run_plans(plans, b.quiet);
  on_every_rank([&] {
    if (!lead_rank()) return;
    bool any = false;
    size_t at = 0;
    for (size_t i = 0; i < plans.size(); ++i) {
      CrossoverRow row;
      row.p = map.ps[i];
      row.ranking = rank_outcomes(plans[i], outcomes.data() + at);
      at += plans[i].runs.size();
      if (row.ranking.rows.empty())
        row.refused =
            row.ranking.refused.empty() ? "no candidate" : row.ranking.refused.front().name + ": " + row.ranking.refused.front().reason;
      any = any || !row.ranking.rows.empty();
      map.rows.push_back(std::move(row));
    }
    if (!any) throw UsageError("no algorithm of " + base.op + " runs at any p and m (" + map.rows.front().refused + ")");
  });
  return map;
}

nlohmann::json best_json(const BestResult& b) {
  nlohmann::json doc;
  for (const auto& row : b.rows) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : row.entries) entries.push_back({{"algo", e.name}, {"time", e.time}, {"formula_time", number_or_null(e.formula)}});
    doc["rows"].push_back(
        {{"m", row.m},
         {"best", row.entries[size_t(row.best_sim)].name},
         {"best_by_formula", row.best_formula < 0 ? nlohmann::json(nullptr) : nlohmann::json(row.entries[size_t(row.best_formula)].name)},
         {"entries", entries}});
  }
  for (const auto& c : b.sim_changes) doc["changes"].push_back({{"m", c.m}, {"from", c.from}, {"to", c.to}});
  for (const auto& c : b.formula_changes) doc["formula_changes"].push_back({{"m", c.m}, {"from", c.from}, {"to", c.to}});
  doc["refused"] = nlohmann::json::array();
  for (const auto& r : b.refused) doc["refused"].push_back({{"algo", r.name}, {"reason", r.reason}, {"m", r.ms}});
  return doc;
}

}  // namespace ppsim::study
