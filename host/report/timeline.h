// Timelines (--timeline, --plot of `run`): what each kept processor did when, as Chrome trace-event
// JSON (Perfetto, chrome://tracing) and as rows of a Gantt chart.
//
// LogGP (an algorithm's rounds, or a GOAL file): the event engine runs the clocks again with a
// recorder. Each kept processor is a process of the trace with a track per CPU ("cpu") and two per
// NIC ("nic send", "nic recv"); slices "o send", "o recv", "calc", "noise" (a detour, right after
// the operation it delayed) on the CPU, "g send", "g recv" on the NIC; the wire latency L as an
// async slice "L" at the receiver (from the message leaving its sender to its arrival), and a flow
// arrow from each send to the handling of its message where both ends are kept. Times in ns.
// Step model (--model linear): step j spans [T_{j-1}, T_j) of the run's time; a kept processor's
// sends of the step are slices on its tracks "send k" (its k-th send), its receives on "recv k"
// (in the step they arrive in), with a flow from each send to its receive where both are kept.
// The model's time unit is shown as 1 us.
//
// Kept processors: all up to `limit`; beyond, `limit` of them spread evenly from 0 to p - 1, with
// the last to finish (LogGP) among them. The trace's otherData lists them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "goal/goal.h"
#include "ppsim/engine.h"

namespace ppsim {

inline constexpr int64_t kTimelineProcessors = 64;  // kept by default
inline constexpr int64_t kMaxTimelineProcessors = 4096;

struct TimelineSlice {
  int64_t proc;
  int track;
  const char* name;  // "o send", "noise", "send 0", ...
  const char* cat;   // "cpu", "noise", "nic", "step"
  double start, dur;
  int64_t peer = -1, bytes = -1;  // the other processor, the message's size (bytes, or words in the step model)
};
struct TimelineMessage {  // a flow arrow, and (LogGP) the wire's L
  uint64_t id;
  int64_t from, to;
  int from_track, to_track;
  double sent, leaves, arrives, handled;
  bool from_kept, to_kept;
};

struct Timeline {
  std::string title, unit;  // unit: "ns" or "time units"
  int64_t p = 0;
  std::vector<int64_t> kept;               // sorted
  std::vector<std::string> tracks;         // by track index
  std::vector<TimelineSlice> slices;       // by processor, then time
  std::vector<TimelineMessage> messages;
  double end = 0;                          // the run's time
};

// The processors a timeline keeps (see above); `last` (or -1) is kept too.
std::vector<int64_t> timeline_processors(int64_t p, int64_t limit, int64_t last);

// An algorithm's run (c, and r as the run reported it), under its model.
Timeline run_timeline(const RunConfig& c, const RunResult& r, int64_t limit);
// A GOAL schedule timed with fx's noise and stragglers.
Timeline goal_timeline(const goal::Schedule& s, const LogGPParams& P, const loggp::Effects& fx, int64_t limit, const std::string& title);

// The trace-event document.
nlohmann::json timeline_json(const Timeline& t);

}  // namespace ppsim
