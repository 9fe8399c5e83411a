// `ppsim nccl-tests OP`: nccl-tests' size sweep simulated (each size a verified run of NCCL's ring
// on the machine, timed from its rounds), printed in nccl-tests' columns, and held against a
// measured nccl-tests output with --compare.
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "nccl_tests_command.h"

#include "commands.h"
#include "options.h"
#include "output_file.h"
#include "ppsim/preset.h"
#include "ppsim/protocol.h"
#include "ppsim/run.h"
#include "study/nccl_choice.h"
#include "study/nccl_table.h"

namespace ppsim::cli {

// (named: the command line is compiled as one unit with its siblings)
namespace nccl_tests {

// nccl-tests' collectives as ppsim's operations and NCCL's ring units.
struct Collective {
  const char* name;
  const char* op;
  const char* algo;
  bool per_rank;    // the size column holds p blocks (all_gather, reduce_scatter): m is a block
  bool rooted;
};
constexpr Collective kCollectives[] = {
    {"all_reduce", "allreduce", "allreduce_nccl_ring", false, false},
    {"all_gather", "allgather", "allgather_nccl_ring", true, false},
    {"reduce_scatter", "reduce-scatter", "reduce_scatter_nccl_ring", true, false},
    {"broadcast", "broadcast", "broadcast_nccl_ring", false, true},
    {"reduce", "reduce", "reduce_nccl_ring", false, true},
};

const Collective& collective_named(const std::string& name) {
  for (const Collective& c : kCollectives)
    if (name == c.name) return c;
  throw UsageError("nccl-tests runs all_reduce, all_gather, reduce_scatter, broadcast or reduce (not '" + name + "')");
}

struct Row {
  int64_t bytes = 0, count = 0, loops = 0, carried_bytes = 0;
  double time_us = 0, algbw = 0, busbw = 0;
  int64_t wrong = 0;
  std::string timing;
  std::string algorithm, protocol, nccl_choice;  // what ran (nccl_choice: NCCL's tuner's pick, --algo nccl)
  int64_t channels = 1;
};

// nccl-tests' bus factor of each collective on p ranks.
double bus_factor(const Collective& coll, int64_t p) {
  if (std::string(coll.name) == "all_reduce") return 2.0 * double(p - 1) / double(p);
  if (coll.per_rank) return double(p - 1) / double(p);
  return 1.0;
}

// One size: the ring unit on the machine at m words (a block of the size for all_gather and
// reduce_scatter), NCCL's loops of that size, dataflow timing unless --timing says otherwise.
Row simulate_size(const NcclTestsOptions& o, const Command& cmd, const Collective& coll, const std::string& type, int64_t bytes) {
  RunOptions r = o.run;
  r.op = coll.op;
  if (r.algo.empty()) r.algo = coll.algo;
  if (!cmd.given("--timing")) r.timing = "dataflow";
  const bool tuned = r.algo == "nccl";  // NCCL's tuner sets the protocol, channels and loops (study/nccl_choice.h)
  if (r.protocol.empty() && !tuned) r.protocol = "simple";
  r.type = type;
  Protocol protocol = Protocol::simple;
  if (!tuned && !parse_protocol(r.protocol, protocol)) throw UsageError("--protocol '" + r.protocol + "' is not simple, ll or ll128");
  // p and the element's bytes come from a first configuration (the machine and units alone).
  Backend backend = Backend::automatic;
  RunOptions probe = r;
  probe.size = std::to_string(element_type_bytes(type));
  const RunConfig machine = build_machine_config(probe, Operation::allreduce, backend);
  if (!machine.units.on) throw UsageError("nccl-tests needs a machine in GB/s: give --preset (or --bw/--bw-class)");
  const int64_t p = machine.params.p, elem = machine.units.word_bytes;
  const int64_t block = coll.per_rank ? elem * p : elem;
  if (bytes < block || bytes % block != 0)
    throw UsageError(std::string(coll.name) + " on " + std::to_string(p) + " ranks takes sizes that are whole multiples of " +
                     std::to_string(block) + " bytes (" + type + (coll.per_rank ? " per rank" : "") + "), not " + std::to_string(bytes));
  if (!tuned && !cmd.given("--channels") && machine.units.nodes > 0) r.channels = int(machine.topology.dims[2] > 0 ? machine.topology.dims[2] : 1);
  if (!tuned && !cmd.given("--ports")) r.ports = std::to_string(r.channels);
  // NCCL's loops are those of its ring: another algorithm keeps --segments (default 1).
  NcclFunc func = NcclFunc::allreduce;
  nccl_func_of(parse_op_option(coll.op), func);
  if (!tuned && !cmd.given("--segments") && r.algo == coll.algo) r.segments = nccl_loops(func, NcclAlgo::ring, protocol, r.channels, p, 1, bytes);
  r.size = std::to_string(coll.per_rank ? bytes / p : bytes);
  if (!r.carry.empty() && parse_bytes(r.carry, "--carry") >= (coll.per_rank ? bytes / p : bytes)) r.carry.clear();  // carried whole
  RunConfig c = build_config(r, backend);
  c.keep_buffers = false;
  validate_config(c, false);
  const RunResult res = run_simulation(c, backend);
  Row row;
  row.bytes = bytes;
  row.count = (coll.per_rank ? bytes / p : bytes) / elem;
  row.loops = c.params.segments;
  row.carried_bytes = c.params.m * elem;
  row.time_us = res.time;
  row.algbw = res.time > 0 ? double(bytes) / res.time / 1e3 : 0;
  row.busbw = row.algbw * bus_factor(coll, p);
  row.wrong = res.verified ? 0 : std::max<int64_t>(1, res.mismatches);
  row.timing = res.timing.empty() ? "lockstep" : res.timing;
  row.algorithm = c.algorithm->name;
  row.protocol = protocol_name(Protocol(c.protocol));
  row.channels = c.params.channels;
  row.nccl_choice = c.nccl_choice;
  return row;
}

// A time as nccl-tests prints it: whole µs from 10 ms, one decimal from 100 µs, else two.
std::string time_text(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us >= 10000 ? "%7.0f" : us >= 100 ? "%7.1f" : "%7.2f", us);
  return buf;
}

std::string row_text(const Row& r, const std::string& type, const std::string& redop, int64_t root) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%12lld  %12lld  %8s  %6s  %6lld  %s  %6.2f  %6.2f  %6lld", (long long)r.bytes, (long long)r.count, type.c_str(),
                redop.c_str(), (long long)root, time_text(r.time_us).c_str(), r.algbw, r.busbw, (long long)r.wrong);
  return std::string(buf) + "  " + time_text(r.time_us) + "  " + [&] {
    char b[64];
    std::snprintf(b, sizeof b, "%6.2f  %6.2f  %6lld", r.algbw, r.busbw, (long long)r.wrong);
    return std::string(b);
  }();
}

