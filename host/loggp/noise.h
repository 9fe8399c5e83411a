// The noise model's workings (include/ppsim/noise.h says what it does): traces read from files or
// generated, and the phases and detours of one run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ppsim/noise.h"

namespace ppsim::loggp {

// Every time the LogGP engine reports stays below this (loggp.h): a finishing time at or past it
// is refused.
inline constexpr uint64_t kTimeLimit = uint64_t(1) << 62;

// a + b where detours are added, to one another or to the clock they delay: held at kTimeLimit (or
// at a, when a is past it already) instead of wrapping past 2^64, so that the check of the
// finishing times refuses every such sum. Six detours of 2^64/6 ns, each below 2^62, used to add up
// to 0 and a run exited 0 with a time that had lost them.
inline uint64_t add_capped(uint64_t a, uint64_t b) { return a >= kTimeLimit || b >= kTimeLimit - a ? std::max(a, kTimeLimit) : a + b; }

// LogGOPSim's format: lines `start<TAB>duration` (ns, numbers that may have decimals, rounded to
// the nearest ns), `#` comment lines and blank lines. `loggopsim_reader`: the entries LogGOPSim's
// reader ends up with (tests/data/goal/noise/README.md): a blank line, or a comment that does not
// start the line, repeats the entry before it (0, 0 when first), and so does the end of a file that
// does not end with a data line without a newline.
NoiseTrace read_noise_trace(const std::string& path, bool loggopsim_reader);
// A detour of `detour` ns every 1/hz s (hz from 1e-6 to 1e8), the first at 0, over at least 1 s and
// 64 periods.
NoiseTrace periodic_noise(double hz, uint64_t detour);
// Detours at the times of a Poisson process of `rate` per second (1e-6 to 1e8) with exponential lengths of mean
// `mean` ns, over at least 1 s and 64 detours, drawn from `seed`; its period starts and ends with
// the same detour.
NoiseTrace random_noise(double rate, double mean, uint64_t seed);

// The noise of one run over `hosts` processors: phases drawn, detours looked up.
class Noise {
 public:
  Noise(const NoiseSpec& spec, uint32_t hosts);
  // The delay of processor h's CPU operation of `len` ns that starts at `start`: 0 at once where
  // it lies in quiet buckets (most operations: a trace's detours take a few percent of its time).
  uint64_t detour(uint32_t h, uint64_t start, uint64_t len) const {
    if (len < period_) {
      const uint64_t m = period_ - len, x = start + phase(h);
      const uint64_t at = x < m ? x : x - m < m ? x - m : x % m;
      const uint64_t b0 = at >> quiet_shift_, b1 = (at + len) >> quiet_shift_;
      if (b1 - b0 < 4) {  // (the bits of b0 .. b1, from the word of b0 and the next)
        const uint64_t k = b0 & 63, w = b0 >> 6, need = (uint64_t(2) << (b1 - b0)) - 1;
        const uint64_t bits = quiet_[w] >> k | (quiet_[w + 1] << 1) << (63 - k);
        if ((bits & need) == need) return 0;
      }
      return detour_at(at, len);
    }
    return detour_at(0, len);  // (throws)
  }
  bool cosched() const { return spec_.cosched; }  // one phase for every processor
  uint64_t phase(uint32_t h) const {  // (inline: every lookup reads it)
    if (spec_.cosched) return common_;
    if (h < phase32_.size()) return phase32_[h];
    if (h < phase_.size()) return phase_[h];
    return ppsim_phase(h);
  }

 private:
  // Processor h's phase under ppsim's phases (a function of the seed and h alone).
  uint64_t ppsim_phase(uint32_t h) const;
  // The index of the first entry starting after `at` (< the period), as std::upper_bound gives it.
  size_t entry_after(uint64_t at) const;
  // The delay of an operation of `len` ns at `at` in the trace (below the period less len).
  uint64_t detour_at(uint64_t at, uint64_t len) const;

  const NoiseTrace& t_;
  const NoiseSpec spec_;
  // The lookups' index: after_[b] is the first entry starting after b << shift_, so an entry sought
  // for a time in bucket b lies between after_[b] and after_[b + 1] (about one entry per bucket).
  std::vector<uint32_t> after_;
  int shift_ = 0;
  uint64_t period_ = 0;
  // Quiet buckets (of 2^quiet_shift_ ns, at most 2^20 of them over the period; and a word more),
  // a bit each: where no entry starts and every entry before has ended, so that an operation that
  // starts and ends in quiet buckets has no detour (no entry running at its start, none starting
  // before its end).
  std::vector<uint64_t> quiet_;
  int quiet_shift_ = 0;
  // Independent phases, drawn for the run's processors (else both empty): in 32 bits where the
  // period is below 2^32 ns, as a trace's mostly is (4 bytes a processor saved at millions of them).
  template <class Draw>
  void keep_phases(uint32_t hosts, Draw&& draw);  // draw(h) for h = 0, 1, ... in turn
  std::vector<uint32_t> phase32_;
  std::vector<uint64_t> phase_;
  uint64_t common_ = 0;          // the co-scheduled phase
};

// Each processor's detours in all, on one thread: in 32 bits while every total fits (a few seconds
// of detours, 4 bytes a processor saved at millions of them), in 64 from the first that does not.
class DetourTotals {
 public:
  void assign(uint32_t hosts) { narrow_.assign(hosts, 0); }
  void add(uint32_t h, uint64_t d) {
    if (wide_.empty()) {
      if (const uint64_t sum = narrow_[h] + d; sum >> 32 == 0) {
        narrow_[h] = uint32_t(sum);
        return;
      }
      wide_.assign(narrow_.begin(), narrow_.end());
      std::vector<uint32_t>().swap(narrow_);
    }
    wide_[h] = add_capped(wide_[h], d);
  }
  // The totals, given up.
  std::vector<uint64_t> take() {
    std::vector<uint64_t> all = wide_.empty() ? std::vector<uint64_t>(narrow_.begin(), narrow_.end()) : std::move(wide_);
    std::vector<uint32_t>().swap(narrow_);
    std::vector<uint64_t>().swap(wide_);
    return all;
  }

 private:
  std::vector<uint32_t> narrow_;
  std::vector<uint64_t> wide_;
};

// Processor h's detour of a CPU operation of `len` ns that starts at `start` (0 without noise),
// added to its total in `per_host` (the algorithms' window timing keeps its totals this way: its
// threads add to theirs side by side, so they are not widened as DetourTotals are).
inline uint64_t counted_detour(const Noise* noise, std::vector<uint64_t>& per_host, uint32_t h, uint64_t start, uint64_t len) {
  if (!noise) return 0;
  const uint64_t d = noise->detour(h, start, len);
  per_host[h] = add_capped(per_host[h], d);
  return d;
}

}  // namespace ppsim::loggp
