// Shared option handling of the ppsim subcommands.
#include "options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <type_traits>
#include <variant>
#include <vector>

#include "loggp/loggp.h"
#include "ppsim/algorithm.h"
#include "ppsim/mapping.h"
#include "ppsim/preset.h"
#include "ppsim/protocol.h"

namespace ppsim::cli {

namespace {

// Each option bound to a field of RunOptions, once: its name, its field, whether --help shows its
// default, and how `run` describes it. Other subcommands take a few of them with descriptions of
// their own (`sweep` reads lists); bool fields are flags.
// "linear, ring, ..., dragonfly": every topology, in `ppsim list` order.
std::string topology_names() {
  std::string s;
  for (int k = 0; k < kTopologyCount; ++k) s += std::string(k ? ", " : "") + topology_name(TopologyKind(k));
  return s;
}

using RunField =
    std::variant<std::string RunOptions::*, int64_t RunOptions::*, int RunOptions::*, double RunOptions::*, bool RunOptions::*>;
struct RunOptionSpec {
  const char* name;
  RunField field;
  bool shows_default;
  std::string run_description;
  int64_t lo = INT32_MIN;  // integers: the least value the reader takes
};
const RunOptionSpec kRunOptions[] = {
    {"--machine", &RunOptions::machine, true,
     "network, or a shared-memory PRAM: pram-erew, pram-crew, pram-crcw-{common,arbitrary,priority,combining}"},
    {"--topology", &RunOptions::topology, true, topology_names()},
    {"--p", &RunOptions::p, false, "processors (e.g. 1024 or 2^10)"},
    {"--dims", &RunOptions::dims, false, "mesh/torus extents RxC or RxCxD; fattree KxN (k-ary n-tree); dragonfly AxHxC"},
    {"--logical", &RunOptions::logical, false, "the topology the algorithm is written for, mapped onto --topology (textbook 2.7)"},
    {"--logical-dims", &RunOptions::logical_dims, false, "extents of a logical mesh/torus"},
    {"--map", &RunOptions::map, true, "identity | gray | snake: where logical processor i runs"},
    {"--op", &RunOptions::op, true, "collective operation (see `ppsim list`)"},
    {"--algo", &RunOptions::algo, false, "algorithm (default: the topology's natural one); nccl: NCCL's tuner picks it, its protocol and channels (with --preset)"},
    {"--m", &RunOptions::m, true, "words per message unit"},
    {"--root", &RunOptions::root, true, "root of broadcast/reduce/scatter/gather"},
    {"--n", &RunOptions::n, false, "scan: number of elements in all (default p; scan_postal_b spreads n > p)", 1},
    {"--exclusive", &RunOptions::exclusive, false, "scan: exclusive prefix (processor 0 gets the identity)"},
    {"--shift", &RunOptions::shift, true, "shift: distance q (processor i's data goes to (i + q) mod p)"},
    {"--group-stride", &RunOptions::group_stride, true, "multicast: members are root + j*stride (mod p)"},
    {"--group-size", &RunOptions::group_size, true, "multicast: number of members (0: all)"},
    {"--sources", &RunOptions::sources, true, "kbroadcast, kscatter: k sources j*(p/k) work at once"},
    {"--radix", &RunOptions::radix, true, "Bruck all-to-all, k-nomial trees: the radix r (2 or more)"},
    {"--segments", &RunOptions::segments, true, "pipelined broadcast: segments the message travels in"},
    {"--channels", &RunOptions::channels, true, "NCCL's rings: channels the data is split over (1 to 32; each needs a port)"},
    {"--inter", &RunOptions::inter, false, "allreduce_hierarchical: the all-reduce between nodes, on each slice (default allreduce_ring)"},
    {"--ports", &RunOptions::ports, true, port_spec_names(" | ") + " | K"},
    {"--lambda", &RunOptions::lambda, true, "postal latency (steps until a message can be sent on)"},
    {"--ts", &RunOptions::ts, true, "startup time per message"},
    {"--tw", &RunOptions::tw, true, "time per word per link"},
    {"--th", &RunOptions::th, true, "time per hop"},
    {"--gamma", &RunOptions::gamma, true, "time per combined word (a receive that combines c words adds gamma * c)"},
    {"--tw-class", &RunOptions::tw_class, false, "per-word time of a link class: CLASS=X[,CLASS=X...] (see `ppsim list`)"},
    {"--preset", &RunOptions::preset, false, "a real machine as a cluster with its links' bandwidths: " + machine_preset_names() +
                                                  " (see `ppsim list`; sizes in bytes, GB/s, µs)"},
    {"--nodes", &RunOptions::nodes, false, "--preset: the machine's nodes (default 1)", 1},
    {"--size", &RunOptions::size, false, "m in bytes (8, 64K, 1M, 8G: powers of 1024), words of --type; instead of --m"},
    {"--type", &RunOptions::type, false, "with bytes: the element a word stands for, as nccl-tests' -d: " + std::string(kElementTypeNames) +
                                              " (default float)"},
    {"--bw", &RunOptions::bw, false, "bandwidth of a link in GB/s (10^9 B/s); the run's times are then µs"},
    {"--bw-class", &RunOptions::bw_class, false, "bandwidth of a link class in GB/s: CLASS=X[,CLASS=X...] (see `ppsim list`)"},
    {"--lat", &RunOptions::lat, false, "with bytes and GB/s: startup latency of a message in µs (default 0)"},
    {"--lat-class", &RunOptions::lat_class, false, "with bytes and GB/s: latency in µs of a message crossing a link class: CLASS=X[,...]"},
    {"--routing", &RunOptions::routing, true, "cut-through | store-and-forward"},
    {"--protocol", &RunOptions::protocol, false,
     "NCCL's protocol: simple | ll | ll128 (NCCL's latencies in us per step and bandwidth factors, of --nccl-version; give --ts/--tw in us)"},
    {"--nccl-version", &RunOptions::nccl_version, true, std::string("whose tuning model --protocol follows: ") + kNcclVersionNames},
    {"--model", &RunOptions::model, true, "linear (t_s + t_w m per step) | loggp (LogGOPSim's per-processor clocks, ns)"},
    {"--timing", &RunOptions::timing, true,
     "linear: lockstep (a step lasts as its slowest message) | dataflow (a processor goes on when its data has arrived)"},
    {"--carry", &RunOptions::carry, false,
     "carry and verify the data at this smaller --m/--size while timing the full size from its rounds (default: the full size, "
     "or a smaller one where it does not fit)"},
    {"--L", &RunOptions::loggp_L, true, "loggp: latency of the wire (ns)"},
    {"--o", &RunOptions::loggp_o, true, "loggp: CPU overhead per message (ns)"},
    {"--g", &RunOptions::loggp_g, true, "loggp: NIC gap between messages (ns)"},
    {"--G", &RunOptions::loggp_G, true, "loggp: NIC gap per byte (ns; a word is 8 bytes)"},
    {"--O", &RunOptions::loggp_O, true, "loggp: CPU overhead per byte (ns)"},
    {"--S", &RunOptions::loggp_S, true, "loggp: largest eager message (bytes); larger ones rendezvous"},
    {"--goal", &RunOptions::goal, false, "time a GOAL schedule FILE under loggp instead of an algorithm (--L .. --S apply)"},
    {"--noise-trace", &RunOptions::noise_trace, false,
     "loggp: OS noise from FILE in LogGOPSim's format (lines `start<TAB>duration` in ns, # comments)"},
    {"--noise", &RunOptions::noise, false,
     "loggp: generated OS noise: periodic:HZ:NS (a detour of NS ns HZ times a second) | random:RATE:NS (RATE a second, mean NS ns)"},
    {"--noise-cosched", &RunOptions::noise_cosched, false, "loggp noise: every processor at the same phase of the trace (co-scheduled)"},
    {"--noise-slowdown", &RunOptions::noise_slowdown, false,
     "loggp noise: on one thread, time the run without noise too, for the slowdown (with more threads it always is)"},
    {"--noise-phases", &RunOptions::noise_phases, true,
     "loggp noise: ppsim (a hash of seed and processor) | loggopsim (LogGOPSim's draws and reader, seeded with --seed)"},
    {"--seed", &RunOptions::seed, true, "seed of the noise's phases, of --noise random and of --stragglers N%", 0},
    {"--stragglers", &RunOptions::stragglers, false,
     "processors that work --straggler-factor slower: a list 3,17,42 or a share 1.5% (chosen by --seed)"},
    {"--straggler-factor", &RunOptions::straggler_factor, true,
     "a straggler's sends (linear: t_s + t_w m) or overheads (loggp: o, O, calc) take this factor longer"},
    {"--fail", &RunOptions::fail, false,
     "failures, comma-separated: proc:P@S (processor P stops at step S) | link:A-B@S (the link between nodes A and B goes down at step "
     "S); the report lists the damage"},
    {"--reroute", &RunOptions::reroute, false, "--fail: messages whose route crosses a failed link take another route where the topology has one"},
    {"--msccl", &RunOptions::msccl, false,
     "run an MSCCL algorithm FILE (msccl-tools XML) with data on the machine, verify and time it"},
    {"--combine", &RunOptions::combine, true, "operator: " + operator_names()},
    {"--input", &RunOptions::input, true,
     "iota | random:SEED (fsum, fsum32: uniform in [-1, 1)) | random:SEED:LO:HI (fsum, fsum32: in [LO, HI))"},
    {"--backend", &RunOptions::backend, true, "cpu | cuda | auto"},
    {"--threads", &RunOptions::threads, true, "CPU threads (0: all)"},
    {"--json", &RunOptions::json, false, "write the JSON report to FILE (- for stdout)"},
    {"--trace", &RunOptions::trace, false, "record buffers and messages after every step (small runs)"},
};

void register_option(Command& command, RunOptions& o, const RunOptionSpec& spec, const std::string& description) {
  std::visit(
      [&](auto field) {
        auto& value = o.*field;
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, bool>) command.flag(spec.name, value, description);
        else if constexpr (std::is_same_v<T, std::string>) command.text(spec.name, value, description, spec.shows_default);
        else if constexpr (std::is_same_v<T, double>) command.real(spec.name, value, description, spec.shows_default);
        else command.integer(spec.name, value, description, spec.shows_default, T(spec.lo));
      },
      spec.field);
}

}  // namespace

