// `ppsim run`: one collective on a simulated machine, verified against the sequential reference and
// reported as text and/or JSON. Nothing is written to --json unless the run completed.
#include <cmath>
#include <iostream>
#include <memory>

#include "commands.h"
#include "dist/world.h"
#include "goal_command.h"
#include "msccl_command.h"
#include "options.h"
#include "output_file.h"
#include "pram_command.h"
#include "timeline_output.h"
#include "ppsim/protocol.h"
#include "ppsim/report.h"
#include "ppsim/run.h"

namespace ppsim::cli {

namespace {

// --trace without --json on stdout: every buffer after every step in Lin–Yeh's notation,
// C_j = <z(0), z(1), ...> (a processor with several words shows them in brackets).
void print_trace_text(std::ostream& out, const RunConfig& c, const RunResult& r) {
  const Operation op = c.algorithm->op;
  for (const auto& ts : r.trace) {
    out << "  after step " << ts.step << (ts.step == 0 ? " (initial)" : "") << ":\n";
    for (int b = 0; b < int(ts.buffers.size()); ++b) {
      int64_t words = run_buffer_words(c, b);
      out << "    " << buffer_name(op, b) << " = <";
      for (int64_t i = 0; i < c.params.p; ++i) {
        if (i) out << ", ";
        if (words > 1) out << "[";
        for (int64_t w = 0; w < words; ++w) out << (w ? " " : "") << run_word_text(c, ts.buffers[size_t(b)][size_t(i * words + w)]);
        if (words > 1) out << "]";
      }
      out << ">\n";
    }
    for (const auto& m : ts.messages)
      out << "    message " << m.from << " -> " << m.to << " ("
                << (op == Operation::barrier ? std::string("its token, no words charged")
                                             : words_text(m.words) + " of " + buffer_name(op, m.buf))
                << ", arrives in step " << m.arrives << ")\n";
  }
}

// The figures beside the simulated ones: the closed form, lower bounds, the mapping's quality.
void print_formula_and_bounds(std::ostream& out, const RunConfig& c) {
  if (double f = formula_time(c); !std::isnan(f)) out << " (formula " << f << ": " << c.algorithm->formula_text << ")";
  if (double lb = lower_bound_time(c); !std::isnan(lb)) out << "\n  lower bound on time " << lb;
  if (c.protocol) {
    const Topology& machine = physical_topology(c);
    out << "\n  protocol " << protocol_name(Protocol(c.protocol)) << " (NCCL " << nccl_version_name(NcclVersion(c.nccl_version))
        << "'s model, us): base latency " << c.base_latency
        << " once; a message starts in";
    for (int k = 0; k < topology_link_class_count(machine); ++k)
      out << (k ? ", " : " ") << c.cost.ts_of_class(k) << " on " << topology_link_class_name(machine, k);
    out << "; t_w " << c.cost.tw;
  }
  if (c.mapped) {
    MappingMetrics mm = mapping_metrics(c.mapping);
    if (mm.computed) out << "\n  mapping: dilation " << mm.dilation << ", congestion " << mm.congestion << ", expansion " << mm.expansion;
  }
  int64_t bound = postal_lower_bound_steps(c);
  if (bound >= 0 && c.algorithm->switch_agents())
    out << "\n  lower bound " << bound << " steps (switches that combine: up to one and back, lambda = " << c.params.lambda << ")";
  else if (bound >= 0)
    out << "\n  lower bound " << bound << " steps (Lin–Yeh Theorem 1, k = " << c.params.kports << ", lambda = " << c.params.lambda << ")";
}

// fsum, fsum32: the largest error beside the bound that `verified` checks, and whether processors
// agree bit for bit where the operation says they hold the same words.
std::string rounding_text(const RunConfig& c, const RunResult& r) {
  std::string text = std::string(operator_name(c.combine)) + ", input " + input_text(c.input) + ": ";
  if (r.max_error_ulps < 0) return text + "not verified";
  text += "largest error " + std::to_string(r.max_error_ulps) +
          " ulps from the exactly rounded results (verified against the bound (n - 1) u sum|x|)";
  if (r.results_agree != Agreement::not_applicable)
    text += std::string("; processors ") + (r.results_agree == Agreement::agree ? "agree bit for bit" : "DIFFER in bits");
  return text;
}

}  // namespace

void print_run_text(std::ostream& out, const RunConfig& carried, const RunResult& r) {
  const RunConfig c = timed_config(carried);  // what the report is about; the data moved at carried's size
  const AlgorithmInfo* inter = c.algorithm->composes_allreduce() ? inter_algorithm(c.params) : nullptr;
  out << "ppsim: " << c.algorithm->name << (inter ? std::string(" with ") + inter->name + " between nodes" : std::string()) << " ("
      << operation_name(c.algorithm->op) << ") on "
      << (c.mapped ? "logical " + topology_shape(c.topology) + " mapped (" + map_kind_name(c.mapping.kind) + ") onto " : std::string())
      << topology_shape(physical_topology(c)) << ", "
      << (c.algorithm->op == Operation::barrier  // no data: m and the operator do not apply
              ? std::string("no data")
              : "m = " + words_text(c.params.m) +
                    (c.units.on ? " (" + std::to_string(c.params.m * c.units.word_bytes) + " bytes of " + c.units.type + ")" : std::string()) +
                    ", " + operator_name(c.combine))
      << ", "
      << "ports " << port_spec_name(c.ports) << ", lambda = " << c.params.lambda
      << (c.units.preset.empty() ? std::string() : ", preset " + c.units.preset + " (" + std::to_string(c.units.nodes) + (c.units.nodes == 1 ? " node)" : " nodes)")) << "\n";
  if (!c.nccl_choice.empty()) out << "  --algo nccl: " << c.nccl_choice << "\n";
  out << "  steps " << r.steps << ", time " << r.time << (c.units.on ? " us" : "");
  if (r.timing == "dataflow") out << " (dataflow: each processor goes on when its data has arrived; lockstep " << r.lockstep_time << ")";
  if (c.cost.model == CostModel::loggp) {
    const LogGPParams& g = c.cost.loggp;
    out << " ns under LogGP (L=" << g.L << " o=" << g.o << " g=" << g.g << " G=" << g.G << " O=" << g.O << " S=" << g.S << "), processor "
        << r.last_processor << " finishes last";
    if (r.finish.size() <= 16) {
      out << "\n  finish (ns):";
      for (uint64_t f : r.finish) out << " " << f;
    }
    out << "\n  finishing times spread over " << finish_spread_json(r.finish) << " ns";
  }
  print_formula_and_bounds(out, c);
  out << "\n  messages " << r.messages << ", words " << r.words << ", link-hops " << r.link_hops << ", max link load " << r.max_link_load
      << "\n";
  if (c.noise)
    print_noise_text(out, noise_config_json(c.noise.get()),
                     noise_outcome_json(uint64_t(r.time), noiseless_of(r), r.noise_total, r.noise_per_processor));
  if (c.cost.stragglers.any()) print_stragglers_text(out, stragglers_json(c.cost.stragglers, c.params.p));
  if (c.failures.any()) print_failures_text(out, failures_json(c, r));
  if (const Bandwidth bw = bandwidth(c, r.time); !std::isnan(bw.algbw) && c.units.on)
    out << "  algbw " << gbps_of(c.units, bw.algbw) << " GB/s, busbw " << gbps_of(c.units, bw.busbw) << " GB/s (n = "
        << int64_t(bw.words) * c.units.word_bytes << " bytes of " << c.units.type << ", as nccl-tests)\n";
  else if (!std::isnan(bw.algbw))
    out << "  algbw " << bw.algbw << " words per time unit, busbw " << bw.busbw << " (n = " << words_text(int64_t(bw.words))
        << ", as nccl-tests)\n";
  if (carried.timed_m > 0)
    out << "  timed from the rounds at m = " << words_text(c.params.m) << "; the data was carried and verified at m = " << words_text(carried.params.m)
        << (c.units.on ? " (" + std::to_string(carried.params.m * c.units.word_bytes) + " bytes)" : std::string())
        << ": the same rounds with smaller messages (the messages and words above are the carried run's)"
        << (carried.carried_because.empty() ? std::string() : "; carried smaller because " + carried.carried_because) << "\n";
  if (c.trace) print_trace_text(out, carried, r);
  if (operator_rounded(c.combine)) out << "  " << rounding_text(carried, r) << "\n";
  out << "  " << verified_text(r.verified, r.mismatches) << ", backend " << r.backend << ", wall " << r.wall_seconds << " s\n";
}

namespace {

int run_network(const RunOptions& o) {
  Backend backend = Backend::automatic;
  RunConfig c;
  // Under mpirun the run is split across the ranks (docs/DESIGN.md §8); rank 0 prints and writes.
  Collectives* ranks = dist::world();
  const bool writer = dist::rank() == 0;
  auto configure = [&] {
    c = build_config(o, backend);
    apply_slowdown_option(o, c.noise);
    if (!o.json.empty() && writer) require_writable(o.json, "--json");
    if (writer) check_timeline_options(o);
    check_run_time(o, c, dist::size(), !writer);
  };
  if (ranks) agreed_phase(*ranks, configure);
  else configure();
  c.ranks = ranks;
  // The final buffers are reported only when this small; otherwise (on a GPU) they stay there.
  c.keep_buffers = run_total_words(c) <= kReportFinalWords;
  std::string notice;
  RunResult r = run_simulation(c, backend, &notice);
  if (!writer) return verification_exit_code(r.verified, r.mismatches);
  if (!notice.empty()) std::cerr << notice << "\n";
  if (!o.timeline.empty() || !o.plot.empty()) write_timeline(o, run_timeline(c, r, o.timeline_processors));
  if (!o.json.empty()) write_json(o.json, run_json(c, backend, r));
  if (o.json != "-" && o.timeline != "-") print_run_text(std::cout, c, r);
  // Injected failures: the damage is the report's to give, not an error of the simulator.
  if (c.failures.any()) return 0;
  return verification_exit_code(r.verified, r.mismatches);
}

int run_subcommand(const RunOptions& o, const Command& run) {
  // What is not split across ranks (a GOAL schedule, an MSCCL program, a PRAM) is rank 0's alone.
  if (dist::rank() != 0 && (!o.goal.empty() || !o.msccl.empty() || o.machine != "network")) return 0;
  if (!o.goal.empty()) return run_goal_file(o, run);
  if (!o.msccl.empty()) return run_msccl_file(o, run);
  if (o.machine == "network") return run_network(o);
  return run_pram_machine(o, parse_pram_machine_option(o.machine), run);
}

}  // namespace

Command run_command() {
  auto o = std::make_shared<RunOptions>();
  Command run("run", "run one collective on a simulated machine and verify it");
  add_run_options(run, *o);
  add_timeline_options(run, *o);
  add_time_limit_option(run, *o);
  run.run = [o](const Command& parsed) { return run_subcommand(*o, parsed); };
  return run;
}

}  // namespace ppsim::cli
