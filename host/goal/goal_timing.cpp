// The LogGP timing of a parsed GOAL schedule (goal.h): window by window where the window timing
// applies (goal_windows.h), else the engine of loggp.h fed from the schedule's dependency lists;
// both give the same times.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_windows.h"

namespace ppsim::goal {

namespace {

// The engine's view of a parsed schedule: dependency counters, and which operations ran.
class ScheduleSource {
 public:
  explicit ScheduleSource(const Schedule& s) : s_(s), waiting_(s.ops.size(), 0), state_(s.ops.size(), 0) {
    for (uint32_t j : s.done_col) ++waiting_[j];
    for (uint32_t j : s.start_col) ++waiting_[j];
  }
  uint32_t hosts() const { return s_.ranks; }
  int cpus() const { return s_.cpus; }
  int nics() const { return s_.nics; }
  void roots(uint32_t h, std::vector<loggp::ReadyOp>& out) {
    for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i)
      if (waiting_[i] == 0 && state_[i] == 0) push(i, out);  // (not one released since)
  }
  void started(uint32_t, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    state_[op] = std::max<uint8_t>(state_[op], 2);
    release(s_.start_row, s_.start_col, op, out);
  }
  void done(uint32_t, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    state_[op] = 3;
    release(s_.done_row, s_.done_col, op, out);
  }
  std::string name(uint32_t, uint32_t op) const {
    if (s_.binary) return "number " + std::to_string(s_.ops[op].line) + " of its rank (a binary schedule has no labels)";
    std::string l = s_.label(op);
    return (l.empty() ? std::string("(no label)") : l) + " (line " + std::to_string(s_.ops[op].line) + ")";
  }
  std::string never_ready() const {
    for (uint32_t h = 0; h < s_.ranks; ++h)
      for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i) {
        if (state_[i] != 0) continue;
        // Something it waits for never finished (or never started).
        std::string why;
        for (size_t j = 0; j < s_.ops.size() && why.empty(); ++j) {
          for (uint32_t k = s_.done_row.empty() ? 0 : s_.done_row[j]; !s_.done_row.empty() && k < s_.done_row[j + 1]; ++k)
            if (s_.done_col[k] == i && state_[j] != 3) why = ": it requires " + name(h, uint32_t(j)) + ", which never finishes";
          for (uint32_t k = s_.start_row.empty() ? 0 : s_.start_row[j]; !s_.start_row.empty() && k < s_.start_row[j + 1] && why.empty();
               ++k)
            if (s_.start_col[k] == i && state_[j] < 2) why = ": it irequires " + name(h, uint32_t(j)) + ", which never starts";
        }
        return "rank " + std::to_string(h) + ": operation " + name(h, i) + " never runs" + why +
               " (a dependency cycle, or a send that is never completed)";
      }
    return {};
  }

 private:
  void push(uint32_t i, std::vector<loggp::ReadyOp>& out) {
    const Op& o = s_.ops[i];
    state_[i] = 1;
    out.push_back(loggp::ReadyOp{o.size(), o.peer, o.tag, i, o.cpu, o.nic, o.type});
  }
  void release(const std::vector<uint32_t>& row, const std::vector<uint32_t>& col, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    if (row.empty()) return;
    for (uint32_t k = row[op]; k < row[op + 1]; ++k) {
      uint32_t j = col[k];
      if (--waiting_[j] == 0) push(j, out);
    }
  }

  const Schedule& s_;
  std::vector<uint32_t> waiting_;
  std::vector<uint8_t> state_;  // 0 waiting, 1 ready, 2 started, 3 done
};

}  // namespace

loggp::Result simulate(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx) {
  if (std::optional<loggp::Result> r = detail::WindowTiming(s, P, fx).run()) return std::move(*r);
  return simulate_events(s, P, fx);
}

loggp::Result simulate_events(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx) {
  ScheduleSource src(s);
  return loggp::simulate(src, P, fx);
}

}  // namespace ppsim::goal