std::vector<int64_t> sizes_of(const NcclTestsOptions& o) {
  const int64_t lo = parse_bytes(o.minbytes, "-b"), hi = o.maxbytes.empty() ? lo : parse_bytes(o.maxbytes, "-e");
  const int64_t f = parse_count(o.factor, "-f");
  if (hi < lo) throw UsageError("-e " + o.maxbytes + " is below -b " + o.minbytes);
  if (f < 2) throw UsageError("-f must be at least 2 (each size is the one before times f)");
  std::vector<int64_t> sizes;
  for (int64_t s = lo; s <= hi; s = s > hi / f ? hi + 1 : s * f) sizes.push_back(s);
  return sizes;
}

// The rows' document, and the comparison with a measured output where --compare gives one.
nlohmann::json sweep_document(const NcclTestsOptions& o, const Command& cmd) {
  const Collective& coll = collective_named(o.op);
  if (o.redop != "sum") throw UsageError("-o: the reduction simulated is sum (got " + o.redop + ")");
  std::vector<NcclTestsRow> measured;
  std::vector<int64_t> sizes;
  std::string type = o.type.empty() ? "float" : o.type;
  MeasuredHalf half = MeasuredHalf::lower;
  if (!parse_measured_half(o.measured, half)) throw UsageError("--measured '" + o.measured + "' is none of lower, out-of-place, in-place");
  if (o.compare.empty() && cmd.given("--measured")) throw UsageError("--measured reads the file of --compare: give --compare too");
  if (!o.compare.empty()) {
    if (cmd.given("-b,--minbytes") || cmd.given("-e,--maxbytes")) throw UsageError("--compare takes its sizes from the file: give no -b or -e");
    measured = read_nccl_tests_rows(o.compare);
    for (const NcclTestsRow& m : measured) {
      if (!o.type.empty() && m.type != o.type)
        throw ConfigError(o.compare + ":" + std::to_string(m.line) + ": the row's type is " + m.type + ", not -d " + o.type);
      if (m.type != measured.front().type)
        throw ConfigError(o.compare + ":" + std::to_string(m.line) + ": the rows mix types (" + measured.front().type + " and " + m.type + ")");
      sizes.push_back(m.bytes);
    }
    type = measured.front().type;
  } else {
    sizes = sizes_of(o);
  }
  const std::string redop = std::string(coll.name) == "all_gather" || std::string(coll.name) == "broadcast" ? "none" : o.redop;
  const int64_t root = coll.rooted ? o.run.root : -1;
  nlohmann::json doc = {{"collective", coll.name}, {"type", type}, {"redop", redop}, {"root", root}};
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> pred, meas, pred_big, meas_big;
  nlohmann::json cmp = nlohmann::json::array();
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Row r = simulate_size(o, cmd, coll, type, sizes[k]);
    rows.push_back({{"bytes", r.bytes}, {"count", r.count}, {"time_us", r.time_us}, {"algbw_GBps", r.algbw}, {"busbw_GBps", r.busbw},
                    {"wrong", r.wrong}, {"loops", r.loops}, {"carried_bytes", r.carried_bytes}, {"timing", r.timing},
                    {"algorithm", r.algorithm}, {"protocol", r.protocol}, {"channels", r.channels},
                    {"nccl_choice", r.nccl_choice.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.nccl_choice)}});
    if (measured.empty()) continue;
    const NcclTestsRow& m = measured[k];
    const MeasuredTime t = measured_time(m, half, o.compare);
    pred.push_back(r.time_us);
    meas.push_back(t.time_us);
    if (r.bytes >= (int64_t(64) << 20)) {
      pred_big.push_back(r.time_us);
      meas_big.push_back(t.time_us);
    }
    cmp.push_back({{"bytes", r.bytes}, {"predicted_time_us", r.time_us}, {"measured_time_us", t.time_us}, {"ratio", r.time_us / t.time_us},
                   {"predicted_busbw_GBps", r.busbw}, {"measured_busbw_GBps", t.busbw}, {"measured_half", t.in_place ? "in-place" : "out-of-place"},
                   {"out_of_place_time_us", m.time_us},
                   {"in_place_time_us", m.has_in_place ? nlohmann::json(m.in_place_time_us) : nlohmann::json(nullptr)}, {"line", m.line}});
  }
  doc["rows"] = rows;
  if (!measured.empty())
    doc["compare"] = {{"file", o.compare},
                      {"measured", o.measured},
                      {"rows", cmp},
                      {"error_all", geomean_error(pred, meas)},
                      {"error_64MiB", pred_big.empty() ? nlohmann::json(nullptr) : nlohmann::json(geomean_error(pred_big, meas_big))},
                      {"rows_64MiB", pred_big.size()}};
  return doc;
}

