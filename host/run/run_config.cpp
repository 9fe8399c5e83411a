// Checking a configuration before it runs: applicability, port model, latency, sizes, memory.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "loggp/loggp.h"
#include "ppsim/engine.h"
#include "ppsim/round_timing.h"
#include "machine/topologies/routing.h"

namespace ppsim {

inline constexpr double kMaxSimulatedWords = double(uint64_t{1} << 40);  // in all the run's buffers

std::string gib_text(uint64_t bytes) {
  std::ostringstream o;
  o.precision(2);
  o << std::fixed << double(bytes) / double(uint64_t{1} << 30) << " GiB";
  return o.str();
}

namespace {
// MemAvailable of /proc/meminfo, or PPSIM_MEMORY_BYTES where that is set and smaller: a run, or
// the points of a sweep together, may be held to less than the machine has.
uint64_t available_memory_bytes() {
  uint64_t have = uint64_t{1} << 40;  // unknown: do not refuse
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") {
      have = kb * 1024;
      break;
    }
  if (const char* limit = std::getenv("PPSIM_MEMORY_BYTES")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(limit, &end, 10);
    if (end != limit && *end == '\0' && v < have) have = v;
  }
  return have;
}
}  // namespace

int run_store_count(const RunConfig& c) { return c.algorithm->postal_native() ? std::max(1, c.params.lambda) : 1; }

uint64_t estimate_run_bytes(const RunConfig& c) {
  const int64_t p = c.params.p;
  const uint64_t buffers = run_total_words(c) * 8;
  uint64_t per_store = uint64_t(p) * (2 * 8 + 2 * 4 + 48 + 80) + buffers;  // index arrays, one send/recv each, payloads
  const Topology& machine = physical_topology(c);
  uint64_t links = direct_links(machine) ? 0 : uint64_t(link_space(machine)) * 8;
  return buffers + uint64_t(run_store_count(c)) * per_store + links;
}

uint64_t usable_memory_bytes() {
  const uint64_t have = available_memory_bytes();
  return have - have / 10;
}

// A lower bound, so that nothing that could end soon is refused: every processor-round costs the
// CPU backend at least 4 ns (an idle processor's step function and bookkeeping) and every word of
// the run's buffers at least 3 ns (made, filled, sent, delivered and verified). Measured on one
// core of the project's machine, every algorithm that runs at p = 2^12, m = 1 (where rounds weigh
// most) and p = 2^10, m = 256 (where words do): the least was 5 ns per processor-round (scan_ring)
// and 3.4 ns per word (shift_mesh); runs took 1.1 to about 500 times this bound (all-to-all and
// allgather the most, whose messages grow past m); the LogGP clocks add at least as much again.
double estimate_run_seconds(const RunConfig& c) {
  const double rounds = double(c.algorithm->rounds(c.params)), p = double(c.params.p);
  const double data = rounds * p * 4e-9 + double(run_total_words(c)) * 3e-9;
  return c.cost.model == CostModel::loggp ? 2 * data : data;
}

void require_simulable_words(double words, const std::string& sizes) {
  if (!(words <= kMaxSimulatedWords)) throw ConfigError("p * words per processor is too large to simulate (" + sizes + ")");
}

void require_host_memory(uint64_t need, const std::string& what) {
  const uint64_t have = available_memory_bytes();
  if (need > have - have / 10)
    throw ConfigError("this run needs about " + gib_text(need) + " of memory" + (what.empty() ? "" : " (" + what + ")") + " but only " +
                      gib_text(have) + " is available");
}

namespace {
// A time from the rounds (--timing dataflow, or a size timed but carried smaller): the run must
// have rounds to time, and the algorithm must take the size timed.
void check_round_timing(const RunConfig& c) {
  if (c.timing != StepTiming::dataflow && c.timed_m <= 0) return;
  if (const std::string no = dataflow_refusal(c); !no.empty()) throw ConfigError(no);
  if (c.timed_m <= 0) return;
  AlgoParams timed = c.params;
  timed.m = c.timed_m;
  if (const std::string at = algorithm_rejects(*c.algorithm, c.topology, timed, c.combine); !at.empty())
    throw ConfigError("timed at " + std::to_string(c.timed_m) + " words: " + at);
}
}  // namespace

