// Stragglers (--stragglers, --straggler-factor): processors that work a factor F slower.
//   linear model: a message a straggler sends costs F times its startup and per-word terms,
//     F·(t_s + t_w·m·c) cut-through (its hops' t_h and the receiver's γ term unchanged);
//   loggp model: a straggler's CPU overheads are F·o, F·O per byte and F·c for a calc of c ns
//     (rounded to the nearest ns); its NIC (g, G) and the wire (L) are unchanged.
// Which processors: a list (at most kMaxListedStragglers), or a fraction of them chosen by a hash
// of (seed, processor), so that any processor knows whether it straggles without a table (the
// device reads this struct as it is).
#pragma once
#include <cmath>
#include <cstdint>

#include "ppsim/hd.h"

namespace ppsim {

inline constexpr int kMaxListedStragglers = 64;

struct Stragglers {
  double factor = 1.0;
  int32_t listed = 0;                            // list[0 .. listed), sorted
  int64_t list[kMaxListedStragglers] = {};
  uint64_t threshold = 0;                        // a fraction f of processors: hash < f·2^64 (0: none)
  uint64_t seed = 0;

  PPSIM_HD bool any() const { return factor != 1.0 && (listed > 0 || threshold > 0); }
  PPSIM_HD bool slow(int64_t proc) const {
    if (listed > 0) {
      int lo = 0, hi = listed;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (list[mid] < proc) lo = mid + 1;
        else hi = mid;
      }
      return lo < listed && list[lo] == proc;
    }
    return threshold > 0 && hash(proc) < threshold;
  }
  PPSIM_HD double factor_of(int64_t proc) const { return any() && slow(proc) ? factor : 1.0; }
  // x ns (an overhead) on processor proc: x·F rounded to the nearest ns for a straggler.
  uint64_t scaled(int64_t proc, uint64_t x) const {
    const double f = factor_of(proc);
    return f == 1.0 ? x : uint64_t(std::llround(double(x) * f));
  }

 private:
  PPSIM_HD uint64_t hash(int64_t proc) const {  // splitmix64 of (seed, proc)
    uint64_t x = seed ^ (uint64_t(proc) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
};

}  // namespace ppsim
