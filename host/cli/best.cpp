// `ppsim best`: rank the algorithms of an operation by simulated time over a range of message sizes,
// beside the ranking by their closed forms, and report where the winner changes (textbook
// exercises 4.3 and 4.6 answered both ways).
#include "cli/best.h"

#include <cmath>
#include <iostream>

#include "cli/sweep.h"
#include "ppsim/report.h"

namespace ppsim::cli {

BestResult rank_algorithms(const RunOptions& base, const std::string& m_range, const std::string& algos) {
  BestResult out;
  Operation op;
  if (!parse_operation(base.op, op)) throw UsageError("--op '" + base.op + "' is unknown (see `ppsim list`)");
  std::vector<std::string> names;
  if (algos.empty() || algos == "all") {
    for (const auto& a : algorithms()) if (a.op == op) names.push_back(a.name);
  } else {
    std::string item;
    for (size_t at = 0; at <= algos.size(); ++at)
      if (at == algos.size() || algos[at] == ',') { names.push_back(item); item.clear(); } else item += algos[at];
    for (const auto& n : names) {
      const AlgorithmInfo* a = find_algorithm(n);
      if (!a) throw UsageError("--algo '" + n + "' is unknown (see `ppsim list`)");
      if (a->op != op) throw UsageError("--algo " + n + " performs " + operation_name(a->op) + ", not " + base.op);
    }
  }
  for (int64_t m : expand_counts(m_range, "--m")) {
    BestRow row;
    row.m = m;
    for (const auto& name : names) {
      RunOptions o = base;
      o.algo = name;
      o.m = std::to_string(m);
      o.threads = 1;
      Backend backend = Backend::cpu;
      RunConfig c;
      try {
        c = build_config(o, backend);
        validate_config(c);
      } catch (const std::exception&) {
        continue;  // not applicable here (topology, p, m, ports)
      }
      RunResult r = run_cpu(c);
      if (!r.verified) throw UsageError(name + " failed verification at m = " + std::to_string(m));
      row.entries.push_back({name, r.time, formula_time(c)});
    }
    if (row.entries.empty()) throw UsageError("no algorithm of " + base.op + " runs on this machine");
    auto better = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
    for (size_t i = 0; i < row.entries.size(); ++i) {
      if (i == 0 || row.entries[i].time < row.entries[size_t(row.best_sim)].time) row.best_sim = int(i);
      if (better(row.entries[i].formula, row.best_formula < 0 ? std::nan("") : row.entries[size_t(row.best_formula)].formula))
        row.best_formula = int(i);
    }
    out.rows.push_back(row);
  }
  for (size_t i = 1; i < out.rows.size(); ++i) {
    const auto &a = out.rows[i - 1], &b = out.rows[i];
    if (a.entries[size_t(a.best_sim)].name != b.entries[size_t(b.best_sim)].name)
      out.sim_changes.push_back({b.m, a.entries[size_t(a.best_sim)].name, b.entries[size_t(b.best_sim)].name});
    if (a.best_formula >= 0 && b.best_formula >= 0 &&
        a.entries[size_t(a.best_formula)].name != b.entries[size_t(b.best_formula)].name)
      out.formula_changes.push_back({b.m, a.entries[size_t(a.best_formula)].name, b.entries[size_t(b.best_formula)].name});
  }
  return out;
}

int run_best(const RunOptions& base, const std::string& m_range, const std::string& algos, bool as_json) {
  BestResult b = rank_algorithms(base, m_range, algos);
  if (as_json) {
    nlohmann::json doc;
    for (const auto& row : b.rows) {
      nlohmann::json entries = nlohmann::json::array();
      for (const auto& e : row.entries)
        entries.push_back({{"algo", e.name}, {"time", e.time}, {"formula_time", std::isnan(e.formula) ? nlohmann::json(nullptr) : nlohmann::json(e.formula)}});
      doc["rows"].push_back({{"m", row.m}, {"best", row.entries[size_t(row.best_sim)].name},
                             {"best_by_formula", row.best_formula < 0 ? nlohmann::json(nullptr) : nlohmann::json(row.entries[size_t(row.best_formula)].name)},
                             {"entries", entries}});
    }
    for (const auto& c : b.sim_changes) doc["changes"].push_back({{"m", c.m}, {"from", c.from}, {"to", c.to}});
    for (const auto& c : b.formula_changes) doc["formula_changes"].push_back({{"m", c.m}, {"from", c.from}, {"to", c.to}});
    std::cout << doc.dump(1) << "\n";
    return 0;
  }
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
  if (b.sim_changes.empty()) std::cout << "simulation: " << b.rows.front().entries[size_t(b.rows.front().best_sim)].name << " wins throughout\n";
  if (b.formula_changes.empty() && b.rows.front().best_formula >= 0)
    std::cout << "closed forms: " << b.rows.front().entries[size_t(b.rows.front().best_formula)].name << " wins throughout\n";
  return 0;
}

}  // namespace ppsim::cli
