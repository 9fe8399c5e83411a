// Shared option handling of the ppsim subcommands.
#include "cli/options.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "ppsim/algorithm.h"
#include "ppsim/mapping.h"

namespace ppsim::cli {

int64_t parse_count(const std::string& text, const char* option) {
  const std::string what = std::string(option) + " '" + text + "'";
  auto whole = [&](const std::string& s) {  // decimal digits, within 64 bits
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || ptr != s.data() + s.size())
      throw UsageError(what + " is not a whole number (or 2^k)");
    if (ec != std::errc()) throw UsageError(what + " is too large");
    return v;
  };
  size_t caret = text.find('^');
  if (caret == std::string::npos) return whole(text);
  const int64_t base = whole(text.substr(0, caret)), exp = whole(text.substr(caret + 1));
  if (exp > 62 || std::pow(double(base), double(exp)) > 9.2e18) throw UsageError(what + " is too large");
  int64_t r = 1;
  for (int64_t i = 0; i < exp; ++i) r *= base;
  return r;
}

InputSpec parse_input(const std::string& text) {
  if (text == "iota") return {};
  const std::string prefix = "random:";
  if (text.rfind(prefix, 0) == 0) {
    std::string seed = text.substr(prefix.size());
    if (!seed.empty() && seed.size() <= 19 && seed.find_first_not_of("0123456789") == std::string::npos)
      return InputSpec{true, std::stoull(seed)};
  }
  throw UsageError("--input '" + text + "' is neither 'iota' nor 'random:SEED'");
}


void add_run_options(CLI::App* run, RunOptions& o) {
  run->add_option("--machine", o.machine, "network, or a shared-memory PRAM: pram-erew, pram-crew, pram-crcw-{common,arbitrary,priority,combining}")
      ->capture_default_str();
  run->add_option("--topology", o.topology, "linear, ring, mesh, torus, hypercube, full, star, tree, bintree, binomial")->capture_default_str();
  run->add_option("--p", o.p, "processors (e.g. 1024 or 2^10)");
  run->add_option("--dims", o.dims, "mesh/torus extents, RxC or RxCxD");
  run->add_option("--logical", o.logical, "the topology the algorithm is written for, mapped onto --topology (textbook 2.7)");
  run->add_option("--logical-dims", o.logical_dims, "extents of a logical mesh/torus");
  run->add_option("--map", o.map, "identity | gray | snake: where logical processor i runs")->capture_default_str();
  run->add_option("--op", o.op, "collective operation (see `ppsim list`)")->capture_default_str();
  run->add_option("--algo", o.algo, "algorithm (default: the topology's natural one)");
  run->add_option("--m", o.m, "words per message unit")->capture_default_str();
  run->add_option("--root", o.root, "root of broadcast/reduce/scatter/gather")->capture_default_str();
  run->add_option("--n", o.n, "scan: number of elements in all (default p; scan_postal_b spreads n > p)");
  run->add_flag("--exclusive", o.exclusive, "scan: exclusive prefix (processor 0 gets the identity)");
  run->add_option("--shift", o.shift, "shift: distance q (processor i's data goes to (i + q) mod p)")->capture_default_str();
  run->add_option("--group-stride", o.group_stride, "multicast: members are root + j*stride (mod p)")->capture_default_str();
  run->add_option("--group-size", o.group_size, "multicast: number of members (0: all)")->capture_default_str();
  run->add_option("--sources", o.sources, "kbroadcast, kscatter: k sources j*(p/k) work at once")->capture_default_str();
  run->add_option("--ports", o.ports, port_spec_names(" | ") + " | K")->capture_default_str();
  run->add_option("--lambda", o.lambda, "postal latency (steps until a message can be sent on)")->capture_default_str();
  run->add_option("--ts", o.ts, "startup time per message")->capture_default_str();
  run->add_option("--tw", o.tw, "time per word per link")->capture_default_str();
  run->add_option("--th", o.th, "time per hop")->capture_default_str();
  run->add_option("--routing", o.routing, "cut-through | store-and-forward")->capture_default_str();
  run->add_option("--combine", o.combine, "operator: " + operator_names())->capture_default_str();
  run->add_option("--input", o.input, "iota | random:SEED")->capture_default_str();
  run->add_option("--backend", o.backend, "cpu | cuda | auto")->capture_default_str();
  run->add_option("--threads", o.threads, "CPU threads (0: all)")->capture_default_str();
  run->add_option("--json", o.json, "write the JSON report to FILE (- for stdout)");
  run->add_flag("--trace", o.trace, "record buffers and messages after every step (small runs)");
}

