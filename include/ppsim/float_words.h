// Floating-point words (docs/DESIGN.md §6): the operators fsum and fsum32 add IEEE numbers held in
// the 64-bit words the simulator moves.
//
//   fsum   : the word is the bits of an IEEE double (binary64).
//   fsum32 : the word's low 32 bits are the bits of an IEEE float (binary32), its high 32 bits are
//            zero; one float per word, so a word's error and bound are those of one sum.
//
// Addition rounds to nearest even; it is commutative bit for bit (a + b == b + a) but not
// associative, so the words a run ends with depend on the shape of its folds.
#pragma once
#include <cstdint>
#include <cstring>

#include "ppsim/hd.h"

namespace ppsim {

// The same bits read as another type of the same size (memcpy: host and device compilers make it
// a plain move).
template <class To, class From>
PPSIM_HD inline To same_bits(From from) {
  static_assert(sizeof(To) == sizeof(From), "a word and its number have the same size");
  To to;
  memcpy(&to, &from, sizeof to);
  return to;
}
PPSIM_HD inline double bits_double(uint64_t w) { return same_bits<double>(w); }
PPSIM_HD inline uint64_t double_bits(double d) { return same_bits<uint64_t>(d); }
PPSIM_HD inline float bits_float(uint32_t w) { return same_bits<float>(w); }
PPSIM_HD inline uint32_t float_bits(float f) { return same_bits<uint32_t>(f); }

// An IEEE binary format as the exact sums (host/rules/exact_sum.h) and the ulp distance need it. Values
// are (-1)^s * M * 2^q with M < 2^precision; q >= min_quantum (the subnormals' spacing).
struct FloatFormat {
  int bits;              // of the encoding: 64 or 32 (sign, exponent field, precision - 1 fraction bits)
  int precision;         // significand bits with the hidden one: 53 or 24
  int min_quantum;       // exponent of the smallest subnormal: -1074 or -149
  double unit_roundoff;  // u = 2^-precision: 2^-53 or 2^-24
};
PPSIM_HD inline FloatFormat binary64() { return FloatFormat{64, 53, -1074, 1.0 / 9007199254740992.0}; }
PPSIM_HD inline FloatFormat binary32() { return FloatFormat{32, 24, -149, 1.0 / 16777216.0}; }

// Words of either operator as doubles (a float widens exactly) and back (a double that is a float
// value narrows exactly; otherwise it rounds to nearest).
PPSIM_HD inline double word_value(bool single, uint64_t w) { return single ? double(bits_float(uint32_t(w))) : bits_double(w); }
PPSIM_HD inline uint64_t value_word(bool single, double v) { return single ? uint64_t(float_bits(float(v))) : double_bits(v); }
// A word that encodes a number of the format at all: an fsum32 word has zero high bits.
PPSIM_HD inline bool word_in_format(bool single, uint64_t w) { return !single || (w >> 32) == 0; }

PPSIM_HD inline uint64_t fsum_combine(uint64_t x, uint64_t y) { return double_bits(bits_double(x) + bits_double(y)); }
PPSIM_HD inline uint64_t fsum32_combine(uint64_t x, uint64_t y) {
  return uint64_t(float_bits(bits_float(uint32_t(x)) + bits_float(uint32_t(y))));
}

// -0.0 is the neutral element of IEEE addition (x + -0 == x for every x, -0 included; +0 is not).
inline constexpr uint64_t kFsumIdentity = 0x8000000000000000ULL;
inline constexpr uint64_t kFsum32Identity = 0x80000000ULL;

// The distance in ulps between two words of the format: how many representable numbers lie
// between them, plus one (0 for equal values; +0 and -0 are one value). Words are mapped to
// integers in the order of their values (sign-magnitude to offset binary), so this is the
// number of steps std::nextafter takes from one to the other. Words outside the format (an fsum32
// word with high bits) are as far as can be.
PPSIM_HD inline uint64_t ulp_distance(bool single, uint64_t a, uint64_t b) {
  if (!word_in_format(single, a) || !word_in_format(single, b)) return ~uint64_t{0};
  const uint64_t sign = single ? uint64_t{1} << 31 : uint64_t{1} << 63;
  auto ordinal = [sign](uint64_t w) { return (w & sign) ? sign - (w & (sign - 1)) : sign + w; };
  const uint64_t x = ordinal(a), y = ordinal(b);
  return x > y ? x - y : y - x;
}

// Random inputs: the 53 (double) or 24 (float) high bits of a splitmix64 value r as a fraction
// u in [0, 1), mapped to lo + (hi - lo) u. For the default [-1, 1) this is exact: the inputs are
// the multiples of 2^-52 (2^-23 for floats) in [-1, 1), uniformly. Other ranges are rounded to
// the format once.
PPSIM_HD inline uint64_t random_float_word(bool single, uint64_t r, double lo, double hi) {
  const int keep = single ? 24 : 53;
  const double u = double(r >> (64 - keep)) / double(uint64_t{1} << keep);
  return value_word(single, lo + (hi - lo) * u);
}

}  // namespace ppsim
