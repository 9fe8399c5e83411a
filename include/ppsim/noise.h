// Operating-system noise in the LogGP model (--noise-trace, --noise): detours that delay the CPU
// operations of a processor, as LogGOPSim's Noise.hpp delays them (spcl/LogGOPSim at 76451de).
//
// A trace is a list of detours (start, length) in ns, sorted by start; the start of its last
// entry is its period T: processor h reads it from its phase φ(h) on, and wraps at the end. A CPU
// operation of processor h that starts at t and lasts len (a send's or a message's o, a calc's
// length; the per-byte O is not in the window, as in LogGOPSim) is delayed by
//   x = (t + φ(h)) mod (T − len), its position in the trace; i = the last entry starting at or
//   before x (none when x is at or before the first entry's start);
//   the part of entry i that is still running at x (start_i + length_i − x, where positive),
//   plus the whole length of every later entry that starts before x + len, the entry at T
//   standing for the first one of the next period (after it the walk goes on from entry 1, T
//   earlier).
// The delay lengthens the operation on its CPU (its o or calc); its NIC is not delayed.
//
// Phases: independent (each processor its own) or co-scheduled (--noise-cosched: one for all), drawn
// from --seed. `ppsim` phases hash (seed, processor): any processor's phase without the others'.
// `loggopsim` phases are the draws of std::mt19937 seeded with the seed, in LogGOPSim's order (the
// co-scheduled phase first, then one per processor when independent), each (draw / 2^32−1) · T:
// LogGOPSim seeded with the same number (instead of time(0)) gives the same times.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ppsim {

// A noise trace that cannot be read or used; one line, naming the file and line where there is one.
struct NoiseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NoiseTrace {
  std::vector<uint64_t> start, length;  // ns; starts non-decreasing; at least 2 entries, last start > 0
  std::string source;                   // what it is, for reports: "trace FILE", "periodic 1000 Hz x 25000 ns", ...
  uint64_t period() const { return start.back(); }
  double fraction() const {  // of a period spent in detours (the entry at the period is the next one's first)
    double busy = 0;
    for (size_t i = 0; i + 1 < start.size(); ++i) busy += double(length[i]);
    return busy / double(period());
  }
};

enum class NoisePhases : int8_t { ppsim, loggopsim };

struct NoiseSpec {
  std::shared_ptr<const NoiseTrace> trace;
  bool cosched = false;
  uint64_t seed = 1;
  NoisePhases phases = NoisePhases::ppsim;
  // Whether a run is also timed without the noise, for its noiseless time and slowdown, where that
  // takes a timing of its own (where one pass gives both, it is given either way). `run` on one
  // thread leaves it out unless asked (--noise-slowdown): a noisy run is then timed once, as
  // LogGOPSim times it.
  bool slowdown = true;
};

}  // namespace ppsim
