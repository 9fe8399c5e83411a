// `ppsim run --machine pram-*`: the shared-memory machine of the group-operations slides, reported as text and JSON.
#include "pram_command.h"

#include <iostream>

#include "output_file.h"
#include "ppsim/report.h"

namespace ppsim::cli {

namespace {

void refuse_network_options(const RunOptions& o, const Command& run) {
  for (const char* opt :
       {"--topology", "--dims",         "--ports",      "--lambda",  "--ts",    "--tw",        "--tw-class", "--th",
        "--routing",  "--root",         "--n",          "--backend", "--shift", "--exclusive", "--logical",  "--logical-dims",
        "--map",      "--group-stride", "--group-size", "--sources", "--noise-trace", "--noise", "--noise-cosched", "--noise-phases",
        "--seed", "--stragglers", "--straggler-factor", "--fail", "--reroute", "--timeline", "--timeline-processors", "--plot"})
    if (run.given(opt)) throw UsageError(std::string(opt) + " does not apply to --machine " + o.machine);
}

const PramAlgorithmInfo* choose_pram_algorithm(const std::string& algo, Operation op) {
  if (algo.empty()) {
    const PramAlgorithmInfo* a = default_pram_algorithm(op);
    if (!a) throw UsageError(std::string("no shared-memory algorithm performs ") + operation_name(op) + " (see `ppsim list`)");
    return a;
  }
  const PramAlgorithmInfo* a = find_pram_algorithm(algo);
  if (!a) throw UsageError("--algo '" + algo + "' is not a shared-memory algorithm (see `ppsim list`)");
  if (a->op != op) throw UsageError(wrong_operation(algo, a->op, operation_name(op)));
  return a;
}

}  // namespace

PramRule parse_pram_machine_option(const std::string& machine) {
  PramRule rule;
  if (!parse_pram_machine(machine, rule))
    throw UsageError("--machine '" + machine + "' is not network, pram-erew, pram-crew or pram-crcw-{common,arbitrary,priority,combining}");
  return rule;
}

PramConfig build_pram_config(const RunOptions& o, PramRule rule, const Command& run) {
  refuse_network_options(o, run);
  PramConfig c;
  c.rule = rule;
  const Operation op = parse_op_option(o.op);
  if (o.p.empty()) throw UsageError("give --p (the number of PRAM processors)");
  c.params.n = parse_count(o.p, "--p");
  c.params.m = parse_count(o.m, "--m");
  c.combine = parse_combine_option(o.combine);
  c.input = parse_input(o.input, c.combine);
  c.trace = o.trace;
  c.algorithm = choose_pram_algorithm(o.algo, op);
  return c;
}

namespace {

void print_pram_text(const PramConfig& c, const PramResult& r) {
  const int64_t n = c.params.n;
  std::cout << "ppsim: " << c.algorithm->name << " (" << operation_name(c.algorithm->op) << ") on a " << pram_rule_name(c.rule)
            << " PRAM, N = " << n << ", m = " << words_text(c.params.m) << ", " << operator_name(c.combine) << "\n  steps " << r.steps
            << " (ceil(log2 N) = " << ceil_log2(n) << "), reads " << r.reads << ", writes " << r.writes << "\n  "
            << verified_text(r.verified, r.mismatches) << "\n";
}

}  // namespace

int run_pram_machine(const RunOptions& o, PramRule rule, const Command& run) {
  const PramConfig c = build_pram_config(o, rule, run);
  if (!o.json.empty()) require_writable(o.json, "--json");
  const PramResult r = run_pram(c);
  if (!o.json.empty()) write_json(o.json, pram_json(c, r, o.machine, o.input));
  if (o.json != "-") print_pram_text(c, r);
  return verification_exit_code(r.verified, r.mismatches);
}

}  // namespace ppsim::cli