void validate_config(const RunConfig& c, bool host_memory) {
  if (!c.algorithm) throw ConfigError("no algorithm chosen");
  const AlgoParams& a = c.params;
  if (a.p != c.topology.p) throw ConfigError("internal: params.p differs from the topology's p");
  if (a.m < 1) throw ConfigError("--m must be at least 1 (got " + std::to_string(a.m) + ")");
  if (a.lambda < 1) throw ConfigError("--lambda must be at least 1 (got " + std::to_string(a.lambda) + ")");
  if (a.lambda > 1024) throw ConfigError("--lambda must be at most 1024 (got " + std::to_string(a.lambda) + ")");
  if (c.failures.any() && c.ranks && c.ranks->size() > 1) throw ConfigError("--fail runs in one process: run it without mpirun");
  if (c.failures.any() && c.cost.model != CostModel::linear) throw ConfigError("--fail applies to the step model (--model linear)");
  // Every run holds at least p*m words, a scan at least n*m: refuse sizes past the limit before any
  // buffer size is multiplied out below (so none of those products can overflow).
  const int64_t elements = c.algorithm->op == Operation::scan ? std::max(a.p, scan_elements(a)) : a.p;
  require_simulable_words(double(elements) * double(a.m), std::to_string(a.p) + " processors" +
                                                              (elements > a.p ? ", " + std::to_string(elements) + " elements" : std::string()) +
                                                              " x " + std::to_string(a.m) + " words");
  if (c.threads < 0 || c.threads > kMaxThreads)
    throw ConfigError("threads must be between 0 (all cores) and " + std::to_string(kMaxThreads) + " (got " + std::to_string(c.threads) +
                      ")");
  if (a.kports < 1) throw ConfigError("internal: params.kports must be at least 1 (got " + std::to_string(a.kports) + ")");
  if (a.root < 0 || a.root >= a.p)
    throw ConfigError("--root " + std::to_string(a.root) + " is not a processor (0.." + std::to_string(a.p - 1) + ")");
  if (c.cost.ts < 0 || c.cost.tw < 0 || c.cost.th < 0 || c.cost.gamma < 0)
    throw ConfigError("--ts, --tw, --th and --gamma must not be negative");
  const Topology& machine = physical_topology(c);
  for (int k = 0; k < kMaxLinkClasses; ++k) {
    if (!((c.cost.tw_class_set >> k) & 1u)) continue;
    if (k >= topology_link_class_count(machine))
      throw ConfigError("a per-word time is set for link class " + std::to_string(k) + ", which " + topology_shape(machine) + " lacks");
    if (!(c.cost.tw_class[k] >= 0) || !std::isfinite(c.cost.tw_class[k]))
      throw ConfigError("--tw-class " + topology_link_class_name(machine, k) + " must be finite and not negative");
  }
  if (c.cost.model == CostModel::loggp) {
    // LogGP has its own latency, overheads and gaps: the linear model's refinements do not apply.
    if (a.lambda != 1) throw ConfigError("--lambda is the postal model's latency; under --model loggp the latency is --L");
    if (c.cost.gamma != 0 || c.cost.th != 0 || c.cost.tw_class_set != 0 || c.cost.routing != Routing::cut_through)
      throw ConfigError("--gamma, --th, --tw-class and --routing belong to --model linear, not loggp");
    const LogGPParams& g = c.cost.loggp;
    if (g.L > loggp::kMaxParam || g.o > loggp::kMaxParam || g.g > loggp::kMaxParam || g.S > loggp::kMaxParam)
      throw ConfigError("--L, --o, --g and --S must be at most 2^40");
    if (g.G > loggp::kMaxPerByte || g.O > loggp::kMaxPerByte) throw ConfigError("--G and --O must be at most 2^20 (ns per byte)");
    if (uint64_t(a.m) * uint64_t(kBytesPerWord) > loggp::kMaxSize)
      throw ConfigError("--m is too large for --model loggp (at most 2^37 words)");
    if (a.p > (int64_t(1) << 31)) throw ConfigError("--model loggp takes at most 2^31 processors");
  }
  std::string why = algorithm_rejects(*c.algorithm, c.topology, a, c.combine);
  if (!why.empty()) throw ConfigError(why);
  check_round_timing(c);
  if (c.mapped) {
    if (c.mapping.logical.p != c.topology.p || c.mapping.logical.kind != c.topology.kind)
      throw ConfigError("internal: the mapping's logical topology differs from the run's");
    std::string bad = mapping_rejects(c.mapping);
    if (!bad.empty()) throw ConfigError(bad);
  }
  if (c.algorithm->switch_agents()) {
    if (c.mapped)
      throw ConfigError(std::string(c.algorithm->name) + " works in the machine's own switches: it runs on the machine itself, not mapped (--map, --logical)");
  }
  for (int b = 0; b < run_buffer_count(c); ++b) {
    const int64_t words = run_buffer_words(c, b);
    require_simulable_words(double(words) * double(run_processors(c)), std::to_string(a.p) + " processors x " + std::to_string(words) + " words");
  }
  if (c.trace) {
    const uint64_t words = run_total_words(c);
    uint64_t steps = uint64_t(c.algorithm->rounds(a)) * uint64_t(a.lambda);
    if (a.p > 1024 || words * (steps + 1) > 20'000'000)
      throw ConfigError("--trace keeps every buffer after every step; it is limited to p <= 1024 and 2e7 words in all (this run: p = " +
                        std::to_string(a.p) + ", " + std::to_string(words) + " words x " + std::to_string(steps) + " steps)");
  }
  if (host_memory && c.ranks && c.ranks->size() > 1) {  // every rank a share; the ranks of this machine together
    const uint64_t share = estimate_run_bytes(c) / uint64_t(c.ranks->size()) + 1;
    require_host_memory(share * uint64_t(c.ranks->local_size()),
                        std::to_string(c.ranks->local_size()) + " ranks on this machine, " + gib_text(share) + " each");
  } else if (host_memory) {
    require_host_memory(estimate_run_bytes(c), "");
  }
}

}  // namespace ppsim
