// Builds the JSON reports of runs: a network's (run_json, one part after another: the configuration,
// the mapping and the machine, the cost, the steps, the verification, the final buffers, the trace)
// and a PRAM's (the bounds they print: bounds.cpp).
#include "ppsim/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ppsim/protocol.h"

namespace ppsim {

using nlohmann::json;

namespace {
// The shortest decimal text that reads back as v (as a float when single).
std::string number_text(double v, bool single) {
  char buf[64];
  const auto end = single ? std::to_chars(buf, buf + sizeof buf, float(v)).ptr : std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}
}  // namespace

std::string word_text(OperatorKind k, uint64_t w) {
  // A slot never written holds the fill pattern (0x5A5A... for every operator but interval's own),
  // not a number the run computed: "-" in the trace and in ppsim view, whatever the operator.
  if (w == operator_unset(k)) return "-";
  if (operator_rounded(k)) {
    const bool single = operator_single(k);
    return word_in_format(single, w) ? number_text(word_value(single, w), single) : "!";
  }
  if (k != OperatorKind::interval) return std::to_string(int64_t(w));
  if (w == kIntervalUnset) return "-";
  if (w == kIntervalIdentity) return "e";
  if (!interval_valid(w)) return "!";
  uint32_t lo = interval_lo(w), hi = interval_hi(w);
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + ":" + std::to_string(hi);
}

json word_json(OperatorKind k, uint64_t w) {
  if (k == OperatorKind::interval) return word_text(k, w);
  if (operator_rounded(k)) {
    const bool single = operator_single(k);
    if (!word_in_format(single, w)) return "!";  // not a float word (an unset slot)
    const double v = word_value(single, w);
    return std::isfinite(v) ? json(v) : json(number_text(v, single));  // JSON has no inf or nan
  }
  return int64_t(w);
}

std::string run_word_text(const RunConfig& c, uint64_t w) {
  if (c.algorithm->op != Operation::barrier) return word_text(c.combine, w);
  const int64_t p = c.params.p;
  if (!token_valid(w, p)) return "!";
  if (w == token_full(p)) return "all";
  const int64_t first = token_start(w), last = (first + token_len(w) - 1) % p;
  return first == last ? std::to_string(first) : std::to_string(first) + ".." + std::to_string(last);
}

json run_word_json(const RunConfig& c, uint64_t w) {
  return c.algorithm->op == Operation::barrier ? json(run_word_text(c, w)) : word_json(c.combine, w);
}

std::string input_text(const InputSpec& in) {
  if (!in.random) return "iota";
  std::string text = "random:";
  text += std::to_string(in.seed);
  if (in.lo != InputSpec{}.lo || in.hi != InputSpec{}.hi) {
    text += ':';
    text += number_text(in.lo, false);
    text += ':';
    text += number_text(in.hi, false);
  }
  return text;
}

json rounding_json(const RunResult& r) {
  return json{{"max_error_ulps", r.max_error_ulps < 0 ? json(nullptr) : json(r.max_error_ulps)},
              {"results_agree", r.results_agree == Agreement::not_applicable ? json(nullptr) : json(r.results_agree == Agreement::agree)}};
}

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

const char* routing_name(Routing r) { return r == Routing::cut_through ? "cut-through" : "store-and-forward"; }

json postal_lower_bound_json(const RunConfig& c) {
  const int64_t bound = postal_lower_bound_steps(c);
  return bound < 0 ? json(nullptr) : json(bound);
}

namespace {
const char* backend_name(Backend b) { return b == Backend::cpu ? "cpu" : b == Backend::cuda ? "cuda" : "auto"; }

json buffers_json(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs) {
  json out = json::object();
  const Operation op = c.algorithm->op;
  for (int b = 0; b < int(bufs.size()); ++b) {
    int64_t words = run_buffer_words(c, b);
    json procs = json::array();
    for (int64_t i = 0; i < c.params.p; ++i) {
      json row = json::array();
      for (int64_t w = 0; w < words; ++w) row.push_back(run_word_json(c, bufs[size_t(b)][size_t(i * words + w)]));
      procs.push_back(std::move(row));
    }
    out[buffer_name(op, b)] = std::move(procs);
  }
  return out;
}
}  // namespace

namespace {
// The per-word time of every link class of the machine: {"local": 1, "global": 4}.
json tw_class_json(const RunConfig& c) {
  const Topology& machine = physical_topology(c);
  json out = json::object();
  for (int k = 0; k < topology_link_class_count(machine); ++k) out[topology_link_class_name(machine, k)] = c.cost.tw_of_class(k);
  return out;
}
}  // namespace

json stragglers_json(const Stragglers& s, int64_t p) {
  if (!s.any()) return nullptr;
  json out{{"factor", s.factor}};
  if (s.listed > 0) {
    out["chosen"] = "listed";
  } else {
    out["chosen"] = "fraction";
    out["fraction"] = double(s.threshold) * 0x1p-64;
    out["seed"] = s.seed;
  }
  int64_t count = 0;
  json which = json::array();
  for (int64_t i = 0; i < p; ++i)
    if (s.slow(i)) {
      ++count;
      if (uint64_t(count) <= kReportFinishTimes) which.push_back(i);
    }
  out["count"] = count;
  out["processors"] = uint64_t(count) <= kReportFinishTimes ? which : json(nullptr);
  return out;
}

json failures_json(const RunConfig& c, const RunResult& r) {
  const Failures& f = c.failures;
  if (!f.any()) return nullptr;
  json injected = json::array();
  for (int n = 0; n < f.nproc; ++n) injected.push_back({{"kind", "proc"}, {"processor", f.proc[n].proc}, {"step", f.proc[n].step}});
  for (int n = 0; n < f.nlink; ++n) injected.push_back({{"kind", "link"}, {"a", f.link[n].a}, {"b", f.link[n].b}, {"step", f.link[n].step}});
  int64_t missing = 0, wrong = 0;
  json damage = json::array();
  for (const Damage& d : r.damage) {
    missing += d.missing;
    wrong += d.wrong;
    if (uint64_t(damage.size()) < kReportFinishTimes) damage.push_back({{"processor", d.proc}, {"missing", d.missing}, {"wrong", d.wrong}});
  }
  return json{{"injected", std::move(injected)},
              {"reroute", f.reroute},
              {"dropped_messages", r.dropped},
              {"rerouted_messages", r.rerouted},
              {"completed", c.verify ? json(r.verified) : json(nullptr)},
              {"damaged_processors", c.verify ? json(r.damage.size()) : json(nullptr)},
              {"missing_words", c.verify ? json(missing) : json(nullptr)},
              {"wrong_words", c.verify ? json(wrong) : json(nullptr)},
              {"damage", r.damage.size() <= kReportFinishTimes ? std::move(damage) : json(nullptr)}};
}

json noise_config_json(const NoiseSpec* n) {
  if (!n) return nullptr;
  return json{{"source", n->trace->source},
              {"period_ns", n->trace->period()},
              {"detours_per_period", n->trace->start.size() - 1},
              {"busy_fraction", n->trace->fraction()},
              {"phases", n->cosched ? "co-scheduled" : "independent"},
              {"drawn", n->phases == NoisePhases::loggopsim ? "loggopsim" : "ppsim"},
              {"seed", n->seed}};
}

json noise_outcome_json(uint64_t time, std::optional<uint64_t> noiseless, uint64_t total, const std::vector<uint64_t>& per_processor) {
  json per = nullptr;
  if (per_processor.size() <= kReportFinishTimes) per = per_processor;
  return json{{"noiseless_time", noiseless ? json(*noiseless) : json(nullptr)},
              {"slowdown", noiseless && *noiseless ? json(double(time) / double(*noiseless)) : json(nullptr)},
              {"injected_ns", total},
              {"injected_per_processor", std::move(per)}};
}

json finish_spread_json(const std::vector<uint64_t>& finish) {
  if (finish.empty()) return nullptr;
  const auto [lo, hi] = std::minmax_element(finish.begin(), finish.end());
  return *hi - *lo;
}

json model_json(const RunConfig& c) {
  if (c.cost.model == CostModel::loggp) {
    const LogGPParams& g = c.cost.loggp;
    return json{{"model", "loggp"},
                {"ports", port_spec_name(c.ports)},
                {"L", g.L},
                {"o", g.o},
                {"g", g.g},
                {"G", g.G},
                {"O", g.O},
                {"S", g.S},
                {"combine", operator_name(c.combine)},
                {"noise", noise_config_json(c.noise.get())},
                {"stragglers", stragglers_json(c.cost.stragglers, c.params.p)}};
  }
  return json{{"model", "linear"},
              {"stragglers", stragglers_json(c.cost.stragglers, c.params.p)},
              {"ports", port_spec_name(c.ports)},
              {"lambda", c.params.lambda},
              {"ts", c.cost.ts},
              {"tw", c.cost.tw},
              {"tw_class", tw_class_json(c)},
              {"th", c.cost.th},
              {"gamma", c.cost.gamma},
              {"routing", routing_name(c.cost.routing)},
              {"protocol", c.protocol ? json(protocol_name(Protocol(c.protocol))) : json(nullptr)},
              {"nccl_version", c.protocol ? json(nccl_version_name(NcclVersion(c.nccl_version))) : json(nullptr)},
              {"base_latency", c.base_latency},
              {"combine", operator_name(c.combine)}};
}

// The units of a run written in bytes, GB/s and µs (PhysicalUnits), or null.
json units_json(const RunConfig& c) {
  if (!c.units.on) return nullptr;
  return {{"time", "us"},
          {"bandwidth", "GB/s"},
          {"type", c.units.type},
          {"word_bytes", c.units.word_bytes},
          {"size_bytes", c.params.m * c.units.word_bytes},
          {"preset", c.units.preset.empty() ? json(nullptr) : json(c.units.preset)},
          {"nodes", c.units.preset.empty() ? json(nullptr) : json(c.units.nodes)}};
}

json config_json(const RunConfig& c, Backend requested) {
  const Topology& t = physical_topology(c);
  json dims = json::array();
  for (int k = 0; k < t.ndims; ++k) dims.push_back(t.dims[k]);
  json doc = model_json(c);
  const AlgorithmInfo* inter = c.algorithm->composes_allreduce() ? inter_algorithm(c.params) : nullptr;  // run between nodes
  doc.update(json{{"topology", topology_name(t.kind)},
                  {"p", t.p},
                  {"dims", dims},
                  {"op", operation_name(c.algorithm->op)},
                  {"algo", c.algorithm->name},
                  {"inter", inter ? json(inter->name) : json(nullptr)},
                  {"m", c.params.m},
                  {"units", units_json(c)},
                  {"root", c.params.root},
                  {"n", c.algorithm->op == Operation::scan ? json(scan_elements(c.params)) : json(nullptr)},
                  {"exclusive", c.params.exclusive},
                  {"shift", c.algorithm->op == Operation::shift ? json(c.params.shift) : json(nullptr)},
                  {"group_stride", c.algorithm->op == Operation::multicast ? json(c.params.group_stride) : json(nullptr)},
                  {"group_size", c.algorithm->op == Operation::multicast ? json(multicast_size(c.params)) : json(nullptr)},
                  {"sources", c.algorithm->op == Operation::kbroadcast || c.algorithm->op == Operation::kscatter ? json(c.params.sources)
                                                                                                                 : json(nullptr)},
                  {"input", input_text(c.input)},
                  {"backend", backend_name(requested)},
                  {"threads", c.threads},
                  {"trace", c.trace},
                  {"logical", c.mapped ? json(topology_shape(c.topology)) : json(nullptr)},
                  {"map", map_kind_name(c.mapped ? c.mapping.kind : MapKind::identity)}});
  return doc;
}

namespace {
// Where the logical topology runs on the machine (textbook §2.7), and how well it fits.
json mapping_json(const RunConfig& c, const Topology& machine) {
  MappingMetrics mm = mapping_metrics(c.mapping);
  return {{"logical", topology_shape(c.topology)},
          {"physical", topology_shape(machine)},
          {"map", map_kind_name(c.mapping.kind)},
          {"dilation", mm.computed ? json(mm.dilation) : json(nullptr)},
          {"congestion", mm.computed ? json(mm.congestion) : json(nullptr)},
          {"expansion", mm.expansion}};
}

// The machine's Table 2-1 metrics.
json topology_json(const Topology& machine) {
  TopologyMetrics tm = topology_metrics(machine);
  return {{"shape", topology_shape(machine)},
          {"diameter", tm.diameter},
          {"bisection_width", tm.bisection_width},
          {"arc_connectivity", tm.arc_connectivity},
          {"links", tm.links}};
}

// The run's steps and time beside its closed form, its lower bounds and its bandwidths, and its
// traffic summed over the steps (docs/DESIGN.md §3).
void add_cost(json& doc, const RunConfig& c, const RunResult& r) {
  doc["steps"] = r.steps;
  doc["time"] = r.time;
  doc["formula_time"] = number_or_null(formula_time(c));
  doc["formula"] = c.algorithm->formula_text;
  doc["lower_bound_steps"] = postal_lower_bound_json(c);
  doc["lower_bound_time"] = number_or_null(lower_bound_time(c));
  const Bandwidth bw = bandwidth(c, r.time);
  doc["algbw"] = number_or_null(bw.algbw);
  doc["busbw"] = number_or_null(bw.busbw);
  if (c.units.on) {  // the same figures in the units of nccl-tests
    doc["time_us"] = r.time;
    doc["algbw_GBps"] = number_or_null(gbps_of(c.units, bw.algbw));
    doc["busbw_GBps"] = number_or_null(gbps_of(c.units, bw.busbw));
  }
  doc["messages"] = r.messages;
  doc["words"] = r.words;
  doc["link_hops"] = r.link_hops;
  doc["max_link_load"] = r.max_link_load;
}

// Every step's figures (no per-step time under LogGP: its clocks are per processor).
json per_step_json(const RunConfig& c, const RunResult& r) {
  json steps = json::array();
  for (const auto& s : r.per_step)
    steps.push_back({{"step", s.step},
                     {"messages", s.messages},
                     {"words", s.words},
                     {"link_hops", s.link_hops},
                     {"max_link_load", s.max_link_load},
                     {"time", c.cost.model == CostModel::loggp ? json(nullptr) : json(s.time)}});
  if (c.failures.any())
    for (size_t k = 0; k < r.per_step.size(); ++k) {
      steps[k]["dropped"] = r.per_step[k].dropped;
      steps[k]["rerouted"] = r.per_step[k].rerouted;
    }
  return steps;
}

// The verdict of verification (docs/DESIGN.md §6), with its first mismatches.
void add_verification(json& doc, const RunConfig& c, const RunResult& r) {
  doc["verified"] = r.verified;
  doc["mismatches"] = r.mismatches;
  doc.update(rounding_json(r));
  json examples = json::array();
  for (const auto& m : r.first_mismatches)
    examples.push_back({{"buffer", buffer_name(c.algorithm->op, m.buf)},
                        {"processor", m.proc},
                        {"word", m.word},
                        {"expected", run_word_json(c, m.expected)},
                        {"got", run_word_json(c, m.got)}});
  doc["mismatch_examples"] = std::move(examples);
}

// The LogGP clocks' verdict: when each processor finished (small p only), the last, and the work.
json loggp_json(const RunConfig& c, const RunResult& r) {
  json finish = nullptr;  // per processor, for small p
  if (r.finish.size() <= kReportFinishTimes) finish = r.finish;
  json out{{"finish", std::move(finish)},
           {"finish_spread", finish_spread_json(r.finish)},
           {"last_processor", r.last_processor},
           {"events", r.loggp_events},
           {"seconds", r.loggp_seconds},
           {"timing", r.loggp_timing}};
  if (c.noise) out["noise"] = noise_outcome_json(uint64_t(r.time), noiseless_of(r), r.noise_total, r.noise_per_processor);
  return out;
}

// The final buffers, where they are small enough to print.
json final_json(const RunConfig& c, const RunResult& r) {
  uint64_t words = 0;
  for (const auto& b : r.buffers) words += b.size();
  json out = json::object();
  if (words <= kReportFinalWords) out["buffers"] = buffers_json(c, r.buffers);
  return out;
}

// The buffers after every step, and the messages each step sent.
json trace_json(const RunConfig& c, const RunResult& r) {
  json trace = json::array();
  for (const auto& ts : r.trace) {
    json msgs = json::array();
    for (const auto& m : ts.messages)
      msgs.push_back({{"from", m.from},
                      {"to", m.to},
                      {"words", m.words},
                      {"buffer", buffer_name(c.algorithm->op, m.buf)},
                      {"offset", m.src_off},
                      {"sent", m.sent},
                      {"arrives", m.arrives}});
    trace.push_back({{"step", ts.step}, {"buffers", buffers_json(c, ts.buffers)}, {"messages", std::move(msgs)}});
  }
  return trace;
}
}  // namespace

json run_json(const RunConfig& c, Backend requested, const RunResult& r) {
  const Topology& machine = physical_topology(c);
  const RunConfig timed = timed_config(c);
  json doc;
  doc["config"] = config_json(timed, requested);
  doc["config"]["timing"] = c.timing == StepTiming::dataflow ? "dataflow" : "lockstep";
  if (!c.nccl_choice.empty()) doc["config"]["nccl_choice"] = c.nccl_choice;
  if (!r.timing.empty())  // the time comes from the rounds (ppsim/round_timing.h)
    doc["round_timing"] = {{"timing", r.timing},
                           {"lockstep_time", r.lockstep_time},
                           {"timed_m", r.timed_words},
                           {"carried_m", c.params.m},
                           {"carried_because", c.timed_m > 0 ? json(c.carried_because) : json(nullptr)},
                           {"carried_bytes", c.units.on ? json(c.params.m * c.units.word_bytes) : json(nullptr)}};
  doc["backend_used"] = r.backend;
  if (!r.step_path.empty()) doc["step_path"] = r.step_path;
  if (c.mapped) doc["mapping"] = mapping_json(c, machine);
  doc["topology"] = topology_json(machine);
  add_cost(doc, timed, r);
  doc["per_step"] = per_step_json(c, r);
  add_verification(doc, c, r);
  if (c.failures.any()) doc["failures"] = failures_json(c, r);
  doc["wall_seconds"] = r.wall_seconds;
  if (c.cost.model == CostModel::loggp) doc["loggp"] = loggp_json(c, r);
  doc["final"] = final_json(c, r);
  if (c.trace) doc["trace"] = trace_json(c, r);
  return doc;
}

namespace {
// Processor i's (or cell i's) m words, for i < n.
json pram_words(OperatorKind k, const std::vector<uint64_t>& words, int64_t n, int64_t m) {
  json out = json::array();
  for (int64_t i = 0; i < n; ++i) {
    json row = json::array();
    for (int64_t w = 0; w < m; ++w) row.push_back(word_json(k, words[size_t(i * m + w)]));
    out.push_back(std::move(row));
  }
  return out;
}
}  // namespace

json pram_json(const PramConfig& c, const PramResult& r, const std::string& machine, const std::string& input) {
  const int64_t n = c.params.n, m = c.params.m;
  json doc;
  doc["config"] = {{"machine", machine},
                   {"rule", pram_rule_name(c.rule)},
                   {"op", operation_name(c.algorithm->op)},
                   {"algo", c.algorithm->name},
                   {"p", n},
                   {"m", m},
                   {"combine", operator_name(c.combine)},
                   {"input", input},
                   {"trace", c.trace}};
  doc["steps"] = r.steps;
  doc["time"] = r.steps;
  doc["reads"] = r.reads;
  doc["writes"] = r.writes;
  json steps = json::array();
  for (const auto& s : r.per_step) steps.push_back({{"step", s.step}, {"reads", s.reads}, {"writes", s.writes}});
  doc["per_step"] = std::move(steps);
  doc["verified"] = r.verified;
  doc["mismatches"] = r.mismatches;
  doc["wall_seconds"] = r.wall_seconds;
  doc["final"] = json::object();
  if (uint64_t(n * m) <= kReportFinalWords)
    doc["final"] = {{"registers", pram_words(c.combine, r.registers, n, m)}, {"cells", pram_words(c.combine, r.cells, n, m)}};
  if (c.trace) {
    json trace = json::array();
    for (size_t j = 0; j < r.trace.size(); ++j)
      trace.push_back({{"step", j},
                       {"registers", pram_words(c.combine, r.trace[j].registers, n, m)},
                       {"cells", pram_words(c.combine, r.trace[j].cells, n, m)}});
    doc["trace"] = std::move(trace);
  }
  return doc;
}

}  // namespace ppsim