// The document as nccl-tests prints its rows, then the comparison and its errors.
void print_sweep(const nlohmann::json& doc) {
  const std::string type = doc["type"], redop = doc["redop"];
  const int64_t root = doc["root"];
  std::cout << "# ppsim nccl-tests " << doc["collective"].get<std::string>()
            << ": simulated, each size verified; in place and out of place are the same run\n";
  std::cout << "#\n#                                                              out-of-place                       in-place\n";
  std::cout << "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  std::cout << "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  for (const nlohmann::json& j : doc["rows"]) {
    Row r;
    r.bytes = j["bytes"];
    r.count = j["count"];
    r.time_us = j["time_us"];
    r.algbw = j["algbw_GBps"];
    r.busbw = j["busbw_GBps"];
    r.wrong = j["wrong"];
    std::cout << row_text(r, type, redop, root) << "\n";
  }
  for (const nlohmann::json& j : doc["rows"])  // --algo nccl: what the tuner picked for each size
    if (!j["nccl_choice"].is_null())
      std::cout << "# " << std::setw(12) << j["bytes"].get<int64_t>() << "  " << j["nccl_choice"].get<std::string>() << ": ran "
                << j["algorithm"].get<std::string>() << ", " << j["loops"].get<int64_t>() << " loop" << (j["loops"].get<int64_t>() == 1 ? "" : "s") << "\n";
  if (!doc.contains("compare")) return;
  const nlohmann::json& c = doc["compare"];
  const std::string measured = c["measured"];
  std::cout << "#\n# against " << c["file"].get<std::string>() << " ("
            << (measured == "lower" ? "the lower of each row's out-of-place and in-place times" : measured + " times")
            << ")\n#       size   predicted (us)    measured (us)   ratio   busbw predicted  measured (GB/s)  half\n";
  for (const nlohmann::json& j : c["rows"]) {
    char buf[220];
    std::snprintf(buf, sizeof buf, "%12lld  %15.2f  %15.2f  %6.3f  %16.2f  %8.2f  %s\n", (long long)j["bytes"].get<int64_t>(),
                  j["predicted_time_us"].get<double>(), j["measured_time_us"].get<double>(), j["ratio"].get<double>(),
                  j["predicted_busbw_GBps"].get<double>(), j["measured_busbw_GBps"].get<double>(), j["measured_half"].get<std::string>().c_str());
    std::cout << buf;
  }
  std::cout << "# error exp(mean |ln(predicted/measured)|) - 1: " << c["error_all"].get<double>() * 100 << " % over " << c["rows"].size() << " rows";
  if (!c["error_64MiB"].is_null())
    std::cout << ", " << c["error_64MiB"].get<double>() * 100 << " % over the " << c["rows_64MiB"].get<size_t>() << " rows of 64 MiB and more";
  std::cout << "\n";
}

