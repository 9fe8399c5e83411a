// What a run takes: the configuration (docs/DESIGN.md §2-§3) and the checks made before it starts.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ppsim/algorithm.h"
#include "ppsim/cost.h"
#include "ppsim/errors.h"
#include "ppsim/failures.h"
#include "ppsim/mapping.h"
#include "ppsim/noise.h"
#include "ppsim/operators.h"
#include "ppsim/partition.h"
#include "ppsim/ports.h"
#include "ppsim/schedule.h"
#include "ppsim/topology.h"

namespace ppsim {

enum class Backend : int8_t { cpu, cuda, automatic };

// How the CPU backend runs a step: the pull step wherever it applies (host/cpu/pull_run.h), or
// the record path (every message posted as a record, its payload copied, matched, then delivered)
// for every step. Both give the same figures and buffers, bit for bit.
enum class StepPath : int8_t { automatic, records };

inline constexpr int kMaxThreads = 1024;  // CPU threads of one run, and points of a sweep at once

// Sizes in bytes, bandwidths in GB/s (10^9 B/s) and times in microseconds (--preset, --size,
// --bw, --lat and their class forms; ppsim/preset.h): the run's time unit is then the µs, and a
// word stands for `word_bytes` bytes of the element type (nccl-tests' --datatype). The words carried
// are the run's 64-bit words as ever; only the costs and the report read these.
struct PhysicalUnits {
  bool on = false;
  int64_t word_bytes = 4;
  std::string type = "float";
  std::string preset;  // the preset the machine was written with, if any
  int64_t nodes = 0;   // its nodes
};

// A bandwidth in words per µs as GB/s (PhysicalUnits on).
inline double gbps_of(const PhysicalUnits& u, double words_per_us) { return words_per_us * double(u.word_bytes) / 1e3; }

// How the step model's message costs make a run's time (ppsim/round_timing.h): lockstep, each
// step as long as its slowest message; dataflow, each processor going on when its data is there.
enum class StepTiming : int8_t { lockstep, dataflow };

struct RunConfig {
  PhysicalUnits units;
  StepTiming timing = StepTiming::lockstep;
  // The words the run is timed at where it carries fewer (0: the words it carries, params.m): the
  // rounds of that size are timed on the host (round_timing.h) while the data moved and verified
  // is that of params.m, with the same segment and channel counts.
  int64_t timed_m = 0;
  // Why the data is carried smaller (timed_m > 0): given by --carry, or chosen for a size too large.
  std::string carried_because;
  // What NCCL's tuner picked where --algo nccl chose the algorithm, protocol and channels (else empty).
  std::string nccl_choice;
  Topology topology;  // the topology the algorithm is written for (logical)
  // When `mapped`, logical processor i runs on node map_node(mapping, i) of mapping.physical and
  // messages follow the physical routes (textbook §2.7). Otherwise the logical topology is the machine.
  bool mapped = false;
  Mapping mapping;
  const AlgorithmInfo* algorithm = nullptr;
  AlgoParams params;  // p, m, root, mesh extents, lambda, kports
  OperatorKind combine = OperatorKind::sum;
  InputSpec input;
  PortSpec ports;
  CostParams cost;
  // Processors and links that fail at a step (--fail, --reroute; ppsim/failures.h): the step model
  // drops or reroutes their messages, and verification reports the damage (RunResult::damage).
  Failures failures;
  // OS noise on the LogGP clocks (--noise-trace, --noise; ppsim/noise.h); null: none.
  std::shared_ptr<const NoiseSpec> noise;
  // NCCL's protocol (--protocol; protocol.h sets it with apply_protocol) and its base latency, which
  // the run adds to the time of its steps once.
  int8_t protocol = 0;  // a Protocol
  int8_t nccl_version = 0;  // a NcclVersion: whose tuning model --protocol follows
  double base_latency = 0;
  int threads = 0;     // 0: all the machine has
  bool trace = false;  // keep buffers and messages after every step (small runs only)
  StepPath step_path = StepPath::automatic;
  bool verify = true;
  // false: RunResult::buffers comes back empty unless verification fails (sweeps and benchmarks
  // need only the figures); the CUDA backend then verifies on the device instead of copying back.
  bool keep_buffers = true;
  // The ranks this run is split across (docs/DESIGN.md §8, "Past one process"; the command line
  // sets it under mpirun): each simulates its block of processors (partition.h). Null: one process.
  Collectives* ranks = nullptr;
  // Tests only: replaces the algorithm's per-round ops (CPU backend), to show that broken
  // schedules are caught. Step counts, formulas and references still come from `algorithm`.
  void (*test_ops_override)(const AlgoParams&, int64_t proc, int round, StepOps&) = nullptr;
};

// The configuration a report describes: the size timed (timed_m), where the data was carried at a
// smaller one (its buffers, checks and trace are the carried configuration's).
inline RunConfig timed_config(const RunConfig& c) {
  RunConfig t = c;
  if (c.timed_m > 0) {
    t.params.m = c.timed_m;
    t.timed_m = 0;
  }
  return t;
}

// The machine the messages travel on, and where logical processor i sits on it.
inline const Topology& physical_topology(const RunConfig& c) { return c.mapped ? c.mapping.physical : c.topology; }

// Checks the configuration (algorithm applicability, ports, lambda; with host_memory, what the CPU
// backend would hold against the host's available memory). Throws ConfigError. The CUDA backend
// checks device memory itself and host memory only for the buffers it brings back.
void validate_config(const RunConfig& c, bool host_memory = true);
// The host's available memory less a tenth: what the runs of one process may hold at once.
uint64_t usable_memory_bytes();
// Throws ConfigError when `bytes` exceed usable_memory_bytes(); `what` says what they are for
// (may be empty).
void require_host_memory(uint64_t bytes, const std::string& what);
// The size every run is held to before anything is allocated (a run of an algorithm, an MSCCL
// program): at most 2^40 words in all its buffers, whose processors and words `sizes` names for
// the message ("4 processors x 1024 words"). Throws ConfigError. The memory those words take is
// then checked by require_host_memory.
void require_simulable_words(double words, const std::string& sizes);
// Steps whose messages can be in flight at once: lambda for a postal-native algorithm (it sends in
// every step), 1 for a round-based one (a round every lambda steps; it arrives before the next).
int run_store_count(const RunConfig& c);
// A memory size as the refusals of too large runs write it: "1.50 GiB".
std::string gib_text(uint64_t bytes);
// Bytes the CPU backend will hold for this configuration (estimate used by the memory check).
uint64_t estimate_run_bytes(const RunConfig& c);
// Seconds the CPU backend takes at least for this configuration on one thread: the sweeps and
// rankings refuse work that could not end in the time allowed before they start (run_config.cpp
// says how it is reckoned and how far below the real time it lies).
double estimate_run_seconds(const RunConfig& c);

}  // namespace ppsim
