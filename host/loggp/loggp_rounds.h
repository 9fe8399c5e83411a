// How the LogGP timing of an algorithm reads its rounds (loggp_run.cpp, loggp_lockstep.cpp): one
// processor's operations of one round, from the algorithm's dispatch (or a test's override).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loggp/loggp.h"
#include "ppsim/buffers.h"
#include "ppsim/config.h"
#include "ppsim/postal.h"
#include "rules/round_ops.h"

namespace ppsim::loggp_rounds {

class RoundReader {
 public:
  explicit RoundReader(const RunConfig& c)
      : c_(c), postal_(c.params), a_(postal_.attached(c.params)), rounds_(c.algorithm->rounds(c.params)) {}
  int rounds() const { return rounds_; }
  const StepOps& read(int64_t proc, int round) {
    if (!rules::read_round_ops(c_.algorithm->id, c_.test_ops_override, a_, proc, round, ops_))
      throw loggp::StuckError("processor " + std::to_string(proc) + ", round " + std::to_string(round) + ": more than " +
                              std::to_string(kMaxOps) + " sends or receives");
    return ops_;
  }

 private:
  const RunConfig& c_;
  const PostalTable postal_;
  const AlgoParams a_;
  const int rounds_;
  StepOps ops_;
};

// The effects on a run's clocks (loggp.h): its noise, with the phases of its processors drawn
// (none with `quiet`: the same run without noise, for the slowdown), and its stragglers.
class RunEffects {
 public:
  explicit RunEffects(const RunConfig& c, bool quiet = false) {
    if (c.noise && !quiet) noise_.emplace(*c.noise, uint32_t(run_processors(c)));
    fx_.noise = noise_ ? &*noise_ : nullptr;
    fx_.stragglers = &c.cost.stragglers;
  }
  RunEffects(const RunEffects&) = delete;
  RunEffects& operator=(const RunEffects&) = delete;
  const loggp::Effects& effects() const { return fx_; }
  void record(loggp::Recorder* r) { fx_.recorder = r; }

 private:
  std::optional<loggp::Noise> noise_;
  loggp::Effects fx_;
};

// The times of a timing that kept every processor's finishing time and detours (empty: no noise):
// the latest finish and the lowest processor that finishes then, the detours summed; nothing
// where a clock wrapped, or detours added up to kTimeLimit (the event engine reports it).
inline std::optional<loggp::Result> finished(std::vector<uint64_t>&& finish, std::vector<uint64_t>&& noise, uint64_t events,
                                             uint64_t messages) {
  loggp::Result res;
  res.events = events;
  res.messages = messages;
  for (uint32_t h = 0; h < uint32_t(finish.size()); ++h) {
    if (finish[h] >= loggp::kTimeLimit) return std::nullopt;
    if (finish[h] > res.time) {
      res.time = finish[h];
      res.last_host = h;
    }
  }
  res.finish = std::move(finish);
  for (uint64_t n : noise) res.noise = loggp::add_capped(res.noise, n);
  if (res.noise >= loggp::kTimeLimit) return std::nullopt;
  res.noise_per_host = std::move(noise);
  return res;
}

inline uint64_t bytes_of(int64_t words) { return uint64_t(words) * uint64_t(kBytesPerWord); }

// An operation's id: its round, whether it is a receive, its index among the round's sends or receives.
constexpr uint32_t op_id(int round, bool recv, int index) { return uint32_t(round) << 6 | uint32_t(recv) << 5 | uint32_t(index); }

// Processor h's operations of rounds first, first+1, ... up to and including the first round with
// receives (or the last round), in the order the algorithm gives them: each round's sends, then its
// receives. Returns the round after them; `nrecv` counts the receives.
template <class Out>
int read_batch(RoundReader& reader, int64_t h, int first, Out&& out, int& nrecv) {
  nrecv = 0;
  int r = first;
  for (; r <= reader.rounds(); ++r) {
    const StepOps& ops = reader.read(h, r);
    for (int k = 0; k < ops.nsend; ++k)
      out(loggp::ReadyOp{bytes_of(ops.send[k].len), uint32_t(ops.send[k].to), uint32_t(r), op_id(r, false, k), 0, 0, loggp::kSend});
    for (int k = 0; k < ops.nrecv; ++k)
      out(loggp::ReadyOp{bytes_of(ops.recv[k].len), uint32_t(ops.recv[k].from), uint32_t(r), op_id(r, true, k), 0, 0, loggp::kRecv});
    if (ops.nrecv > 0) {
      nrecv = ops.nrecv;
      return r + 1;
    }
  }
  return r;
}

}  // namespace ppsim::loggp_rounds
