// ppsim command line: `ppsim list`, `ppsim run`. Every bad input ends with one line on stderr and
// exit code 2; nothing is written to --json unless the run completed.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "ppsim/postal.h"
#include "ppsim/pram.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "cli/options.h"
#include "cli/sweep.h"
#include "cli/best.h"
#include "cli/draw.h"

namespace {

using namespace ppsim;
using namespace ppsim::cli;

std::string topology_list(const AlgorithmInfo& a) {
  std::string s;
  for (int k = 0; k < kTopologyCount; ++k)
    if (a.runs_on(TopologyKind(k))) s += std::string(s.empty() ? "" : ",") + topology_name(TopologyKind(k));
  return a.topologies == (1u << kTopologyCount) - 1 ? "any" : s;
}

// `ppsim list --markdown`: the README's algorithm table, straight from the registry. Steps are
// shown at p = 64 (a 6-cube where the algorithm runs on one, else an 8x8 torus, else a ring; m = 64
// words, shift q = 5).
int cmd_list_markdown() {
  std::cout << "| operation | algorithm | runs on (default on) | steps at p = 64 | closed form | what it does |\n"
               "|---|---|---|---:|---|---|\n";
  for (int o = 0; o < kOperationCount; ++o)
    for (const auto& a : algorithms()) {
      if (a.op != Operation(o)) continue;
      std::string nat;
      for (int k = 0; k < kTopologyCount; ++k)
        if (a.native_on(TopologyKind(k))) nat += std::string(nat.empty() ? "" : ", ") + topology_name(TopologyKind(k));
      Topology t = a.runs_on(TopologyKind::hypercube) ? make_topology(TopologyKind::hypercube, 64, "")
                   : a.runs_on(TopologyKind::torus)   ? make_topology(TopologyKind::torus, 0, "8x8")
                                                      : make_topology(TopologyKind::ring, 64, "");
      AlgoParams prm = params_for(t, 64, 0);
      prm.shift = 5;
      std::string steps = algorithm_rejects(a, t, prm, OperatorKind::sum).empty() ? std::to_string(a.rounds(prm)) : "-";
      auto escape = [](std::string text) {
        for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
        return text;
      };
      std::string formula = escape(a.formula_text);
      std::cout << "| " << operation_name(a.op) << " | `" << a.name << "` | " << topology_list(a) << (nat.empty() ? "" : " (" + nat + ")")
                << " | " << steps << " | " << formula << " | " << escape(a.description) << " |\n";
    }
  return 0;
}

int cmd_list() {
  std::cout << "topologies:\n";
  for (int k = 0; k < kTopologyCount; ++k) {
    auto kind = TopologyKind(k);
    const std::string hint = topology_hint(kind);
    std::cout << "  " << topology_name(kind) << (hint.empty() ? "" : "  (" + hint + ")") << "\n";
  }
  std::cout << "operations:\n ";
  for (int o = 0; o < kOperationCount; ++o) std::cout << " " << operation_name(Operation(o));
  std::cout << "\n  (MPI names are accepted too: MPI_Bcast, MPI_Reduce, MPI_Allgather, MPI_Reduce_scatter,\n"
               "   MPI_Allreduce, MPI_Scan, MPI_Scatter, MPI_Gather, MPI_Alltoall)\n";
  std::cout << "algorithms:\n";
  for (int o = 0; o < kOperationCount; ++o)
    for (const auto& a : algorithms())
      if (a.op == Operation(o)) {
        std::cout << "  " << a.name << "  [" << operation_name(a.op) << "; topologies: " << topology_list(a);
        if (a.native) {
          std::string nat;
          for (int k = 0; k < kTopologyCount; ++k)
            if (a.native_on(TopologyKind(k))) nat += std::string(nat.empty() ? "" : ",") + topology_name(TopologyKind(k));
          std::cout << "; default on: " << nat;
        }
        if (a.needs_pow2()) std::cout << "; p = 2^d";
        if (a.commutative_only()) std::cout << "; commutative operators only";
        if (a.root_zero_if_noncommutative()) std::cout << "; non-commutative operators need root 0";
        std::cout << "]\n      " << a.description << "\n      T = " << a.formula_text << "\n";
      }
  std::cout << "shared-memory machines (--machine):\n  pram-erew pram-crew pram-crcw-common pram-crcw-arbitrary pram-crcw-priority pram-crcw-combining\n";
  std::cout << "shared-memory algorithms:\n";
  for (const auto& a : pram_algorithms())
    std::cout << "  " << a.name << "  [" << operation_name(a.op) << "; needs " << pram_rule_name(a.weakest_rule) << "]\n      "
              << a.description << "\n";
  std::cout << "operators:\n  sum prod min max and or xor affine interval\n";
  std::cout << "ports:\n  single half-duplex telephone all K (k-port, 1.." << kMaxOps << ")\n";
  return 0;
}

// `ppsim bounds`: Theorem 1 of seed 000, the G sequence and the fewest steps.
int cmd_bounds(int64_t n, int k, int lambda, bool as_json) {
  if (n < 1 || n > kPostalGCap) throw UsageError("--n must be between 1 and 2^62");
  if (k < 1 || k > 1024) throw UsageError("--k must be between 1 and 1024");
  if (lambda < 1 || lambda > 1024) throw UsageError("--lambda must be between 1 and 1024");
  AlgoParams a;
  a.p = n;
  a.kports = k;
  a.lambda = lambda;
  const PostalTable table(a);
  const int steps = table.steps();
  nlohmann::json g = nlohmann::json::array();
  for (int j = 0; j <= steps; ++j) g.push_back(table.values()[size_t(j)]);
  if (as_json) {
    std::cout << nlohmann::json{{"n", n}, {"k", k}, {"lambda", lambda}, {"G", g}, {"min_steps", steps}}.dump() << "\n";
    return 0;
  }
  std::cout << "k-port postal model, k = " << k << ", lambda = " << lambda << ": G(j) = 1 for j < lambda, G(j) = G(j-1) + k G(j-lambda)\n";
  for (int j = 0; j <= steps; ++j) {
    const int64_t v = table.values()[size_t(j)];
    std::cout << "  G(" << j << ") " << (v == kPostalGCap ? ">= " : "= ") << v << (v == kPostalGCap ? " (2^62: not tracked further)" : "") << "\n";
  }
  std::cout << "prefix (and broadcast, reduction) over n = " << n << " processors needs at least min{ i | G(i) >= n } = " << steps
            << " steps\n";
  return 0;
}

nlohmann::json pram_words(OperatorKind k, const std::vector<uint64_t>& words, int64_t n, int64_t m) {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < n; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int64_t w = 0; w < m; ++w) row.push_back(word_json(k, words[size_t(i * m + w)]));
    out.push_back(std::move(row));
  }
  return out;
}

