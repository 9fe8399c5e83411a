// `ppsim run --msccl FILE` (docs/DESIGN.md §3d): reads an MSCCL program, runs it with real data on
// the machine (by default the two-level cluster with one node of the file's ngpus accelerators),
// verifies every GPU's result and reports the time under the run's cost model.
#include "msccl_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "goal/goal.h"
#include "msccl/execute.h"
#include "msccl/loggp_timing.h"
#include "output_file.h"
#include "ppsim/errors.h"

namespace ppsim::cli {

namespace {

// The options of `run` that apply to --msccl; the collective, p and the algorithm come from the file.
void check_msccl_options(const Command& run) {
  static const char* const kApply[] = {"--msccl", "--json", "--topology", "--p",   "--dims", "--combine", "--input", "--m", "--ts", "--tw",
                                       "--th",    "--gamma", "--tw-class", "--routing", "--model", "--L", "--o", "--g", "--G", "--O"};
  for (const std::string& name : run.given_names())
    if (std::find(std::begin(kApply), std::end(kApply), name) == std::end(kApply))
      throw UsageError(name + " does not apply to --msccl (the collective and its schedule come from the file" +
                       (name == "--S" ? "; NCCL's connections are buffered, so every send is eager)" : ")"));
}

Operation operation_of(msccl::Collective c) {
  switch (c) {
    case msccl::Collective::allreduce: return Operation::allreduce;
    case msccl::Collective::allgather: return Operation::allgather;
    case msccl::Collective::reduce_scatter: return Operation::reduce_scatter;
    case msccl::Collective::alltoall: return Operation::alltoall;
  }
  return Operation::allreduce;
}

// The machine: --topology (default cluster) with --p or --dims; without them one node (or p
// processors) of the file's ngpus. It must have exactly ngpus processors.
RunConfig machine_for(const RunOptions& o, const Command& run, const msccl::Program& p) {
  RunOptions mo = o;
  if (!run.given("--topology")) mo.topology = "cluster";
  const TopologyType& type = parse_topology_option(mo.topology, "--topology");
  if (mo.dims.empty()) {
    const std::string n = mo.p.empty() ? std::to_string(p.ngpus) : std::to_string(parse_count(mo.p, "--p"));
    if (type.kind == TopologyKind::cluster || type.kind == TopologyKind::cluster_fattree) mo.dims = "1x" + n, mo.p.clear();
    else mo.p = n;
  }
  Backend backend = Backend::cpu;
  RunConfig c = build_machine_config(mo, operation_of(p.coll), backend);
  if (c.topology.p != p.ngpus)
    throw UsageError(o.msccl + " names " + std::to_string(p.ngpus) + " GPUs, but the machine " + topology_shape(c.topology) + " has " +
                     std::to_string(c.topology.p) + " accelerators");
  return c;
}

// Words per chunk: --m is the words of the collective's per-GPU block (cf chunks), as for `run`.
int64_t chunk_words(const RunOptions& o, const Command& run, const msccl::Program& p) {
  const int64_t cf = msccl::collective_shape(p).chunk_factor;
  if (!run.given("--m")) return 1;
  const int64_t m = parse_count(o.m, "--m");
  if (m < cf || m % cf != 0)
    throw UsageError("--m " + o.m + " is not a multiple of the " + std::to_string(cf) + " chunks of " + o.msccl + "'s block");
  return m / cf;
}

struct MscclRun {
  msccl::Program program;
  RunConfig config;
  msccl::Machine machine;
  msccl::Outcome outcome;
  loggp::Result loggp;
  double seconds = 0;
};

nlohmann::json report_json(const MscclRun& r) {
  const msccl::Program& p = r.program;
  const msccl::Outcome& out = r.outcome;
  const bool loggp = r.config.cost.model == CostModel::loggp;
  nlohmann::json first = nullptr;
  if (!out.verified)
    first = {{"gpu", out.first.gpu}, {"chunk", out.first.chunk}, {"step_gpu", out.first.step.gpu}, {"tb", out.first.step.tb},
             {"step", out.first.step.step}, {"text", out.first.text}};
  return {{"msccl", p.file},           {"name", p.name},
          {"collective", msccl::collective_name(p.coll)},
          {"inplace", p.inplace},      {"ngpus", p.ngpus},
          {"nchannels", p.nchannels},  {"chunks_per_loop", p.chunks_per_loop},
          {"chunk_words", r.machine.chunk_words},
          {"steps", p.steps()},        {"machine", topology_shape(r.config.topology)},
          {"combine", kOperatorNames[int(r.machine.combine)]},
          {"model", loggp ? "loggp" : "linear"},
          {"time", loggp ? double(r.loggp.time) : out.time},
          {"finish", loggp ? nlohmann::json(r.loggp.finish) : nlohmann::json(out.finish)},
          {"messages", out.messages},  {"words", out.words_sent},
          {"words_combined", out.words_combined},
          {"verified", out.verified},  {"wrong_words", out.wrong_words},
          {"wrong_chunks", out.wrong_chunks},
          {"first_wrong", first},      {"wall_seconds", r.seconds}};
}

std::string report_text(const MscclRun& r) {
  const msccl::Program& p = r.program;
  const msccl::Outcome& out = r.outcome;
  std::ostringstream text;
  text << "ppsim: MSCCL " << p.name << " (" << msccl::collective_name(p.coll) << (p.inplace ? ", in place" : ", out of place") << ") from "
       << p.file << " on " << topology_shape(r.config.topology) << ", " << p.ngpus << " GPUs, " << p.nchannels << " channels, " << p.steps()
       << " steps, " << words_text(r.machine.chunk_words) << " a chunk, " << kOperatorNames[int(r.machine.combine)] << "\n";
  if (r.config.cost.model == CostModel::loggp)
    text << "  time " << r.loggp.time << " ns under LogGP (GPU " << r.loggp.last_host << " finishes last)\n";
  else
    text << "  time " << out.time << " (linear model: each transfer t_s + l t_h + t_w n on its route, threadblocks sequential)\n";
  text << "  messages " << out.messages << ", words " << out.words_sent << ", words combined " << out.words_combined << "\n";
  text << "  verified: " << (out.verified ? "yes" : "NO") << " (" << out.wrong_words << " wrong words in " << out.wrong_chunks
       << " chunks against the sequential reference), wall " << r.seconds << " s\n";
  if (!out.verified) text << "  first wrong: " << out.first.text << "\n";
  return text.str();
}

// Reads, runs and times the program.
void run_program(const RunOptions& o, const Command& run, MscclRun& r) {
  try {
    r.program = msccl::read_file(o.msccl);
  } catch (const msccl::ParseError& e) {
    throw UsageError(e.what());
  }
  r.config = machine_for(o, run, r.program);
  r.machine = {r.config.topology, r.config.cost, r.config.combine, r.config.input, chunk_words(o, run, r.program)};
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.outcome = msccl::execute(r.program, r.machine);
    if (r.outcome.completed && r.config.cost.model == CostModel::loggp)
      r.loggp = goal::simulate(msccl::loggp_schedule(r.program, r.machine.chunk_words), msccl::loggp_params(r.config.cost.loggp));
    if (!r.loggp.unfinished.empty()) throw ScheduleError(o.msccl + ": under LogGP: " + r.loggp.unfinished);
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  } catch (const loggp::TimeOverflowError& e) {
    throw UsageError(o.msccl + ": " + e.what());
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(o.msccl + ": " + e.what());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

MscclReport run_msccl(const RunOptions& o, const Command& run) {
  check_msccl_options(run);
  if (!o.json.empty()) require_writable(o.json, "--json");
  MscclRun r;
  run_program(o, run, r);
  MscclReport report;
  if (!r.outcome.completed) {
    report.cannot_finish = o.msccl + ": the program cannot finish: " + r.outcome.stuck_text;
    return report;
  }
  report.json = report_json(r);
  report.text = report_text(r);
  if (!r.outcome.verified) report.wrong = o.msccl + ": wrong result: " + r.outcome.first.text;
  return report;
}

int run_msccl_file(const RunOptions& o, const Command& run) {
  const MscclReport r = run_msccl(o, run);
  if (!r.cannot_finish.empty()) {
    std::cerr << "ppsim: error: " << r.cannot_finish << "\n";
    return 1;
  }
  if (!o.json.empty()) write_json(o.json, r.json);
  if (o.json != "-") std::cout << r.text;
  if (!r.wrong.empty()) {
    std::cerr << "ppsim: error: " << r.wrong << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ppsim::cli