int run_nccl_tests(const NcclTestsOptions& o, const Command& cmd) {
  if (!o.run.json.empty() && o.run.json != "-") require_writable(o.run.json, "--json");
  const nlohmann::json doc = sweep_document(o, cmd);
  if (o.run.json != "-") print_sweep(doc);
  if (!o.run.json.empty()) write_json(o.run.json, doc);
  for (const nlohmann::json& r : doc["rows"])
    if (r["wrong"].get<int64_t>() != 0) return verification_exit_code(false, r["wrong"]);
  return 0;
}

}  // namespace nccl_tests

nlohmann::json nccl_tests_json(const NcclTestsOptions& o, const Command& command) { return nccl_tests::sweep_document(o, command); }

void add_nccl_tests_options(Command& cmd, NcclTestsOptions& o) {
  cmd.text("op", o.op, "all_reduce | all_gather | reduce_scatter | broadcast | reduce");
  cmd.require("op");
  cmd.text("-b,--minbytes", o.minbytes, "smallest size in bytes (8, 64K, 1M, 8G)", true);
  cmd.text("-e,--maxbytes", o.maxbytes, "largest size in bytes (default: -b)");
  cmd.text("-f,--stepfactor", o.factor, "each size is the one before times this", true);
  cmd.text("-d,--datatype", o.type, "element type (default float; with --compare, the file's)");
  cmd.text("-o,--op", o.redop, "reduction (sum: the one simulated)", true);
  cmd.text("--compare", o.compare, "an nccl-tests output FILE: simulate its sizes and print predicted against measured, with the error");
  cmd.text("--measured", o.measured, "which of each row's times --compare holds to: lower (of out-of-place and in-place) | out-of-place | in-place", true);
  add_run_options(cmd, o.run,
                  {{"--preset", "a real machine (see `ppsim list`)"},
                   {"--nodes", "the preset's nodes"},
                   {"--topology", "the machine without a preset (cluster, ...)"},
                   {"--dims", "its extents"},
                   {"--p", "its processors"},
                   {"--bw", "link bandwidth in GB/s"},
                   {"--bw-class", "bandwidth of a link class in GB/s: CLASS=X[,...]"},
                   {"--lat", "startup latency in µs"},
                   {"--lat-class", "latency in µs of a link class: CLASS=X[,...]"},
                   {"--algo", "the algorithm (default NCCL's ring for the collective); nccl: NCCL's tuner picks it, its protocol and channels for each size"},
                   {"--protocol", "NCCL's protocol: simple (default) | ll | ll128"},
                   {"--nccl-version", "whose tuning model: 2.20.3 (default) | 2.8.3"},
                   {"--channels", "NCCL's channels (default: the preset's NICs a node)"},
                   {"--segments", "loops (default: NCCL's ring's for each size and protocol; 1 for another --algo)"},
                   {"--ports", "ports (default: the channels)"},
                   {"--timing", "lockstep | dataflow (default dataflow)"},
                   {"--carry", "carry each size's data at this many bytes at most"},
                   {"--root", "broadcast, reduce: the root"},
                   {"--backend", "cpu | cuda | auto"},
                   {"--threads", "CPU threads"},
                   {"--json", "write the rows (and the comparison) as JSON to FILE (- for stdout, instead of the text)"}});
}

Command nccl_tests_command() {
  using namespace nccl_tests;
  static NcclTestsOptions o;
  Command cmd("nccl-tests", "nccl-tests' size sweep on a machine: every size a verified run, printed in nccl-tests' columns");
  add_nccl_tests_options(cmd, o);
  cmd.run = [](const Command& c) { return run_nccl_tests(o, c); };
  return cmd;
}

}  // namespace ppsim::cli
