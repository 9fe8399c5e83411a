// LogGP timing of a registered algorithm (loggp_run.h).
#include "loggp/loggp_run.h"

#include <string>
#include <utility>
#include <vector>

#include "loggp/loggp_rounds.h"
#include "ppsim/buffers.h"

namespace ppsim {

namespace {

using loggp_rounds::bytes_of;
using loggp_rounds::RoundReader;

class AlgorithmSource {
 public:
  explicit AlgorithmSource(const RunConfig& c) : reader_(c), p_(uint32_t(run_processors(c))), next_round_(p_, 1), outstanding_(p_, 0) {}
  uint32_t hosts() const { return p_; }
  int cpus() const { return 1; }
  int nics() const { return 1; }
  void roots(uint32_t h, std::vector<loggp::ReadyOp>& out) { release(h, out); }
  void started(uint32_t, uint32_t, std::vector<loggp::ReadyOp>&) {}
  void done(uint32_t h, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    if ((op >> 5 & 1u) && --outstanding_[h] == 0) release(h, out);
  }
  std::string name(uint32_t h, uint32_t op) const {
    return std::string(op >> 5 & 1u ? "receive " : "send ") + std::to_string(op & 31u) + " of round " + std::to_string(op >> 6) +
           " of processor " + std::to_string(h);
  }
  std::string never_ready() const {
    for (uint32_t h = 0; h < p_; ++h)
      if (next_round_[h] <= reader_.rounds())
        return "processor " + std::to_string(h) + ": round " + std::to_string(next_round_[h]) +
               " never starts (a receive of an earlier round never completes)";
    return {};
  }

 private:
  // The rounds up to and including the next one with receives.
  void release(uint32_t h, std::vector<loggp::ReadyOp>& out) {
    int nrecv = 0;
    next_round_[h] = loggp_rounds::read_batch(reader_, h, next_round_[h], [&](const loggp::ReadyOp& r) { out.push_back(r); }, nrecv);
    if (nrecv > 0) outstanding_[h] = nrecv;
  }

  RoundReader reader_;
  uint32_t p_;
  std::vector<int32_t> next_round_;   // the first round not yet released
  std::vector<int32_t> outstanding_;  // receives of the released rounds not yet complete
};

}  // namespace

loggp::Result loggp_run(const RunConfig& c, bool events_only, bool* lockstep, int threads, bool* windows) {
  if (lockstep) *lockstep = false;
  if (windows) *windows = false;
  if (!events_only)
    if (std::optional<loggp::Result> r = loggp_lockstep(c, threads)) {
      if (lockstep) *lockstep = true;
      return std::move(*r);
    }
  return loggp_run_past_lockstep(c, events_only, threads, windows);
}

loggp::Result loggp_run_past_lockstep(const RunConfig& c, bool events_only, int threads, bool* windows) {
  if (windows) *windows = false;
  if (!events_only)
    if (std::optional<loggp::Result> r = loggp_windows(c, threads)) {
      if (windows) *windows = true;
      return std::move(*r);
    }
  AlgorithmSource src(c);
  const loggp_rounds::RunEffects effects(c);
  loggp::Result r = loggp::simulate(src, c.cost.loggp, effects.effects());
  if (!r.unfinished.empty()) throw loggp::StuckError(r.unfinished);
  return r;
}

loggp::Result loggp_run_recorded(const RunConfig& c, loggp::Recorder& recorder) {
  AlgorithmSource src(c);
  loggp_rounds::RunEffects effects(c);
  effects.record(&recorder);
  loggp::Result r = loggp::simulate(src, c.cost.loggp, effects.effects());
  if (!r.unfinished.empty()) throw loggp::StuckError(r.unfinished);
  return r;
}

}  // namespace ppsim
