// `ppsim best`: rank the algorithms of an operation by simulated time over a range of message sizes,
// beside the ranking by their closed forms, and report where the winner changes (textbook
// exercises 4.3 and 4.6 answered both ways).
#include "best.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "output_file.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "sweep.h"
#include "tuning.h"

namespace ppsim::cli {

namespace {

std::vector<std::string> candidate_names(const std::string& op_text, const std::string& algos) {
  const Operation op = parse_op_option(op_text);
  std::vector<std::string> names;
  if (algos.empty() || algos == "all") {
    for (const auto& a : algorithms())
      if (a.op == op) names.push_back(a.name);
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

// Runs one candidate at one size into `row`; returns why it cannot run there ("" when it ran).
std::string run_candidate(const RunOptions& base, const std::string& name, int64_t m, BestRow& row) {
  RunOptions o = base;
  o.algo = name;
  o.m = std::to_string(m);
  o.threads = 1;
  Backend backend = Backend::cpu;
  RunConfig c;
  RunResult r;
  try {
    c = build_config(o, backend);
    validate_config(c);
    r = run_simulation(c, Backend::cpu);  // (--model loggp: with the LogGP clocks)
  } catch (const UsageError& e) {  // not for this topology, p or m
    return e.what();
  } catch (const ConfigError& e) {  // sizes, memory
    return e.what();
  } catch (const ScheduleError& e) {  // more sends per step than the port model allows
    return e.what();
  }
  if (!r.verified) throw UsageError(name + " failed verification at m = " + std::to_string(m));
  row.entries.push_back({name, r.time, formula_time(c)});
  return "";
}

void note_refusal(std::vector<BestRefusal>& refused, const std::string& name, int64_t m, std::string reason) {
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  auto it = std::find_if(refused.begin(), refused.end(), [&](const BestRefusal& r) { return r.name == name; });
  if (it == refused.end()) it = refused.insert(refused.end(), {name, reason, {}});
  it->ms.push_back(m);
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

}  // namespace

BestResult rank_candidates(const RunOptions& base, const std::string& m_range, const std::string& algos) {
  BestResult out;
  check_names(base.topology, base.ports);
  const std::vector<std::string> names = candidate_names(base.op, algos);
  const std::vector<int64_t> ms = expand_counts(m_range, "--m");
  out.sizes = ms.size();
  for (int64_t m : ms) {
    BestRow row;
    row.m = m;
    for (const auto& name : names) {
      std::string why = run_candidate(base, name, m, row);
      if (!why.empty()) note_refusal(out.refused, name, m, why);
    }
    if (row.entries.empty()) continue;  // nothing runs at this size: each candidate is listed as refused
    pick_winners(row);
    out.rows.push_back(row);
  }
  std::sort(out.refused.begin(), out.refused.end(), [&](const BestRefusal& a, const BestRefusal& b) {
    return std::find(names.begin(), names.end(), a.name) < std::find(names.begin(), names.end(), b.name);
  });
  find_changes(out);
  return out;
}

BestResult rank_algorithms(const RunOptions& base, const std::string& m_range, const std::string& algos) {
  BestResult out = rank_candidates(base, m_range, algos);
  if (out.rows.empty())
    throw UsageError("no algorithm of " + base.op + " runs on this machine" +
                     (out.refused.empty() ? std::string() : " (" + out.refused.front().name + ": " + out.refused.front().reason + ")"));
  return out;
}

namespace {

// " at m = 1, 2, 4 (3 of 13 sizes)", or "" when refused at every size.
std::string refused_sizes(const BestRefusal& r, size_t sizes) {
  if (r.ms.size() == sizes) return "";
  std::string list;
  for (size_t i = 0; i < r.ms.size() && i < 6; ++i) list += (i ? ", " : "") + std::to_string(r.ms[i]);
  if (r.ms.size() > 6) list += ", ...";
  return " at m = " + list + " (" + std::to_string(r.ms.size()) + " of " + std::to_string(sizes) + " sizes)";
}

}  // namespace

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

namespace {

void print_best_text(const BestResult& b) {
  std::cout << "m        best (simulated)                  time          best (closed form)                formula\n";
  for (const auto& row : b.rows) {
    const auto& s = row.entries[size_t(row.best_sim)];
    std::printf("%-8lld %-33s %-13.6g ", (long long)row.m, s.name.c_str(), s.time);
    if (row.best_formula >= 0) {
      const auto& f = row.entries[size_t(row.best_formula)];
      std::printf("%-33s %.6g\n", f.name.c_str(), f.formula);
    } else {
      std::printf("(no closed form)\n");
    }
  }
  for (const auto& c : b.sim_changes) std::cout << "simulation: from m = " << c.m << " " << c.to << " beats " << c.from << "\n";
  for (const auto& c : b.formula_changes) std::cout << "closed forms: from m = " << c.m << " " << c.to << " beats " << c.from << "\n";
  if (b.sim_changes.empty())
    std::cout << "simulation: " << b.rows.front().entries[size_t(b.rows.front().best_sim)].name << " wins throughout\n";
  if (b.formula_changes.empty() && b.rows.front().best_formula >= 0)
    std::cout << "closed forms: " << b.rows.front().entries[size_t(b.rows.front().best_formula)].name << " wins throughout\n";
  if (!b.refused.empty()) std::cout << "refused (not ranked):\n";
  for (const auto& r : b.refused) std::cout << "  " << r.name << refused_sizes(r, b.sizes) << ": " << r.reason << "\n";
}

}  // namespace

int run_best(const RunOptions& base, const std::string& m_range, const std::string& algos, bool as_json) {
  BestResult b = rank_algorithms(base, m_range, algos);
  if (as_json) std::cout << best_json(b).dump(1) << "\n";
  else print_best_text(b);
  return 0;
}

namespace {

// "name (m = 1..256), name (m = 512..65536)": the winners of one p along m.
std::string winner_runs(const BestResult& b) {
  std::string text;
  for (size_t i = 0; i < b.rows.size();) {
    const std::string& w = b.rows[i].entries[size_t(b.rows[i].best_sim)].name;
    size_t j = i;
    while (j + 1 < b.rows.size() && b.rows[j + 1].entries[size_t(b.rows[j + 1].best_sim)].name == w) ++j;
    text += (text.empty() ? "" : ", ") + w + " (m = " + std::to_string(b.rows[i].m) +
            (i == j ? std::string() : ".." + std::to_string(b.rows[j].m)) + ")";
    i = j + 1;
  }
  return text;
}

void print_crossover(const CrossoverMap& map, bool as_json) {
  if (as_json) {
    nlohmann::json doc;
    doc["cells"] = nlohmann::json::array();
    doc["refused"] = nlohmann::json::array();
    for (const auto& row : map.rows) {
      for (const auto& r : row.ranking.rows)
        doc["cells"].push_back(
            {{"p", row.p}, {"m", r.m}, {"best", r.entries[size_t(r.best_sim)].name}, {"time", r.entries[size_t(r.best_sim)].time}});
      if (!row.refused.empty()) doc["refused"].push_back({{"p", row.p}, {"reason", row.refused}});
    }
    std::cout << doc.dump(1) << "\n";
    return;
  }
  std::cout << "fastest " << operation_name(map.op) << " algorithm (simulated) at each p, along m:\n";
  for (const auto& row : map.rows)
    std::cout << "p = " << row.p << ": " << (row.refused.empty() ? winner_runs(row.ranking) : "nothing runs (" + row.refused + ")") << "\n";
}

// A grid of p (a list or range) or --emit / --plot: the crossover map, its heat map and tuning files.
int run_crossover(const BestOptions& b) {
  std::optional<TuningFormat> format;
  if (!b.emit.empty()) {
    format = parse_tuning_format(b.emit[0]);
    require_writable(b.emit[1], "--emit");
  }
  if (!b.plot.empty()) {
    check_plot_file(b.plot);
    require_writable(b.plot, "--plot");
  }
  const CrossoverMap map = crossover_map(b.run, b.m, b.algos);
  // Everything that can refuse comes before any file is written.
  const std::string text = format ? tuning_file_text(map, *format) : "";
  print_crossover(map, b.json);
  if (!b.plot.empty()) plot_crossover(map, b.plot);
  if (format) {
    write_output(b.emit[1], "--emit", text);
    const auto out = left_out_algorithms(map, *format);
    std::ostream& note = b.json ? std::cerr : std::cout;
    note << b.emit[0] << " written to " << b.emit[1] << "; each cell names the simulated winner among the algorithms "
         << (*format == TuningFormat::ompi_rules ? "Open MPI" : "MPICH") << " has";
    if (!out.empty()) {
      note << "; left out (not in " << (*format == TuningFormat::ompi_rules ? "Open MPI" : "MPICH") << "):";
      for (const auto& n : out) note << " " << n;
    }
    note << "\n";
  }
  return 0;
}

}  // namespace

CrossoverMap crossover_map(const RunOptions& base, const std::string& m_range, const std::string& algos) {
  if (base.p.empty()) throw UsageError("a crossover map (--emit, --plot) needs --p: a list or range of processor counts");
  if (!base.dims.empty()) throw UsageError("a crossover map takes --p (a list or range), not --dims");
  CrossoverMap map;
  map.op = parse_op_option(base.op);
  map.topology = base.topology;
  map.radix = base.radix;
  map.segments = base.segments;
  map.ps = expand_counts(base.p, "--p");
  map.ms = expand_counts(m_range, "--m");
  bool any = false;
  for (int64_t p : map.ps) {
    if (p < 1) throw UsageError("--p must be at least 1 (got " + std::to_string(p) + ")");
    RunOptions o = base;
    o.p = std::to_string(p);
    CrossoverRow row;
    row.p = p;
    row.ranking = rank_candidates(o, m_range, algos);
    if (row.ranking.rows.empty())
      row.refused =
          row.ranking.refused.empty() ? "no candidate" : row.ranking.refused.front().name + ": " + row.ranking.refused.front().reason;
    any = any || !row.ranking.rows.empty();
    map.rows.push_back(std::move(row));
  }
  if (!any) throw UsageError("no algorithm of " + base.op + " runs at any p and m (" + map.rows.front().refused + ")");
  return map;
}

void add_best_options(Command& best, BestOptions& b) {
  RunOptions& o = b.run;
  add_run_options(best, o,
                  {{"--op", "operation"},
                   {"--topology", "topology"},
                   {"--p", "processors: one, or a list or range for a crossover map (2^2..2^12)"},
                   {"--dims", "mesh/torus/fattree/dragonfly extents"}});
  best.text("--m", b.m, "message sizes: list or range (1..1024 doubles, 1..64:1 every size)", true);
  best.text("--algo", b.algos, "candidates, comma-separated (default: all that apply)");
  add_run_options(best, o,
                  {{"--ts", "startup time"},
                   {"--tw", "per-word time"},
                   {"--tw-class", "per-word times of link classes: CLASS=X[,CLASS=X...]"},
                   {"--th", "per-hop time"},
                   {"--ports", "port model"},
                   {"--routing", "cut-through | store-and-forward"},
                   {"--root", "root"},
                   {"--gamma", "time per combined word"},
                   {"--radix", "Bruck all-to-all, k-nomial trees: the radix"},
                   {"--segments", "pipelined broadcast: segments"},
                   {"--combine", "operator"}});
  add_loggp_options(best, o);
  best.flag("--json", b.json, "print JSON");
  best.words("--emit", b.emit, 2,
             "write a tuning file: FORMAT FILE (ompi-rules: Open MPI coll_tuned rules; mpich-json: MPICH selection JSON)");
  best.text("--plot", b.plot, "draw the crossover map (winner of every p and m) with gnuplot: FILE.svg or FILE.png");
}

Command best_command() {
  auto b = std::make_shared<BestOptions>();
  Command best("best", "rank the algorithms of an operation by simulated time over a range of m");
  add_best_options(best, *b);
  best.run = [b](const Command&) {
    const bool grid = b->run.p.find_first_of(",.") != std::string::npos;
    if (grid || !b->emit.empty() || !b->plot.empty()) return run_crossover(*b);
    return run_best(b->run, b->m, b->algos, b->json);
  };
  return best;
}

}  // namespace ppsim::cli
