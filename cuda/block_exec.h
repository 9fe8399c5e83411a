// An executor of rounds.h for a team of threads that runs a whole run by itself: the phases of a
// step are loops over the team with a team barrier between them (the round boundary, DESIGN §7's
// grid-wide barrier with a grid of one block), and its scans and reductions are the team's own,
// in shared cells. On the device the team is a thread block (backend.cu: one launch for the
// sizing pass, a block a round; one launch of one block for every step); on the host it is a group of std::threads meeting at a
// barrier (host_rounds.cpp), so CI runs this very code without a GPU. Every processor is one lane:
// the runs it takes move few words.
#pragma once
#include <cstdint>

#include "pull_bodies.h"
#include "round_bodies.h"

namespace ppsim {
namespace rounds {

inline constexpr int kWholeRunThreads = 512;
inline constexpr int64_t kWholeRunMaxP = 16384, kWholeRunMaxWords = int64_t{1} << 18;
// A run a team takes: few processors, rounds of short messages.
inline bool whole_run_fits(int64_t p, long long words) { return p <= kWholeRunMaxP && words <= kWholeRunMaxWords; }

// One shared cell per thread holds the largest value scanned or reduced.
inline constexpr size_t kTeamCell = sizeof(RoundTotals) > sizeof(Slots) ? sizeof(RoundTotals) : sizeof(Slots);
static_assert(sizeof(RoundPeak) <= kTeamCell, "a team cell holds every scanned type");

// Team: rank(), size(), sync() (a barrier of all its threads), commit(out, tally) (a thread's
// tally added to the round's, by every thread of the team).
template <class Team>
class TeamExec {
 public:
  PPSIM_HD TeamExec(Team team, unsigned char* cells) : team_(team), cells_(cells) {}
  // (Inlined on the device: called, it would take the body's address, and a body made in the
  // kernel would be the thread's, in local memory.)
  template <class Body>
  PPSIM_HD PPSIM_DEVICE_INLINE void each(int64_t n, const Body& body) {
    for (int64_t x = team_.rank(); x < n; x += team_.size()) body(x);
    team_.sync();
  }
  template <class Body>
  PPSIM_HD void groups(int64_t n, const Body& body, GroupWidth) {
    for (int64_t i = team_.rank(); i < n; i += team_.size()) body(i, 0, 1);
    team_.sync();
  }
  // Each thread adds up its processors' tallies; the team commits the sums (Team::commit: each
  // thread its own, or a warp's sum from one lane). Inlined on the device, so that a listed unit's
  // pass lands in the kernel: called, this would be a device function held to 64 registers, and
  // spill (464-520 bytes for the ring all-reduces).
  template <class Body>
  PPSIM_HD PPSIM_DEVICE_INLINE void groups_tally(int64_t n, const Body& body, GroupWidth, unsigned long long* out) {
    PullTally t{};
    for (int64_t i = team_.rank(); i < n; i += team_.size()) t.add(pull_of(body, i, 0, 1));
    team_.commit(out, t);
    team_.sync();
  }
  // init is the operator's identity (zero for the sums, (0, 0) for the peaks).
  template <class T, class Fn, class Op>
  PPSIM_HD void reduce(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    T acc = init;
    for (int64_t x = team_.rank(); x < n; x += team_.size()) acc = op(acc, fn(x));
    acc = inclusive_scan(acc, op, init);
    if (team_.rank() == team_.size() - 1) *out = acc;
    team_.sync();
  }
  // Each thread takes a contiguous chunk: its values are written out, the chunks' totals scanned
  // across the team, then every chunk rewritten as its running exclusive prefix.
  template <class T, class Fn, class Op>
  PPSIM_HD void exclusive_scan(int64_t n, const Fn& fn, const Op& op, T init, T* out) {
    const int64_t chunk = (n + team_.size() - 1) / team_.size();
    const int64_t first = lesser(n, int64_t(team_.rank()) * chunk), last = lesser(n, first + chunk);
    T acc = init;
    for (int64_t x = first; x < last; ++x) {
      const T v = fn(x);
      out[x] = v;
      acc = op(acc, v);
    }
    T run = exclusive_from(inclusive_scan(acc, op, init), init);
    for (int64_t x = first; x < last; ++x) {
      const T v = out[x];
      out[x] = run;
      run = op(run, v);
    }
    team_.sync();
  }

 private:
  PPSIM_HD static int64_t lesser(int64_t a, int64_t b) { return a < b ? a : b; }
  // Hillis-Steele over the team's cells: thread k gets v(0) op ... op v(k).
  template <class T, class Op>
  PPSIM_HD T inclusive_scan(T v, const Op& op, T init) {
    T* cell = reinterpret_cast<T*>(cells_);
    const int k = team_.rank();
    cell[k] = v;
    team_.sync();
    for (int d = 1; d < team_.size(); d *= 2) {
      const T left = k >= d ? cell[k - d] : init;
      team_.sync();
      cell[k] = op(left, cell[k]);
      team_.sync();
    }
    const T result = cell[k];
    team_.sync();  // the cells are free again
    return result;
  }
  // Thread k's exclusive prefix: thread k - 1's inclusive one.
  template <class T>
  PPSIM_HD T exclusive_from(T inclusive, T init) {
    T* cell = reinterpret_cast<T*>(cells_);
    cell[team_.rank()] = inclusive;
    team_.sync();
    const T result = team_.rank() == 0 ? init : cell[team_.rank() - 1];
    team_.sync();
    return result;
  }
  Team team_;
  unsigned char* cells_;
};

}  // namespace rounds
}  // namespace ppsim
