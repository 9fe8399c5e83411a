// Running one configuration: what a run takes (RunConfig) and what it reports (RunResult).
// Semantics are DESIGN.md §2-§3: synchronous steps, sends read the start-of-step state, receives
// apply at the end of their arrival step, postal latency lambda, port models, linear costs with
// per-step congestion.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cost.h"
#include "ppsim/mapping.h"
#include "ppsim/operators.h"
#include "ppsim/schedule.h"
#include "ppsim/topology.h"

namespace ppsim {

enum class PortModel : int8_t { single, half_duplex, telephone, kport, all };

struct PortSpec {
  PortModel model = PortModel::single;
  int32_t k = 1;  // kport only
};
std::string port_spec_name(const PortSpec& s);      // "single", "half-duplex", "telephone", "all", "3"
bool parse_port_spec(const std::string& text, PortSpec& out);
std::string port_spec_names(const char* separator);  // the named specs: "single", ..., "all"
const char* port_model_name(PortModel m);            // in messages: "single-port", ..., "k-port", "all-port"

enum class Backend : int8_t { cpu, cuda, automatic };

inline constexpr int kMaxThreads = 1024;  // CPU threads of one run, and points of a sweep at once

struct RunConfig {
  Topology topology;           // the topology the algorithm is written for (logical)
  // When `mapped`, logical processor i runs on node map_node(mapping, i) of mapping.physical and
  // messages follow the physical routes (textbook §2.7). Otherwise the logical topology is the machine.
  bool mapped = false;
  Mapping mapping;
  const AlgorithmInfo* algorithm = nullptr;
  AlgoParams params;           // p, m, root, mesh extents, lambda, kports
  OperatorKind combine = OperatorKind::sum;
  InputSpec input;
  PortSpec ports;
  CostParams cost;
  int threads = 0;             // 0: all the machine has
  bool trace = false;          // keep buffers and messages after every step (small runs only)
  bool verify = true;
  // false: RunResult::buffers comes back empty unless verification fails (sweeps and benchmarks
  // need only the figures); the CUDA backend then verifies on the device instead of copying back.
  bool keep_buffers = true;
  // Tests only: replaces the algorithm's per-round ops (CPU backend), to show that broken
  // schedules are caught. Step counts, formulas and references still come from `algorithm`.
  void (*test_ops_override)(const AlgoParams&, int64_t proc, int round, StepOps&) = nullptr;
};

struct StepStats {
  int64_t step = 0;
  int64_t messages = 0;
  int64_t words = 0;
  int64_t link_hops = 0;
  int64_t max_link_load = 0;
  double time = 0.0;
};

struct TraceMessage {
  int64_t from, to, words, src_off;
  int32_t buf;
  int64_t sent, arrives;  // steps
};

struct TraceStep {
  int64_t step = 0;
  std::vector<std::vector<uint64_t>> buffers;  // [buffer][proc * words + w] after the step
  std::vector<TraceMessage> messages;          // sent in this step
};

struct Mismatch {
  int32_t buf;
  int64_t proc, word;
  uint64_t expected, got;
};

struct RunResult {
  int64_t steps = 0;
  double time = 0.0;
  int64_t messages = 0, words = 0, link_hops = 0, max_link_load = 0;
  std::vector<StepStats> per_step;
  bool verified = false;
  int64_t mismatches = 0;
  std::vector<Mismatch> first_mismatches;  // up to 10
  double wall_seconds = 0.0;
  std::vector<std::vector<uint64_t>> buffers;  // final contents, [buffer][proc * words + w]
  std::vector<TraceStep> trace;
  std::string backend = "cpu";
};

// A violated schedule or port rule: names the step and the processors involved.
class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A configuration that cannot run (memory, sizes, trace limits...).
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The machine the messages travel on, and where logical processor i sits on it.
inline const Topology& physical_topology(const RunConfig& c) { return c.mapped ? c.mapping.physical : c.topology; }

// Checks the configuration (algorithm applicability, ports, lambda; with host_memory, what the CPU
// backend would hold against the host's available memory). Throws ConfigError. The CUDA backend
// checks device memory itself and host memory only for the buffers it brings back.
void validate_config(const RunConfig& c, bool host_memory = true);
// Throws ConfigError when `bytes` exceed the host's available memory less a tenth; `what` says
// what they are for (may be empty).
void require_host_memory(uint64_t bytes, const std::string& what);
// Steps whose messages can be in flight at once: lambda for a postal-native algorithm (it sends in
// every step), 1 for a round-based one (a round every lambda steps; it arrives before the next).
int run_store_count(const RunConfig& c);
// Bytes the CPU backend will hold for this configuration (estimate used by the memory check).
uint64_t estimate_run_bytes(const RunConfig& c);

RunResult run_cpu(const RunConfig& c);

// Shared by the backends: adds one step's figures to the run's totals (postal model: a step costs 1),
// and fills in the verification against the reference.
void add_step(RunResult& r, StepStats st, int lambda);
void finish_verification(const RunConfig& c, RunResult& r);

// Compares final buffers with the sequential reference of the operation (DESIGN.md §6).
struct Verification {
  int64_t mismatches = 0;
  std::vector<Mismatch> first;
};
Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& buffers);

// Buffer names of an operation, for reports (the buffer after the operation's is "scratch").
const char* buffer_name(Operation op, int32_t b);
// Buffers of a run: the operation's, then the algorithm's scratch buffer if it has one.
int run_buffer_count(const RunConfig& c);
int64_t run_buffer_words(const RunConfig& c, int32_t b);
// Words in all the run's buffers on all processors.
uint64_t run_total_words(const RunConfig& c);

}  // namespace ppsim