// `ppsim run --machine pram-...`: the shared-memory machine of seed 004.
template <class Given>
int cmd_run_pram(const RunOptions& o, PramRule rule, Given&& given) {
  for (const char* opt : {"--topology", "--dims", "--ports", "--lambda", "--ts", "--tw", "--th", "--routing", "--root", "--n", "--backend",
                          "--shift", "--exclusive", "--logical", "--logical-dims", "--map", "--group-stride", "--group-size", "--sources"})
    if (given(opt)) throw UsageError(std::string(opt) + " does not apply to --machine " + o.machine);
  PramConfig c;
  c.rule = rule;
  Operation op;
  if (!parse_operation(o.op, op)) throw UsageError("--op '" + o.op + "' is unknown (see `ppsim list`)");
  if (o.p.empty()) throw UsageError("give --p (the number of PRAM processors)");
  c.params.n = parse_count(o.p, "--p");
  c.params.m = parse_count(o.m, "--m");
  if (!parse_operator(o.combine, c.combine)) throw UsageError("--combine '" + o.combine + "' is unknown (sum prod min max and or xor affine interval)");
  c.input = parse_input(o.input);
  c.trace = o.trace;
  if (o.algo.empty()) {
    c.algorithm = default_pram_algorithm(op);
    if (!c.algorithm) throw UsageError(std::string("no shared-memory algorithm performs ") + operation_name(op) + " (see `ppsim list`)");
  } else {
    c.algorithm = find_pram_algorithm(o.algo);
    if (!c.algorithm) throw UsageError("--algo '" + o.algo + "' is not a shared-memory algorithm (see `ppsim list`)");
    if (c.algorithm->op != op)
      throw UsageError("--algo " + o.algo + " performs " + operation_name(c.algorithm->op) + ", not " + operation_name(op));
  }
  if (!o.json.empty()) require_writable(o.json, "--json");
  PramResult r = run_pram(c);
  const int64_t n = c.params.n, m = c.params.m;
  if (!o.json.empty()) {
    nlohmann::json doc;
    doc["config"] = {{"machine", o.machine}, {"rule", pram_rule_name(rule)}, {"op", operation_name(op)}, {"algo", c.algorithm->name},
                     {"p", n}, {"m", m}, {"combine", operator_name(c.combine)}, {"input", o.input}, {"trace", o.trace}};
    doc["steps"] = r.steps;
    doc["time"] = r.steps;
    doc["reads"] = r.reads;
    doc["writes"] = r.writes;
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : r.per_step) steps.push_back({{"step", s.step}, {"reads", s.reads}, {"writes", s.writes}});
    doc["per_step"] = std::move(steps);
    doc["verified"] = r.verified;
    doc["mismatches"] = r.mismatches;
    doc["wall_seconds"] = r.wall_seconds;
    doc["final"] = nlohmann::json::object();
    if (uint64_t(n * m) <= kReportFinalWords)
      doc["final"] = {{"registers", pram_words(c.combine, r.registers, n, m)}, {"cells", pram_words(c.combine, r.cells, n, m)}};
    if (o.trace) {
      nlohmann::json trace = nlohmann::json::array();
      for (size_t j = 0; j < r.trace.size(); ++j)
        trace.push_back({{"step", j}, {"registers", pram_words(c.combine, r.trace[j].registers, n, m)},
                         {"cells", pram_words(c.combine, r.trace[j].cells, n, m)}});
      doc["trace"] = std::move(trace);
    }
    write_json_atomically(o.json, doc);
  }
  if (o.json != "-")
    std::cout << "ppsim: " << c.algorithm->name << " (" << operation_name(op) << ") on a " << pram_rule_name(rule) << " PRAM, N = " << n
              << ", m = " << m << " words, " << operator_name(c.combine) << "\n  steps " << r.steps << " (ceil(log2 N) = " << ceil_log2(n)
              << "), reads " << r.reads << ", writes " << r.writes << "\n  verified: " << (r.verified ? "yes" : "NO") << " ("
              << r.mismatches << " mismatching words against the sequential reference)\n";
  if (!r.verified) {
    std::cerr << "ppsim: error: the result differs from the sequential reference in " << r.mismatches << " words\n";
    return 1;
  }
  return 0;
}

