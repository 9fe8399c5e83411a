// The LogGP timing of a parsed GOAL schedule (goal.h): window by window where the window timing
// applies (goal_windows.h), else the engine of loggp.h fed from the schedule's dependency lists;
// both give the same times.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_waits.h"
#include "goal/goal_windows.h"

namespace ppsim::goal {

namespace {

// The engine's view of a parsed schedule: dependency counters, and which operations ran.
class ScheduleSource {
 public:
  explicit ScheduleSource(const Schedule& s) : s_(s), waits_(s) {}
  uint32_t hosts() const { return s_.ranks; }
  int cpus() const { return s_.cpus; }
  int nics() const { return s_.nics; }
  void roots(uint32_t h, std::vector<loggp::ReadyOp>& out) {
    for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i)
      if (waits_.ready(i) && waits_.state(i) == 0) push(i, out);  // (not one released since)
  }
  void started(uint32_t h, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    waits_.set_state(op, std::max<uint8_t>(waits_.state(op), 2));
    release(s_.start, h, op, out);
  }
  void done(uint32_t h, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    waits_.set_state(op, 3);
    release(s_.done, h, op, out);
  }
  std::pair<uint32_t, uint32_t> receive_of(uint32_t, uint32_t op) const { return s_.peer_tag(op); }
  uint32_t first_op(uint32_t h) const { return s_.first[h]; }
  uint32_t receives(uint32_t h) const {
    uint32_t n = 0;
    for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i) n += s_.type(i) == loggp::kRecv;
    return n;
  }
  std::string name(uint32_t, uint32_t op) const {
    if (s_.binary) return "number " + std::to_string(s_.line(op)) + " of its rank (a binary schedule has no labels)";
    std::string l = s_.label(op);
    return (l.empty() ? std::string("(no label)") : l) + " (line " + std::to_string(s_.line(op)) + ")";
  }
  std::string never_ready() const {
    for (uint32_t h = 0; h < s_.ranks; ++h)
      for (uint32_t i = s_.first[h]; i < s_.first[h + 1]; ++i) {
        if (waits_.state(i) != 0) continue;
        // Something it waits for never finished (or never started).
        std::string why;
        for (uint32_t g = 0; g < s_.ranks && why.empty(); ++g)
          for (uint32_t j = s_.first[g]; j < s_.first[g + 1] && why.empty(); ++j) {
            s_.done.each(s_.first, g, j, [&](uint32_t k) {
              if (k == i && waits_.state(j) != 3 && why.empty()) why = ": it requires " + name(h, j) + ", which never finishes";
            });
            s_.start.each(s_.first, g, j, [&](uint32_t k) {
              if (k == i && waits_.state(j) < 2 && why.empty()) why = ": it irequires " + name(h, j) + ", which never starts";
            });
          }
        return "rank " + std::to_string(h) + ": operation " + name(h, i) + " never runs" + why +
               " (a dependency cycle, or a send that is never completed)";
      }
    return {};
  }

 private:
  void push(uint32_t i, std::vector<loggp::ReadyOp>& out) {
    const OpFields o = s_.op(i);
    waits_.set_state(i, 1);
    out.push_back(loggp::ReadyOp{o.size, o.peer, o.tag, i, o.cpu, o.nic, o.type});
  }
  void release(const DepLists& lists, uint32_t h, uint32_t op, std::vector<loggp::ReadyOp>& out) {
    lists.each(s_.first, h, op, [&](uint32_t j) {
      if (waits_.release(j)) push(j, out);
    });
  }

  const Schedule& s_;
  detail::WaitCounts waits_;  // and each operation's state: 0 waiting, 1 ready, 2 started, 3 done
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
