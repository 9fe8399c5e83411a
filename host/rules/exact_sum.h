// The exact sum of floating-point numbers and its correct rounding (a long accumulator, Kulisch
// style): the reference of the rounded operators fsum and fsum32 (docs/DESIGN.md §6). PPSIM_HD, so
// the host's reference and the device's verification use this one code.
//
// Every finite double is an integer multiple of 2^-1074 below 2^1024 in magnitude, so a sum of up
// to 2^31 of them is N * 2^-1074 for an integer |N| < 2^2130. N is held in base 2^32: digit d
// weighs 2^(32 d), and each digit is stored in an int64 so that it can take 2^30 additions of
// parts below 2^32 without a carry (carries are settled every 2^30 additions and before rounding).
// Only the digits [lo, hi] that additions touched are ever nonzero, and only they are settled: a
// sum of numbers of similar size keeps a handful of digits busy, not 68.
// Floats widen to doubles exactly, so fsum32 sums with the same accumulator and rounds once, to
// binary32, from N itself (never through a double: that would round twice).
#pragma once
#include <cstdint>

#include "ppsim/float_words.h"
#include "ppsim/hd.h"

namespace ppsim {

struct ExactSum {
  static constexpr int kDigits = 68;     // 68 * 32 = 2176 bits > 2098 + 31 bits and a sign
  static constexpr int kBottom = -1074;  // digit 0, bit 0 weighs 2^kBottom
  int64_t digit[kDigits];
  int lo, hi;       // the digits that may be nonzero (lo > hi: none)
  int64_t pending;  // additions since carries were last settled
  double special;   // the infinities and NaNs added, summed as IEEE addition does (0: none)

  PPSIM_HD void clear() {
    for (int d = 0; d < kDigits; ++d) digit[d] = 0;
    lo = kDigits;
    hi = -1;
    pending = 0;
    special = 0;
  }

  // Adds sign * x exactly (sign is +1 or -1).
  PPSIM_HD void add(double x, int sign = 1) {
    const uint64_t bits = double_bits(x);
    const int biased = int((bits >> 52) & 0x7FF);
    if (biased == 0x7FF) {
      special += sign * x;
      return;
    }
    // x = mant * 2^(pos + kBottom): subnormals have biased exponent 0 and no hidden bit.
    const uint64_t mant = (bits & ((uint64_t{1} << 52) - 1)) | (biased ? uint64_t{1} << 52 : 0);
    if (mant == 0) return;
    const int pos = biased ? biased - 1 : 0, d = pos / 32, r = pos % 32;
    const int64_t s = ((bits >> 63) ? -1 : 1) * sign;
    const uint64_t low = (mant << r) & 0xFFFFFFFFu, rest = mant >> (32 - r);  // mant << r spans at most 85 bits
    digit[d] += s * int64_t(low);
    digit[d + 1] += s * int64_t(rest & 0xFFFFFFFFu);
    digit[d + 2] += s * int64_t(rest >> 32);
    touched(d, d + 2);
  }

  // Adds another sum exactly; `o` must be settled (every digit below 2^32 in magnitude).
  PPSIM_HD void add(const ExactSum& o) {
    special += o.special;
    for (int d = o.lo; d <= o.hi; ++d) digit[d] += o.digit[d];
    if (o.lo <= o.hi) touched(o.lo, o.hi);
  }

  // Carries moved up: the digits below the top one in [0, 2^32), the top one (hi) in
  // (-2^32, 2^32), holding the sign (the digits below it add less than 2^(32 hi)).
  PPSIM_HD void settle() {
    pending = 0;
    if (lo > hi) return;
    for (int d = lo;; ++d) {
      if (d == hi) {
        if (digit[d] > -(int64_t{1} << 32) && digit[d] < (int64_t{1} << 32)) break;  // the top, as small as it goes
        ++hi;                                                                        // a carry out of the top
      }
      const int64_t carry = digit[d] >> 32;  // floor division (arithmetic shift)
      digit[d] -= carry * (int64_t{1} << 32);
      digit[d + 1] += carry;
    }
    while (hi > lo && digit[hi] == 0) --hi;
  }

  // The sum rounded to nearest (ties to even) in format f, as the format's word. Settles the
  // carries in place (the sum is unchanged), so that no copy of the digits is made (on the device
  // they live in a thread's local memory).
  PPSIM_HD uint64_t rounded(const FloatFormat& f) {
    const bool single = f.bits == 32;
    if (special != 0) return value_word(single, special);  // an infinity or a NaN (NaN != 0)
    settle();
    if (lo > hi) return 0;
    const bool negative = digit[hi] < 0;  // the digits below add less than 2^(32 hi)
    if (negative) negate();               // round |N|, then give N back its sign
    const uint64_t word = rounded_magnitude(f);
    if (negative) negate();
    return negative ? word | (uint64_t{1} << (f.bits - 1)) : word;
  }

 private:
  PPSIM_HD void touched(int from, int to) {
    if (from < lo) lo = from;
    if (to > hi) hi = to;
    if (++pending == (int64_t{1} << 30)) settle();
  }
  PPSIM_HD void negate() {
    for (int d = lo; d <= hi; ++d) digit[d] = -digit[d];
    settle();
  }
  // A settled N >= 0 rounded to format f (no sign).
  PPSIM_HD uint64_t rounded_magnitude(const FloatFormat& f) const {
    if (digit[hi] == 0) return 0;                      // an exact zero: +0, as x + (-x) is
    const int high = hi * 32 + floor_log2(digit[hi]);  // N's leading bit
    // Keep bits [q, high] of N: precision bits, or fewer where the format's subnormals end.
    int q = high - (f.precision - 1);
    if (q < f.min_quantum - kBottom) q = f.min_quantum - kBottom;
    uint64_t m = bits(q, high - q + 1);
    if (q > 0 && bit(q - 1) && (m & 1 || any_below(q - 1))) ++m;  // round half to even
    if (m == uint64_t{1} << f.precision) {
      m >>= 1;
      ++q;
    }
    // The value m * 2^(q + kBottom), encoded: normal when m has all precision bits.
    const uint64_t hidden = uint64_t{1} << (f.precision - 1);
    uint64_t word = m;
    if (m >= hidden) {
      const int64_t exponent_field = int64_t(q) + kBottom - f.min_quantum + 1;  // q at the subnormals' spacing: field 1
      const int64_t max_field = (int64_t{1} << (f.bits - f.precision)) - 1;
      word = exponent_field >= max_field ? uint64_t(max_field) << (f.precision - 1)
                                         : (uint64_t(exponent_field) << (f.precision - 1)) | (m - hidden);
    }
    return word;
  }

  PPSIM_HD bool bit(int i) const { return (digit[i / 32] >> (i % 32)) & 1; }
  // count <= 64 bits of a settled non-negative N from bit `from` on.
  PPSIM_HD uint64_t bits(int from, int count) const {
    uint64_t v = 0;
    for (int k = 0; k < count;) {
      const int i = from + k, off = i % 32, take = count - k < 32 - off ? count - k : 32 - off;
      v |= ((uint64_t(digit[i / 32]) >> off) & ((uint64_t{1} << take) - 1)) << k;
      k += take;
    }
    return v;
  }
  PPSIM_HD bool any_below(int i) const {
    for (int d = lo; d < i / 32; ++d)
      if (digit[d] != 0) return true;
    return (uint64_t(digit[i / 32]) & ((uint64_t{1} << (i % 32)) - 1)) != 0;
  }
};

}  // namespace ppsim
