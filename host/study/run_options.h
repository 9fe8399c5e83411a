// A run's options as the command line and the Python module give them (text and numbers, before
// any check), and turning them into a RunConfig with every check a run needs: the machine and its
// models, the operation's parameters, the algorithm, noise, stragglers and failures. Each option
// is read by one rule here, whoever asked (run, sweep, best, draw, view, the Python module).
#pragma once
#include <memory>
#include <string>

#include "ppsim/engine.h"
#include "study/usage.h"

namespace ppsim::study {

// --input: "iota", "random:SEED", or for the rounded operators "random:SEED:LO:HI"
InputSpec parse_input(const std::string& text, OperatorKind k);

// Single options read the same way by every subcommand: a name that is unknown is a UsageError.
Operation parse_op_option(const std::string& text);                               // --op
OperatorKind parse_combine_option(const std::string& text);                       // --combine
PortSpec parse_ports_option(const std::string& text);                             // --ports
// --topology, --logical: the kind named, resolved once (every later question about it is a field).
const TopologyType& parse_topology_option(const std::string& text, const char* option);
// "--algo ALGO performs PERFORMS, not WANTED": the algorithm given is for another operation.
std::string wrong_operation(const std::string& algo, Operation performs, const std::string& wanted);
// Neither --p nor --dims was given.
inline constexpr const char* kNeedProcessors = "give --p (or --dims for mesh, torus, fattree and dragonfly)";

struct RunOptions {
  std::string machine = "network", logical, logical_dims, map = "identity";
  std::string topology = "hypercube", p, dims, op = "allreduce", algo, m = "1", ports = "single", routing = "cut-through", combine = "sum",
              input = "iota", backend = "auto", json, tw_class, model = "linear", goal, protocol, msccl, inter;
  int64_t root = 0, n = 0, shift = 1, group_stride = 1, group_size = 0, sources = 1, radix = 2, segments = 1, channels = 1;
  bool exclusive = false;
  int lambda = 1, threads = 0;
  double ts = 1.0, tw = 1.0, th = 0.0, gamma = 0.0;
  // Machines in the units people use (ppsim/preset.h, PhysicalUnits): a preset and its nodes, m in
  // bytes, the element type, bandwidths in GB/s and latencies in µs (empty: not given).
  std::string preset, size, type, bw, bw_class, lat, lat_class;
  int64_t nodes = 0;
  // How the step model's costs make the time (lockstep | dataflow; ppsim/round_timing.h), and the
  // size the data is carried at where the size timed is larger (words, or bytes with the units;
  // empty: the size timed, or a smaller one chosen where that is too large to carry).
  std::string timing = "lockstep", carry;
  // Whose tuning model --protocol follows (ppsim/protocol.h: 2.20.3 or 2.8.3).
  std::string nccl_version = "2.20.3";
  // --model loggp: LogGOPSim's parameters and defaults (ns, bytes)
  int64_t loggp_L = 2500, loggp_o = 1500, loggp_g = 1000, loggp_G = 6, loggp_O = 0, loggp_S = 65535;
  bool trace = false;
  // OS noise (--model loggp; ppsim/noise.h), stragglers (ppsim/stragglers.h), and the seed of both
  std::string noise_trace, noise, noise_phases = "ppsim", stragglers;
  bool noise_cosched = false;
  bool noise_slowdown = false;  // time the noiseless run on one thread too (NoiseSpec::slowdown)
  // Failures (ppsim/failures.h): proc:P@S and link:A-B@S, comma-separated, and --reroute
  std::string fail;
  bool reroute = false;
  int64_t seed = 1;
  double straggler_factor = 2.0;
  // `run` only (add_timeline_options): the timeline and its Gantt chart
  std::string timeline, plot;
  int64_t timeline_processors = 64;
  // `run` only (add_time_limit_option): minutes a run's least time may take
  double time_limit = 60;
};

// Checks a network run's least time on `ranks` ranks against o.time_limit before the run starts,
// as sweep and best check theirs (check_estimated_time: refused past the limit, a note on stderr
// past a minute unless `quiet`). Throws UsageError.
void check_run_time(const RunOptions& o, const RunConfig& c, int ranks, bool quiet);

// --L --o --g --G --O --S, checked. Throws UsageError.
LogGPParams loggp_params(const RunOptions& o);

// --noise-trace or --noise with --noise-cosched, --noise-phases and --seed: the noise of a run
// whose clocks are `cost` (null when none is asked for). Throws UsageError.
std::shared_ptr<const NoiseSpec> read_noise_options(const RunOptions& o, const CostParams& cost);
// `run`'s rule for the noiseless timing (NoiseSpec::slowdown): on one thread (--threads 1, or a
// machine of one core) only with --noise-slowdown. Sweeps and studies keep it.
void apply_slowdown_option(const RunOptions& o, std::shared_ptr<const NoiseSpec>& noise);
// --stragglers with --straggler-factor and --seed, for p processors. Throws UsageError.
Stragglers read_straggler_options(const RunOptions& o, int64_t p);

// --fail and --reroute for configuration c (its topology, algorithm and steps known). Throws UsageError.
Failures read_failure_options(const RunOptions& o, const RunConfig& c);

// Builds and checks a network configuration (not --machine pram-*). Throws UsageError.
RunConfig build_config(const RunOptions& o, Backend& backend);

// The machine, operator, input and cost model of a run for `op`, as build_config makes them, but
// without an algorithm (run --msccl: the program comes from a file). Throws UsageError.
RunConfig build_machine_config(const RunOptions& o, Operation op, Backend& backend);

}  // namespace ppsim::study