// --trace without --json on stdout: every buffer after every step in seed 000's notation,
// C_j = <z(0), z(1), ...> (a processor with several words shows them in brackets).
void print_trace_text(const RunConfig& c, const RunResult& r) {
  const Operation op = c.algorithm->op;
  for (const auto& ts : r.trace) {
    std::cout << "  after step " << ts.step << (ts.step == 0 ? " (initial)" : "") << ":\n";
    for (int b = 0; b < int(ts.buffers.size()); ++b) {
      int64_t words = run_buffer_words(c, b);
      std::cout << "    " << buffer_name(op, b) << " = <";
      for (int64_t i = 0; i < c.params.p; ++i) {
        if (i) std::cout << ", ";
        if (words > 1) std::cout << "[";
        for (int64_t w = 0; w < words; ++w)
          std::cout << (w ? " " : "") << word_text(c.combine, ts.buffers[size_t(b)][size_t(i * words + w)]);
        if (words > 1) std::cout << "]";
      }
      std::cout << ">\n";
    }
    for (const auto& m : ts.messages)
      std::cout << "    message " << m.from << " -> " << m.to << " (" << m.words << " words of " << buffer_name(op, m.buf)
                << ", arrives in step " << m.arrives << ")\n";
  }
}

template <class Given>
int cmd_run(const RunOptions& o, Given&& given) {
  if (o.machine != "network") {
    PramRule rule;
    if (!parse_pram_machine(o.machine, rule))
      throw UsageError("--machine '" + o.machine + "' is not network, pram-erew, pram-crew or pram-crcw-{common,arbitrary,priority,combining}");
    return cmd_run_pram(o, rule, given);
  }
  Backend backend = Backend::automatic;
  RunConfig c = build_config(o, backend);
  if (!o.json.empty()) require_writable(o.json, "--json");
  const Operation op = c.algorithm->op;
  const int64_t m = c.params.m;
  // The final buffers are reported only when this small; otherwise (on a GPU) they stay there.
  c.keep_buffers = run_total_words(c) <= kReportFinalWords;
  std::string notice;
  RunResult r = run_simulation(c, backend, &notice);
  if (!notice.empty()) std::cerr << notice << "\n";
  if (!o.json.empty()) write_json_atomically(o.json, run_json(c, backend, r));
  if (o.json != "-") {
    std::ostream& out = std::cout;
    double f = formula_time(c);
    out << "ppsim: " << c.algorithm->name << " (" << operation_name(op) << ") on "
        << (c.mapped ? "logical " + topology_shape(c.topology) + " mapped (" + map_kind_name(c.mapping.kind) + ") onto " : std::string())
        << topology_shape(physical_topology(c)) << ", m = " << m
        << " words, " << operator_name(c.combine) << ", " << "ports " << port_spec_name(c.ports) << ", lambda = " << c.params.lambda << "\n";
    out << "  steps " << r.steps << ", time " << r.time;
    if (!std::isnan(f)) out << " (formula " << f << ": " << c.algorithm->formula_text << ")";
    if (double lb = lower_bound_time(c); !std::isnan(lb)) out << "\n  lower bound on time " << lb;
    if (c.mapped) {
      MappingMetrics mm = mapping_metrics(c.mapping);
      if (mm.computed) out << "\n  mapping: dilation " << mm.dilation << ", congestion " << mm.congestion << ", expansion " << mm.expansion;
    }
    int64_t bound = postal_lower_bound_steps(c);
    if (bound >= 0) out << "\n  lower bound " << bound << " steps (seed 000 Theorem 1, k = " << c.params.kports << ", lambda = " << c.params.lambda << ")";
    out << "\n  messages " << r.messages << ", words " << r.words << ", link-hops " << r.link_hops << ", max link load "
        << r.max_link_load << "\n";
    if (c.trace) print_trace_text(c, r);
    out << "  verified: " << (r.verified ? "yes" : "NO") << " (" << r.mismatches << " mismatching words against the sequential reference)"
        << ", backend " << r.backend << ", wall " << r.wall_seconds << " s\n";
  }
  if (!r.verified) {
    std::cerr << "ppsim: error: the result differs from the sequential reference in " << r.mismatches << " words\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ppsim: simulate collective communication on massively parallel processor arrays"};
  app.require_subcommand(1);
  auto* list = app.add_subcommand("list", "list topologies, operations, algorithms and operators");
  bool list_markdown = false;
  list->add_flag("--markdown", list_markdown, "print the algorithm table in Markdown");
  RunOptions o;
  auto* run = app.add_subcommand("run", "run one collective on a simulated machine and verify it");
  add_run_options(run, o);
  SweepOptions sw;
  auto* sweep = app.add_subcommand("sweep", "run every point of lists and ranges; rows as CSV / JSON Lines, optional plot");
  sweep->add_option("--topology", sw.run.topology, "topologies, comma-separated")->capture_default_str();
  sweep->add_option("--p", sw.run.p, "processors: 8,13,64 or 2^4..2^20 (doubling) or 10..100:10");
  sweep->add_option("--dims", sw.run.dims, "mesh/torus extents, comma-separated (4x4,8x8)");
  sweep->add_option("--op", sw.run.op, "operation")->capture_default_str();
  sweep->add_option("--algo", sw.run.algo, "algorithms, comma-separated, or all (default: all that apply)");
  sweep->add_option("--m", sw.run.m, "message sizes (list or range)")->capture_default_str();
  sweep->add_option("--root", sw.run.root, "root")->capture_default_str();
  sweep->add_option("--ports", sw.run.ports, "port models, comma-separated")->capture_default_str();
  sweep->add_option("--lambda", sw.lambdas, "postal latencies (list or range)")->capture_default_str();
  sweep->add_option("--ts", sw.ts, "startup times, comma-separated")->capture_default_str();
  sweep->add_option("--tw", sw.tw, "per-word times, comma-separated")->capture_default_str();
  sweep->add_option("--th", sw.th, "per-hop times, comma-separated")->capture_default_str();
  sweep->add_option("--routing", sw.run.routing, "cut-through | store-and-forward")->capture_default_str();
  sweep->add_option("--combine", sw.run.combine, "operator")->capture_default_str();
  sweep->add_option("--input", sw.run.input, "iota | random:SEED")->capture_default_str();
  sweep->add_option("--backend", sw.run.backend, "cpu | cuda | auto")->capture_default_str();
  sweep->add_option("--logical", sw.run.logical, "logical topology mapped onto --topology");
  sweep->add_option("--logical-dims", sw.run.logical_dims, "logical mesh extents");
  sweep->add_option("--map", sw.run.map, "identity | gray | snake")->capture_default_str();
  sweep->add_option("--n", sw.run.n, "scan: elements in all");
  sweep->add_option("--shift", sw.run.shift, "shift distance")->capture_default_str();
  sweep->add_option("--sources", sw.run.sources, "kbroadcast/kscatter sources")->capture_default_str();
  sweep->add_option("--csv", sw.csv, "write rows as CSV (- for stdout)");
  sweep->add_option("--jsonl", sw.jsonl, "write rows as JSON Lines (- for stdout)");
  sweep->add_option("--plot", sw.plot, "draw the rows with gnuplot into FILE.svg or FILE.png");
  sweep->add_option("--plot-y", sw.plot_y, "time | steps | speedup | efficiency | cost | parallel_time | max_link_load | link_hops")
      ->capture_default_str();
  sweep->add_option("--tc", sw.tc, "Chapter 5: time per local combine (with --problem)");
  sweep->add_option("--problem", sw.problem, "Chapter 5: elements of the problem (speedup, efficiency, cost)");
  sweep->add_option("--jobs", sw.jobs, "points at once (0: every core; min(4, cores) when points run on the GPU, each on its own stream)")->capture_default_str();
  sweep->add_flag("--quiet", sw.quiet, "no progress bar or notes");
  RunOptions bo;
  std::string best_m = "1..1024", best_algos;
  bool best_json = false;
  auto* best = app.add_subcommand("best", "rank the algorithms of an operation by simulated time over a range of m");
  best->add_option("--op", bo.op, "operation")->capture_default_str();
  best->add_option("--topology", bo.topology, "topology")->capture_default_str();
  best->add_option("--p", bo.p, "processors");
  best->add_option("--dims", bo.dims, "mesh/torus extents");
  best->add_option("--m", best_m, "message sizes: list or range (1..1024 doubles, 1..64:1 every size)")->capture_default_str();
  best->add_option("--algo", best_algos, "candidates, comma-separated (default: all that apply)");
  best->add_option("--ts", bo.ts, "startup time")->capture_default_str();
  best->add_option("--tw", bo.tw, "per-word time")->capture_default_str();
  best->add_option("--th", bo.th, "per-hop time")->capture_default_str();
  best->add_option("--ports", bo.ports, "port model")->capture_default_str();
  best->add_option("--routing", bo.routing, "cut-through | store-and-forward")->capture_default_str();
  best->add_option("--root", bo.root, "root")->capture_default_str();
  best->add_flag("--json", best_json, "print JSON");
  RunOptions dro;
  std::string draw_kind = "messages", draw_format, draw_out;
  auto* draw = app.add_subcommand("draw", "draw a small run with Graphviz: messages, space-time diagram or link heat map");
  add_run_options(draw, dro);
  draw->add_option("--kind", draw_kind, "messages | spacetime | heatmap")->capture_default_str();
  draw->add_option("--format", draw_format, "dot | svg | png (default: from --out)");
  draw->add_option("--out", draw_out, "output file (- for DOT on stdout)");
  int64_t bound_n = 0;
  int bound_k = 1, bound_lambda = 1;
  bool bound_json = false;
  auto* bounds = app.add_subcommand("bounds", "the k-port postal lower bound of seed 000 (Theorem 1)");
  bounds->add_option("--n", bound_n, "processors (or values)")->required();
  bounds->add_option("--k", bound_k, "ports")->capture_default_str();
  bounds->add_option("--lambda", bound_lambda, "postal latency")->capture_default_str();
  bounds->add_flag("--json", bound_json, "print JSON");
  // CLI11 2.1 reads integers with strtoll in base 0: 99999999999999999999 would become INT64_MAX
  // and 010 would be 8. Every integer option's text is checked first: decimal, within 64 bits; a
  // power written B^E (as --p and --m take it) is turned into its decimal digits.
  const CLI::Validator whole_number(
      [](std::string& text) -> std::string {
        if (text.find('^') != std::string::npos) {
          try {
            text = std::to_string(parse_count(text, "value"));
          } catch (const UsageError&) {
            return "'" + text + "' is not a whole number or a power B^E within 64 bits";
          }
        }
        int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ptr != end || ec == std::errc::invalid_argument) return "'" + text + "' is not a whole number";
        if (ec != std::errc()) return "'" + text + "' is out of range (64 bits)";
        if (text.size() > 1 && text[0] == '0') return "'" + text + "': write it without leading zeros (it is read in decimal)";
        return "";
      },
      "");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options())
      if (opt->get_type_name() == "INT") opt->transform(whole_number);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
    return 2;
  }
  try {
    if (*list) return list_markdown ? cmd_list_markdown() : cmd_list();
    if (*bounds) return cmd_bounds(bound_n, bound_k, bound_lambda, bound_json);
    if (*sweep) return run_sweep(sw);
    if (*best) return run_best(bo, best_m, best_algos, best_json);
    if (*draw) return run_draw(dro, draw_kind, draw_format, draw_out);
    return cmd_run(o, [&](const char* opt) { return run->count(opt) > 0; });
  } catch (const UsageError& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
  } catch (const ConfigError& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
  } catch (const ScheduleError& e) {
    std::cerr << "ppsim: schedule error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
  }
  return 2;
}
