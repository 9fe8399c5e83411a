// What a run reports: per-step figures, totals, trace, verification outcome and final buffers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ppsim {

struct StepStats {
  int64_t step = 0;
  int64_t messages = 0;
  int64_t words = 0;
  int64_t link_hops = 0;
  int64_t max_link_load = 0;
  double time = 0.0;
  int64_t dropped = 0, rerouted = 0;  // messages lost to failures, and sent around them (--fail)
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

// A processor whose checked words (verify_rules.h's checked buffer) differ from the reference after
// a run with failures: `missing` of them still hold what they held before the run (nothing reached
// them), `wrong` hold something else (a part of what they should).
struct Damage {
  int64_t proc, missing, wrong;
};

// Whether processors hold bit-identical words where the operation says they agree (allreduce,
// allgather, broadcast ...: verify_rules.h's agreeing_with); not_applicable for the others.
enum class Agreement : int8_t { not_applicable, agree, differ };

struct RunResult {
  int64_t steps = 0;
  double time = 0.0;
  int64_t messages = 0, words = 0, link_hops = 0, max_link_load = 0;
  std::vector<StepStats> per_step;
  bool verified = false;
  int64_t mismatches = 0;
  std::vector<Mismatch> first_mismatches;  // up to 10
  // Rounded operators (fsum, fsum32): the largest distance in ulps of a checked word from its
  // exactly rounded reference (capped at INT64_MAX); -1 for the operators checked bit for bit.
  int64_t max_error_ulps = -1;
  // --fail: the messages the failures lost and those they sent another way, and the processors
  // whose checked words are not the reference's, in processor order (verify_buffers).
  int64_t dropped = 0, rerouted = 0;
  std::vector<Damage> damage;
  Agreement results_agree = Agreement::not_applicable;
  double wall_seconds = 0.0;
  std::vector<std::vector<uint64_t>> buffers;  // final contents, [buffer][proc * words + w]
  std::vector<TraceStep> trace;
  std::string backend = "cpu";
  // Where the time comes from the rounds (round_timing.h: --timing dataflow, or a size timed that
  // is not carried): "lockstep" or "dataflow", the lockstep time of the same rounds beside it, and
  // the words timed (RunConfig::timed_m, or the words carried). Empty timing: the backend's steps.
  std::string timing;
  double lockstep_time = 0.0;
  int64_t timed_words = 0;
  // How the steps ran: "pull" (the CPU backend's pull step, host/cpu/pull_run.h) or "records" (the
  // CPU backend's record path, and the device rounds); empty for the LogGP and PRAM models.
  std::string step_path;
  // --model loggp: every processor's finishing time (ns), the lowest processor finishing last (time
  // is its finish), the events LogGP took, the seconds its timing took (part of wall_seconds), and
  // which timing gave them: "rounds" (lockstep, round by round), "windows" (every processor on its
  // own in windows of o + L) or "events" (the event engine).
  std::vector<uint64_t> finish;
  int64_t last_processor = -1;
  uint64_t loggp_events = 0;
  double loggp_seconds = 0.0;
  std::string loggp_timing;
  // --model loggp with OS noise (RunConfig::noise): the time the same clocks give without it, and
  // the detours added to each processor's CPU operations (and their sum). noiseless_timed is false
  // where the noiseless time was not asked for (NoiseSpec::slowdown) and no pass gave it.
  uint64_t noiseless_time = 0;
  bool noiseless_timed = true;
  uint64_t noise_total = 0;
  std::vector<uint64_t> noise_per_processor;
};

// Adds one step's figures to the run's totals (postal model: a step costs 1); both backends call it.
void add_step(RunResult& r, StepStats st, int lambda);
// Adds the cost of an algorithm's local folds (gamma per word the busiest processor combines
// outside messages) to the run's time under the linear model; both backends call it once.
void add_local_folds(RunResult& r, double gamma, int64_t words, int lambda);

}  // namespace ppsim
