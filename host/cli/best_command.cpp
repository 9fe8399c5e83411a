// `ppsim best`: rank the algorithms of an operation by simulated time over a range of message sizes,
// beside the ranking by their closed forms, and report where the winner changes (textbook
// exercises 4.3 and 4.6 answered both ways).
#include "best_command.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "options.h"
#include "output_file.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "plot.h"
#include "study/spread.h"
#include "study/sweep.h"
#include "study/tuning.h"

namespace ppsim::cli {

namespace {

// " at m = 1, 2, 4 (3 of 13 sizes)", or "" when refused at every size.
std::string refused_sizes(const BestRefusal& r, size_t sizes) {
  if (r.ms.size() == sizes) return "";
  std::string list;
  for (size_t i = 0; i < r.ms.size() && i < 6; ++i) list += (i ? ", " : "") + std::to_string(r.ms[i]);
  if (r.ms.size() > 6) list += ", ...";
  return " at m = " + list + " (" + std::to_string(r.ms.size()) + " of " + std::to_string(sizes) + " sizes)";
}

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

int run_best(const BestOptions& options) {
  BestResult b = rank_algorithms(options);
  if (!lead_rank()) return 0;  // under mpirun rank 0 prints
  if (options.json) std::cout << best_json(b).dump(1) << "\n";
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
// Under mpirun every rank runs its share of the map and rank 0 alone writes and prints; a failure
// on any rank is agreed on (spread.h).
int run_crossover(const BestOptions& b) {
  std::optional<TuningFormat> format;
  on_every_rank([&] {
    if (lead_rank()) require_distinct_outputs({{"--emit", b.emit.empty() ? std::string() : b.emit[1]}, {"--plot", b.plot}});
    if (!b.emit.empty()) {
      format = parse_tuning_format(b.emit[0]);
      if (lead_rank()) require_writable(b.emit[1], "--emit");
    }
    if (!b.plot.empty() && lead_rank()) {
      check_plot_file(b.plot);
      require_writable(b.plot, "--plot");
    }
  });
  const CrossoverMap map = crossover_map(b);
  on_every_rank([&] {
    if (!lead_rank()) return;
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
  });
  return 0;
}

}  // namespace

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
                   {"--channels", "NCCL's rings: channels"},
                   {"--inter", "allreduce_hierarchical: the all-reduce between nodes"},
                   {"--protocol", "NCCL's protocol: simple | ll | ll128"},
                   {"--nccl-version", "whose tuning model --protocol follows: 2.20.3 | 2.8.3"},
                   {"--timing", "lockstep | dataflow (each processor goes on when its data has arrived)"},
                   {"--combine", "operator"}});
  add_loggp_options(best, o);
  best.flag("--json", b.json, "print JSON");
  best.words("--emit", b.emit, 2,
             "write a tuning file: FORMAT FILE (ompi-rules: Open MPI coll_tuned rules; mpich-json: MPICH selection JSON)");
  best.text("--plot", b.plot, "draw the crossover map (winner of every p and m) with gnuplot: FILE.svg or FILE.png");
  best.real("--time-limit", b.time_limit, "refuse a ranking that would take longer than this many minutes (a lower bound of its time)", true);
  best.flag("--quiet", b.quiet, "no progress bar or notes");
}

Command best_command() {
  auto b = std::make_shared<BestOptions>();
  Command best("best", "rank the algorithms of an operation by simulated time over a range of m");
  add_best_options(best, *b);
  best.run = [b](const Command&) {
    const bool grid = b->run.p.find_first_of(",.") != std::string::npos;
    if (grid || !b->emit.empty() || !b->plot.empty()) return run_crossover(*b);
    return run_best(*b);
  };
  return best;
}

}  // namespace ppsim::cli