RunConfig build_config(const RunOptions& o, Backend& backend) {
  RunConfig c;
  TopologyKind kind;
  if (!parse_topology_kind(o.topology, kind)) throw UsageError("--topology '" + o.topology + "' is unknown (see `ppsim list`)");
  if (o.p.empty() && o.dims.empty()) throw UsageError("give --p (or --dims for mesh and torus)");
  int64_t p = o.p.empty() ? 0 : parse_count(o.p, "--p");
  if (!o.p.empty() && p < 1) throw UsageError("--p must be at least 1 (got " + o.p + ")");
  try {
    c.topology = make_topology(kind, p, o.dims);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  MapKind map_kind;
  if (!parse_map_kind(o.map, map_kind)) throw UsageError("--map '" + o.map + "' is not identity, gray or snake");
  if (!o.logical_dims.empty() && o.logical.empty()) throw UsageError("--logical-dims needs --logical");
  if (!o.logical.empty()) {  // the algorithm's topology differs from the machine's (textbook §2.7)
    TopologyKind lk;
    if (!parse_topology_kind(o.logical, lk)) throw UsageError("--logical '" + o.logical + "' is unknown (see `ppsim list`)");
    c.mapped = true;
    c.mapping.kind = map_kind;
    c.mapping.physical = c.topology;
    try {
      c.mapping.logical = make_topology(lk, o.logical_dims.empty() ? c.topology.p : 0, o.logical_dims);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--logical: ") + e.what());
    }
    c.topology = c.mapping.logical;
    std::string bad = mapping_rejects(c.mapping);
    if (!bad.empty()) throw UsageError(bad);
  } else if (map_kind != MapKind::identity) {
    throw UsageError("--map " + o.map + " needs --logical (the topology the algorithm is written for)");
  }
  Operation op;
  if (!parse_operation(o.op, op)) throw UsageError("--op '" + o.op + "' is unknown (see `ppsim list`)");
  if (!parse_operator(o.combine, c.combine)) throw UsageError("--combine '" + o.combine + "' is unknown (" + operator_names() + ")");
  if (!parse_port_spec(o.ports, c.ports)) throw UsageError("--ports '" + o.ports + "' is not " + port_spec_names(", ") + " or a number 1.." + std::to_string(kMaxOps));
  if (o.routing == "cut-through") c.cost.routing = Routing::cut_through;
  else if (o.routing == "store-and-forward") c.cost.routing = Routing::store_and_forward;
  else throw UsageError("--routing '" + o.routing + "' is not cut-through or store-and-forward");
  if (o.backend == "cpu") backend = Backend::cpu;
  else if (o.backend == "cuda") backend = Backend::cuda;
  else if (o.backend == "auto") backend = Backend::automatic;
  else throw UsageError("--backend '" + o.backend + "' is not cpu, cuda or auto");
  if (o.threads < 0 || o.threads > kMaxThreads)  // libgomp crashes when asked for 100000 threads
    throw UsageError("--threads must be between 0 (all cores) and " + std::to_string(kMaxThreads) + " (got " + std::to_string(o.threads) + ")");
  int64_t m = parse_count(o.m, "--m");
  c.input = parse_input(o.input);
  c.params = params_for(c.topology, m, o.root);
  c.params.lambda = o.lambda;
  if (o.n < 0) throw UsageError("--n must be positive");
  if (o.n > 0 && op != Operation::scan) throw UsageError("--n applies to --op scan only");
  c.params.n = o.n;
  if (o.exclusive && op != Operation::scan) throw UsageError("--exclusive applies to --op scan only");
  c.params.exclusive = o.exclusive;
  if (o.shift < 0) throw UsageError("--shift must not be negative");
  c.params.shift = o.shift;
  if ((o.group_stride != 1 || o.group_size != 0) && op != Operation::multicast)
    throw UsageError("--group-stride and --group-size apply to --op multicast only");
  if (o.sources != 1 && op != Operation::kbroadcast && op != Operation::kscatter)
    throw UsageError("--sources applies to --op kbroadcast and kscatter only");
  if (o.group_stride < 1 || o.group_size < 0 || o.sources < 1)
    throw UsageError("--group-stride and --sources must be at least 1, --group-size at least 0");
  c.params.group_stride = o.group_stride;
  c.params.group_size = o.group_size;
  c.params.sources = o.sources;
  c.params.kports = c.ports.model == PortModel::kport ? c.ports.k : 1;
  c.cost.ts = o.ts;
  c.cost.tw = o.tw;
  c.cost.th = o.th;
  c.threads = o.threads;
  c.trace = o.trace;
  if (!std::isfinite(o.ts) || !std::isfinite(o.tw) || !std::isfinite(o.th)) throw UsageError("--ts, --tw and --th must be finite");
  if (o.algo.empty()) {
    c.algorithm = default_algorithm(op, c.topology, c.params, c.combine);
    if (!c.algorithm) {
      std::string why;
      for (const auto& a : algorithms())
        if (a.op == op) { why = algorithm_rejects(a, c.topology, c.params, c.combine); if (!why.empty()) break; }
      throw UsageError(std::string("no registered algorithm performs ") + operation_name(op) + " on " + topology_shape(c.topology) +
                       (why.empty() ? " (see `ppsim list`)" : ": " + why));
    }
  } else {
    c.algorithm = find_algorithm(o.algo);
    if (!c.algorithm) throw UsageError("--algo '" + o.algo + "' is unknown (see `ppsim list`)");
    if (c.algorithm->op != op)
      throw UsageError("--algo " + o.algo + " performs " + operation_name(c.algorithm->op) + ", not " + operation_name(op));
  }
  return c;
}

void write_json_atomically(const std::string& path, const nlohmann::json& doc) {
  if (path == "-") { std::cout << doc.dump(1) << "\n"; return; }
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  {
    std::ofstream f(tmp);
    if (!f) throw UsageError("--json: cannot write " + path);
    f << doc.dump(1) << "\n";
    if (!f.good()) {
      f.close();
      std::filesystem::remove(tmp, ec);
      throw UsageError("--json: failed writing " + path);
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw UsageError("--json: cannot write " + path);
  }
}

void require_writable(const std::string& path, const std::string& option) {
  if (path == "-") return;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(option + ": " + path + " is a directory");
  const std::string probe = path + ".tmp";
  const bool ok = static_cast<bool>(std::ofstream(probe));
  std::filesystem::remove(probe, ec);
  if (!ok) throw UsageError(option + ": cannot write " + path);
}

}  // namespace ppsim::cli