void add_run_options(Command& command, RunOptions& o) {
  for (const RunOptionSpec& spec : kRunOptions) register_option(command, o, spec, spec.run_description);
}

void add_timeline_options(Command& command, RunOptions& o) {
  command.text("--timeline", o.timeline,
               "write what each processor did when as Chrome trace-event JSON (Perfetto, chrome://tracing) to FILE (- for stdout)");
  command.integer("--timeline-processors", o.timeline_processors,
                  "processors the timeline and --plot keep (all up to this many; beyond, this many spread from 0 to p - 1)", true, 1);
  command.text("--plot", o.plot, "draw the timeline as a Gantt chart with gnuplot: FILE.svg or FILE.png (small runs)");
}

void add_time_limit_option(Command& command, RunOptions& o) {
  command.real("--time-limit", o.time_limit, "refuse a run that would take longer than this many minutes (a lower bound of its time)", true);
}

void add_run_options(Command& command, RunOptions& o, std::initializer_list<DescribedOption> options) {
  for (const DescribedOption& option : options) {
    auto spec = std::find_if(std::begin(kRunOptions), std::end(kRunOptions),
                             [&](const RunOptionSpec& s) { return std::string(s.name) == option.name; });
    if (spec == std::end(kRunOptions)) throw std::logic_error(std::string(option.name) + " is no option of `run`");
    register_option(command, o, *spec, option.description);
  }
}

void add_loggp_options(Command& command, RunOptions& o) {
  add_run_options(command, o,
                  {{"--model", "linear | loggp (LogGOPSim's clocks, ns)"},
                   {"--L", "loggp: latency (ns)"},
                   {"--o", "loggp: CPU overhead per message (ns)"},
                   {"--g", "loggp: NIC gap between messages (ns)"},
                   {"--G", "loggp: NIC gap per byte (ns)"},
                   {"--O", "loggp: CPU overhead per byte (ns)"},
                   {"--S", "loggp: largest eager message (bytes)"}});
}

std::string verified_text(bool verified, int64_t mismatches) {
  return std::string("verified: ") + (verified ? "yes" : "NO") + " (" + std::to_string(mismatches) +
         " mismatching words against the sequential reference)";
}

int verification_exit_code(bool verified, int64_t mismatches) {
  if (verified) return 0;
  std::cerr << "ppsim: error: the result differs from the sequential reference in " << mismatches << " words\n";
  return 1;
}

}  // namespace ppsim::cli
