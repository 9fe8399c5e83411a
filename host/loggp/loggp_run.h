// LogGP timing of a registered algorithm (--model loggp). It reads the algorithm's rounds as its
// export as a GOAL schedule does (`ppsim goal`, goal/goal_writer.h), so the time of an algorithm
// equals the time of its exported file (docs/DESIGN.md §3b):
//   - processor i's operations of round r are its sends, then its receives, of that round, in the
//     algorithm's order; a message of w words is 8w bytes and carries the tag r;
//   - they wait for the receives of i's latest earlier round that has receives (and so, through
//     them, for every earlier receive); the operations before i's first receive wait for nothing.
// Nothing is stored per round: each processor keeps the round it is at and how many of its
// receives are outstanding (O(p) memory besides the event queue).
#pragma once
#include <cstdint>
#include <optional>
#include <utility>

#include "loggp/loggp.h"
#include "ppsim/config.h"

namespace ppsim {

// The LogGP times of c's algorithm (c.cost.loggp). Throws loggp::StuckError if it cannot finish.
// Round by round where the algorithm runs in lockstep (loggp_lockstep.cpp), else (or with
// `events_only`) with the event engine (loggp.h); both give the same times. `lockstep`, if given,
// says which ran.
// `windows`, if given, says that the window timing ran (loggp_windows.cpp).
loggp::Result loggp_run(const RunConfig& c, bool events_only = false, bool* lockstep = nullptr, int threads = 1, bool* windows = nullptr);

// loggp_run where the lockstep timing is known to decline c: the windows, else the event engine.
loggp::Result loggp_run_past_lockstep(const RunConfig& c, bool events_only = false, int threads = 1, bool* windows = nullptr);

// Round by round only, on `threads` threads (0: one per core): nothing where the lockstep
// conditions fail (loggp_lockstep.cpp). The times do not depend on the threads.
std::optional<loggp::Result> loggp_lockstep(const RunConfig& c, int threads = 1);

// A noisy run's two timings in one lockstep pass (the rounds read once for both): with c's noise
// and without it, for the slowdown. Where the lockstep conditions fail in one timing only (the
// noisy one, mostly, under independent noise) the other goes on alone and is given; where that
// happens in the first quarter of the rounds the pass ends, and the other is left untimed (the
// lockstep timing of it alone is faster). `..._declined`: loggp_lockstep declines that timing too.
struct NoisyAndNoiseless {
  std::optional<loggp::Result> noisy, noiseless;
  bool noisy_declined = false, noiseless_declined = false;
};
NoisyAndNoiseless loggp_lockstep_noisy_and_noiseless(const RunConfig& c, int threads = 1);

// Window by window of o + L ns, every processor on its own, on `threads` threads (0: one per
// core), where the lockstep conditions fail: nothing where its own fail (loggp_windows.cpp). The
// times do not depend on the threads.
// `held_makers`, if given: the entries of the makers' logs still held at the end (the rest were
// given back once no pending event could reach them).
std::optional<loggp::Result> loggp_windows(const RunConfig& c, int threads = 1, uint64_t* held_makers = nullptr);

// The event engine's times of c's algorithm, told to `recorder` as they are made (--timeline).
loggp::Result loggp_run_recorded(const RunConfig& c, loggp::Recorder& recorder);

}  // namespace ppsim
