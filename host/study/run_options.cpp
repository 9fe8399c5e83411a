// A run's options turned into a checked RunConfig (run_options.h): the machine, its models, the
// operation's parameters, the algorithm and the effects, each option read by one rule.
#include "study/run_options.h"

#include "study/nccl_choice.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "loggp/loggp.h"
#include "ppsim/algorithm.h"
#include "ppsim/mapping.h"
#include "ppsim/preset.h"
#include "ppsim/protocol.h"
#include "study/progress.h"

namespace ppsim::study {

InputSpec parse_input(const std::string& text, OperatorKind k) {
  const std::string usage = "--input '" + text + "' is neither 'iota' nor 'random:SEED' (fsum, fsum32: also 'random:SEED:LO:HI')";
  if (text == "iota") return {};
  const std::string prefix = "random:";
  if (text.rfind(prefix, 0) != 0) throw UsageError(usage);
  std::vector<std::string> parts;  // SEED, or SEED, LO, HI
  for (size_t at = prefix.size();;) {
    const size_t colon = text.find(':', at);
    parts.push_back(text.substr(at, colon == std::string::npos ? std::string::npos : colon - at));
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  const std::string& seed = parts[0];
  if (seed.empty() || seed.size() > 19 || seed.find_first_not_of("0123456789") != std::string::npos ||
      (parts.size() != 1 && parts.size() != 3))
    throw UsageError(usage);
  InputSpec in{true, std::stoull(seed)};
  if (parts.size() == 3) {
    if (!operator_rounded(k)) throw UsageError("--input '" + text + "': a range LO:HI applies to --combine fsum and fsum32 only");
    auto number = [&](const std::string& s) {
      double v = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        throw UsageError("--input '" + text + "': '" + s + "' is not a finite number");
      return v;
    };
    in.lo = number(parts[1]);
    in.hi = number(parts[2]);
    if (!(in.lo < in.hi)) throw UsageError("--input '" + text + "': the range needs LO < HI");
    const double largest = operator_single(k) ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
    if (!std::isfinite(in.hi - in.lo) || std::fabs(in.lo) > largest || std::fabs(in.hi) > largest)
      throw UsageError("--input '" + text + "': the range must lie within the format (its width finite)");
  }
  return in;
}

Operation parse_op_option(const std::string& text) {
  Operation op;
  if (!parse_operation(text, op)) throw UsageError("--op '" + text + "' is unknown (see `ppsim list`)");
  return op;
}

OperatorKind parse_combine_option(const std::string& text) {
  OperatorKind k;
  if (!parse_operator(text, k)) throw UsageError("--combine '" + text + "' is unknown (" + operator_names() + ")");
  return k;
}

PortSpec parse_ports_option(const std::string& text) {
  PortSpec spec;
  if (!parse_port_spec(text, spec))
    throw UsageError("--ports '" + text + "' is not " + port_spec_names(", ") + " or a number 1.." + std::to_string(kMaxOps));
  return spec;
}

const TopologyType& parse_topology_option(const std::string& text, const char* option) {
  const TopologyType* type = find_topology_type(text);
  if (!type) throw UsageError(std::string(option) + " '" + text + "' is unknown (see `ppsim list`)");
  return *type;
}

std::string wrong_operation(const std::string& algo, Operation performs, const std::string& wanted) {
  return "--algo " + algo + " performs " + operation_name(performs) + ", not " + wanted;
}

namespace {

// --topology with --p or --dims: the machine.
Topology machine_topology(const RunOptions& o) {
  const TopologyType& type = parse_topology_option(o.topology, "--topology");
  if (o.p.empty() && o.dims.empty()) throw UsageError(kNeedProcessors);
  int64_t p = o.p.empty() ? 0 : parse_count(o.p, "--p");
  if (!o.p.empty() && p < 1) throw UsageError("--p must be at least 1 (got " + o.p + ")");
  try {
    return make_topology(type, p, o.dims);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// A list CLASS=X[,CLASS=X...] of option `option` over the link classes of the machine (the
// physical topology): set(k, value) for each, every value finite, non-negative and, where
// `positive`, above 0.
template <class Set>
void read_class_values(const RunConfig& c, const std::string& text, const char* option, bool positive, Set set) {
  const Topology& machine = physical_topology(c);
  std::string classes;
  for (int k = 0; k < topology_link_class_count(machine); ++k) {
    if (k) classes += ' ';
    classes += topology_link_class_name(machine, k);
  }
  size_t start = 0;
  uint32_t seen = 0;
  const std::string opt = option;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start), name = item.substr(0, item.find('='));
    start = comma + 1;
    if (item.find('=') == std::string::npos || name.empty())
      throw UsageError(opt + " '" + item + "' is not CLASS=X (the classes of " + topology_shape(machine) + ": " + classes + ")");
    const int k = topology_find_link_class(machine, name);
    if (k < 0) throw UsageError(opt + ": " + topology_shape(machine) + " has no link class '" + name + "' (its classes: " + classes + ")");
    const std::string value_text = item.substr(name.size() + 1);
    double value = 0;
    const auto [end, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (value_text.empty() || ec != std::errc() || end != value_text.data() + value_text.size() || !std::isfinite(value) || value < 0 ||
        (positive && value == 0))
      throw UsageError(opt + " " + name + "='" + value_text + "' is not a finite " + (positive ? "positive" : "non-negative") + " number");
    if ((seen >> k) & 1u) throw UsageError(opt + " gives class " + name + " twice");
    seen |= 1u << k;
    set(k, value);
  }
}

// --tw-class CLASS=X[,CLASS=X...]: link classes of the machine with per-word times of their own.
void read_tw_classes(const RunOptions& o, RunConfig& c) {
  read_class_values(c, o.tw_class, "--tw-class", false, [&](int k, double v) { c.cost.set_class_tw(k, v); });
}

// Whether the run is written in bytes, GB/s and µs (PhysicalUnits).
bool physical_units(const RunOptions& o) {
  return !o.preset.empty() || o.nodes != 0 || !o.size.empty() || !o.type.empty() || !o.bw.empty() || !o.bw_class.empty() ||
         !o.lat.empty() || !o.lat_class.empty();
}

// --preset and --nodes: the options as the machine they write (its topology and --dims).
RunOptions with_preset(const RunOptions& o) {
  if (o.preset.empty()) {
    if (o.nodes != 0) throw UsageError("--nodes needs --preset (" + machine_preset_names() + ")");
    return o;
  }
  const MachinePreset* m = find_machine_preset(o.preset);
  if (!m) throw UsageError("--preset '" + o.preset + "' is unknown (" + machine_preset_names() + ")");
  if (!o.p.empty() || !o.dims.empty()) throw UsageError("--preset " + o.preset + " sets the machine: give its size with --nodes, not --p or --dims");
  if (o.topology != RunOptions{}.topology && o.topology != "cluster")
    throw UsageError("--preset " + o.preset + " is a cluster (rails); --topology " + o.topology + " does not apply");
  RunOptions r = o;
  r.topology = "cluster";
  r.dims = preset_dims(*m, o.nodes ? o.nodes : 1);
  return r;
}

// --type, and whether the units are bytes at all: c.units before the words are counted.
void read_units(const RunOptions& o, RunConfig& c) {
  if (!physical_units(o)) return;
  c.units.on = true;
  if (!o.type.empty()) {
    c.units.word_bytes = element_type_bytes(o.type);
    if (c.units.word_bytes == 0) throw UsageError("--type '" + o.type + "' is unknown (" + kElementTypeNames + ")");
    c.units.type = o.type;
  }
  c.units.preset = o.preset;
  c.units.nodes = o.preset.empty() ? 0 : (o.nodes ? o.nodes : 1);
}

// --bw, --bw-class, --lat and --lat-class (and a preset's bandwidths): the linear model's t_s, t_w
// and classes in µs, a word being c.units.word_bytes bytes.
void read_physical_costs(const RunOptions& o, RunConfig& c) {
  if (!c.units.on) return;
  const RunOptions d;
  if (c.cost.model != CostModel::linear)
    throw UsageError("--preset, --size, --type, --bw and --lat apply to --model linear (loggp reads nanoseconds and bytes: --L .. --S)");
  if (o.ts != d.ts || o.tw != d.tw || !o.tw_class.empty())
    throw UsageError("with bytes and GB/s give latencies in µs and bandwidths in GB/s (--lat, --lat-class, --bw, --bw-class), not --ts, --tw or --tw-class");
  const double bytes = double(c.units.word_bytes);
  auto word_time = [&](double GBps) { return bytes / (GBps * 1e3); };  // µs a word
  c.cost.ts = o.lat.empty() ? 0.0 : parse_real(o.lat, "--lat");
  if (c.cost.ts < 0) throw UsageError("--lat must not be negative");
  if (!o.bw.empty()) {
    const double bw = parse_real(o.bw, "--bw");
    if (!(bw > 0)) throw UsageError("--bw must be above 0 (GB/s)");
    c.cost.tw = word_time(bw);
  } else if (o.preset.empty() && o.bw_class.empty()) {
    throw UsageError("with bytes, give the links' bandwidth: --bw GB/s, --bw-class, or a --preset");
  }
  const Topology& machine = physical_topology(c);
  if (const MachinePreset* m = o.preset.empty() ? nullptr : find_machine_preset(o.preset)) {
    for (int k = 0; k < topology_link_class_count(machine); ++k)
      c.cost.set_class_tw(k, word_time(preset_class_GBps(*m, c.units.nodes, topology_link_class_name(machine, k))));
    if (o.bw.empty()) c.cost.tw = word_time(preset_class_GBps(*m, c.units.nodes, "rail"));
  }
  read_class_values(c, o.bw_class, "--bw-class", true, [&](int k, double v) { c.cost.set_class_tw(k, word_time(v)); });
  read_class_values(c, o.lat_class, "--lat-class", false, [&](int k, double v) {
    c.cost.ts_class[k] = v;
    c.cost.ts_class_set |= 1u << k;
  });
}

// --logical, --logical-dims and --map: the algorithm's topology differs from the machine's
// (textbook §2.7); c.topology becomes the logical one.
void map_logical_topology(const RunOptions& o, RunConfig& c) {
  MapKind map_kind;
  if (!parse_map_kind(o.map, map_kind)) throw UsageError("--map '" + o.map + "' is not identity, gray or snake");
  if (!o.logical_dims.empty() && o.logical.empty()) throw UsageError("--logical-dims needs --logical");
  if (o.logical.empty()) {
    if (map_kind != MapKind::identity) throw UsageError("--map " + o.map + " needs --logical (the topology the algorithm is written for)");
    return;
  }
  const TopologyType& logical = parse_topology_option(o.logical, "--logical");
  c.mapped = true;
  c.mapping.kind = map_kind;
  c.mapping.physical = c.topology;
  try {
    c.mapping.logical = make_topology(logical, o.logical_dims.empty() ? c.topology.p : 0, o.logical_dims);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--logical: ") + e.what());
  }
  c.topology = c.mapping.logical;
  std::string bad = mapping_rejects(c.mapping);
  if (!bad.empty()) throw UsageError(bad);
}

// --combine, --ports, --routing, --backend and --threads.
void read_machine_models(const RunOptions& o, RunConfig& c, Backend& backend) {
  c.combine = parse_combine_option(o.combine);
  c.ports = parse_ports_option(o.ports);
  if (o.routing == "cut-through") c.cost.routing = Routing::cut_through;
  else if (o.routing == "store-and-forward") c.cost.routing = Routing::store_and_forward;
  else throw UsageError("--routing '" + o.routing + "' is not cut-through or store-and-forward");
  if (o.backend == "cpu") backend = Backend::cpu;
  else if (o.backend == "cuda") backend = Backend::cuda;
  else if (o.backend == "auto") backend = Backend::automatic;
  else throw UsageError("--backend '" + o.backend + "' is not cpu, cuda or auto");
  if (o.threads < 0 || o.threads > kMaxThreads)  // libgomp crashes when asked for 100000 threads
    throw UsageError("--threads must be between 0 (all cores) and " + std::to_string(kMaxThreads) + " (got " + std::to_string(o.threads) +
                     ")");
}

// --n, --exclusive, --shift, --group-stride, --group-size and --sources: each only for its operations.
void read_operation_params(const RunOptions& o, Operation op, AlgoParams& a) {
  if (o.n < 0) throw UsageError("--n must be positive");
  if (o.n > 0 && op != Operation::scan) throw UsageError("--n applies to --op scan only");
  a.n = o.n;
  if (o.exclusive && op != Operation::scan) throw UsageError("--exclusive applies to --op scan only");
  a.exclusive = o.exclusive;
  if (o.shift < 0) throw UsageError("--shift must not be negative");
  a.shift = o.shift;
  if ((o.group_stride != 1 || o.group_size != 0) && op != Operation::multicast)
    throw UsageError("--group-stride and --group-size apply to --op multicast only");
  if (o.sources != 1 && op != Operation::kbroadcast && op != Operation::kscatter)
    throw UsageError("--sources applies to --op kbroadcast and kscatter only");
  if (o.group_stride < 1 || o.group_size < 0 || o.sources < 1)
    throw UsageError("--group-stride and --sources must be at least 1, --group-size at least 0");
  a.group_stride = o.group_stride;
  a.group_size = o.group_size;
  a.sources = o.sources;
  if (o.radix < 2 || o.radix > kMaxOps + 1) throw UsageError("--radix must be between 2 and " + std::to_string(kMaxOps + 1));
  if (o.segments < 1) throw UsageError("--segments must be at least 1");
  if (o.channels < 1 || o.channels > kMaxOps) throw UsageError("--channels must be between 1 and " + std::to_string(kMaxOps));
  a.radix = int32_t(o.radix);
  a.segments = o.segments;
  a.channels = int32_t(o.channels);
  if (!o.inter.empty()) {  // what it may be, the hierarchical all-reduce says (its rejects)
    const AlgorithmInfo* inter = find_algorithm(o.inter);
    if (!inter) throw UsageError("--inter '" + o.inter + "' is unknown (see `ppsim list`)");
    a.inter = int16_t(inter->id);
  }
}

}  // namespace

LogGPParams loggp_params(const RunOptions& o) {
  for (int64_t v : {o.loggp_L, o.loggp_o, o.loggp_g, o.loggp_G, o.loggp_O, o.loggp_S})
    if (v < 0) throw UsageError("--L, --o, --g, --G, --O and --S must not be negative");
  const LogGPParams g{uint64_t(o.loggp_L), uint64_t(o.loggp_o), uint64_t(o.loggp_g),
                      uint64_t(o.loggp_G), uint64_t(o.loggp_O), uint64_t(o.loggp_S)};
  if (g.L > loggp::kMaxParam || g.o > loggp::kMaxParam || g.g > loggp::kMaxParam || g.S > loggp::kMaxParam)
    throw UsageError("--L, --o, --g and --S must be at most 2^40");
  if (g.G > loggp::kMaxPerByte || g.O > loggp::kMaxPerByte) throw UsageError("--G and --O must be at most 2^20 (ns per byte)");
  return g;
}

namespace {

// --model and its parameters: those of the other model must keep their defaults.
void read_cost_model(const RunOptions& o, CostParams& cost) {
  const RunOptions d;
  const bool loggp_given = o.loggp_L != d.loggp_L || o.loggp_o != d.loggp_o || o.loggp_g != d.loggp_g || o.loggp_G != d.loggp_G ||
                           o.loggp_O != d.loggp_O || o.loggp_S != d.loggp_S;
  if (o.model == "linear") {
    if (loggp_given) throw UsageError("--L, --o, --g, --G, --O and --S apply to --model loggp");
    cost.model = CostModel::linear;
    return;
  }
  if (o.model != "loggp") throw UsageError("--model '" + o.model + "' is not linear or loggp");
  if (o.ts != d.ts || o.tw != d.tw || o.th != d.th || o.gamma != d.gamma || !o.tw_class.empty() || o.routing != d.routing)
    throw UsageError("--ts, --tw, --th, --gamma, --tw-class and --routing apply to --model linear (loggp takes --L --o --g --G --O --S)");
  if (o.lambda != d.lambda) throw UsageError("--lambda is the postal model's latency; under --model loggp the latency is --L");
  cost.model = CostModel::loggp;
  cost.loggp = loggp_params(o);
}

// --m, --input, --root, --lambda, the operation's parameters and the cost model.
void read_params(const RunOptions& o, Operation op, RunConfig& c) {
  int64_t m = parse_count(o.m, "--m");
  if (!o.size.empty()) {
    if (o.m != RunOptions{}.m) throw UsageError("give m as --m (words) or --size (bytes), not both");
    const int64_t bytes = parse_bytes(o.size, "--size");
    if (bytes < c.units.word_bytes || bytes % c.units.word_bytes != 0)
      throw UsageError("--size " + o.size + " is not a whole number of " + c.units.type + " elements (" + std::to_string(c.units.word_bytes) +
                       " bytes each)");
    m = bytes / c.units.word_bytes;
  }
  c.input = parse_input(o.input, c.combine);
  c.params = params_for(c.topology, m, o.root);
  c.params.lambda = o.lambda;
  read_operation_params(o, op, c.params);
  c.params.kports = c.ports.model == PortModel::kport ? c.ports.k : 1;
  c.params.all_port = c.ports.model == PortModel::all;
  c.cost.ts = o.ts;
  c.cost.tw = o.tw;
  c.cost.th = o.th;
  c.cost.gamma = o.gamma;
  read_cost_model(o, c.cost);
  c.cost.stragglers = read_straggler_options(o, c.params.p);
  c.noise = read_noise_options(o, c.cost);
  c.threads = o.threads;
  c.trace = o.trace;
  if (!std::isfinite(o.ts) || !std::isfinite(o.tw) || !std::isfinite(o.th) || !std::isfinite(o.gamma))
    throw UsageError("--ts, --tw, --th and --gamma must be finite");
}

// --algo, or the default algorithm of the operation on this topology; when there is none, why the
// first algorithm of the operation that refuses it does.
const AlgorithmInfo* choose_algorithm(const RunOptions& o, Operation op, const RunConfig& c) {
  if (!o.algo.empty()) {
    const AlgorithmInfo* a = find_algorithm(o.algo);
    if (!a) throw UsageError("--algo '" + o.algo + "' is unknown (see `ppsim list`)");
    if (a->op != op) throw UsageError(wrong_operation(o.algo, a->op, operation_name(op)));
    return a;
  }
  if (const AlgorithmInfo* a = default_algorithm(op, c.topology, c.params, c.combine)) return a;
  std::string why;
  for (const auto& a : algorithms())
    if (a.op == op) {
      why = algorithm_rejects(a, c.topology, c.params, c.combine);
      if (!why.empty()) break;
    }
  throw UsageError(std::string("no registered algorithm performs ") + operation_name(op) + " on " + topology_shape(c.topology) +
                   (why.empty() ? " (see `ppsim list`)" : ": " + why));
}

// --protocol: NCCL's latencies and bandwidth factors put into the linear model's costs.
void read_protocol(const RunOptions& o, RunConfig& c) {
  NcclVersion version;
  if (!parse_nccl_version(o.nccl_version, version))
    throw UsageError("--nccl-version '" + o.nccl_version + "' is none of " + kNcclVersionNames);
  if (o.protocol.empty()) {
    if (o.nccl_version != RunOptions{}.nccl_version) throw UsageError("--nccl-version applies with --protocol (NCCL's model)");
    return;
  }
  c.nccl_version = int8_t(version);
  Protocol p;
  if (!parse_protocol(o.protocol, p)) throw UsageError("--protocol '" + o.protocol + "' is not simple, ll or ll128");
  if (c.cost.model != CostModel::linear) throw UsageError("--protocol applies to --model linear (its costs are t_s and t_w)");
  apply_protocol(c, p);
}

// The most words a run in bytes (--size) carries, all processors together, before it carries a
// smaller size and times the full one from its rounds: 2^24 words (128 MiB) moves in about a
// second on one core.
constexpr int64_t kCarryWords = int64_t(1) << 24;

// --timing, and --carry (or the automatic choice for a size in bytes too large to carry): the data
// moves at m' while the rounds of the size given are timed (RunConfig::timed_m). m' keeps every
// loop's and channel's messages whole where it can: a multiple of S·C·p.
void read_timing(const RunOptions& o, RunConfig& c) {
  if (o.timing == "dataflow") c.timing = StepTiming::dataflow;
  else if (o.timing != "lockstep") throw UsageError("--timing '" + o.timing + "' is not lockstep or dataflow");
  if (c.timing == StepTiming::dataflow && c.cost.model != CostModel::linear) throw UsageError("--timing dataflow applies to --model linear");
  const int64_t m = c.params.m, p = c.params.p;
  int64_t carried = m;
  if (!o.carry.empty()) {
    if (c.units.on) {
      const int64_t bytes = parse_bytes(o.carry, "--carry");
      if (bytes < c.units.word_bytes || bytes % c.units.word_bytes != 0)
        throw UsageError("--carry " + o.carry + " is not a whole number of " + c.units.type + " elements");
      carried = bytes / c.units.word_bytes;
    } else {
      carried = parse_count(o.carry, "--carry");
    }
    if (carried > m) throw UsageError("--carry " + o.carry + " is larger than the size timed");
  } else if (c.units.on && c.cost.model == CostModel::linear && double(p) * double(m) > double(kCarryWords)) {
    const int64_t whole = std::max<int64_t>(1, c.params.segments) * std::max<int64_t>(1, c.params.channels) * p;
    carried = std::max<int64_t>(1, kCarryWords / p);
    if (carried >= whole) carried -= carried % whole;
  }
  if (carried == m) return;
  AlgoParams small = c.params;
  small.m = carried;
  if (c.algorithm->rounds(small) != c.algorithm->rounds(c.params))
    throw UsageError(std::string(c.algorithm->name) + " has other rounds at " + std::to_string(carried) + " words than at " + std::to_string(m) +
                     ": its data cannot be carried at a smaller size (give a smaller --m/--size)");
  c.timed_m = m;
  c.params.m = carried;
  c.carried_because = o.carry.empty() ? "the size timed is more than 2^24 words in all processors" : "--carry";
}

}  // namespace

RunConfig build_machine_config(const RunOptions& given, Operation op, Backend& backend) {
  const RunOptions o = with_preset(given);
  RunConfig c;
  c.topology = machine_topology(o);
  map_logical_topology(o, c);
  read_machine_models(o, c, backend);
  read_units(o, c);
  read_params(o, op, c);
  read_tw_classes(o, c);
  read_physical_costs(o, c);
  return c;
}

RunConfig build_config(const RunOptions& given, Backend& backend) {
  const Operation op = parse_op_option(given.op);
  std::string picked;
  const RunOptions o = given.algo == "nccl" ? with_nccl_choice(given, op, picked) : given;
  RunConfig c = build_machine_config(o, op, backend);
  c.nccl_choice = picked;
  c.algorithm = choose_algorithm(o, op, c);
  read_protocol(o, c);
  read_timing(o, c);
  c.failures = read_failure_options(o, c);
  return c;
}

void check_run_time(const RunOptions& o, const RunConfig& c, int ranks, bool quiet) {
  // As sweep and best do, the configuration is checked first: a run that cannot be has no time
  // (its memory is checked where it runs, on its backend). Split across ranks, each runs its share.
  validate_config(c, false);
  const std::string which = std::string(c.algorithm->name) + " on " + topology_shape(physical_topology(c)) + " with m = " + std::to_string(c.params.m);
  check_estimated_time(estimate_run_seconds(c) / ranks, o.time_limit, "this run", which, quiet);
}

}  // namespace ppsim::study
