// Combine operators ⊕ over 64-bit words, and the input values a run starts from (docs/DESIGN.md §6).
//
//   sum, prod, min, max, band, bor, bxor : int64 words, commutative (sum/prod wrap mod 2^64)
//   affine   : word = (a << 32) | b encodes x -> a*x + b (mod 2^32); f ⊕ g = "f, then g",
//              i.e. (a1,b1) ⊕ (a2,b2) = (a1*a2, a2*b1 + b2). Associative, not commutative.
//   interval : word = (lo << 32) | hi stands for v(lo) ⊕ ... ⊕ v(hi). (a,b) ⊕ (c,d) = (a,d)
//              only when c == b + 1; any other combine yields the error value, which
//              poisons everything it touches and fails verification.
//   fsum     : IEEE double addition on the word's bits; fsum32: IEEE float addition on its low
//              32 bits (ppsim/float_words.h). Commutative, not associative: rounding depends on
//              the fold's shape.
#pragma once
#include "ppsim/float_words.h"
#include "ppsim/hd.h"

namespace ppsim {

// What an operator promises, and so what verification asks of a run (docs/DESIGN.md §6):
//   exact   : associative and commutative; any fold order gives the reference's words bit for bit.
//   ordered : associative, not commutative; folds must keep processor order, and then give the
//             reference's words bit for bit.
//   rounded : commutative, not associative (floating-point addition); every fold order gives a
//             correctly rounded step at each combine but different words overall, so a word is
//             right when its distance from the exact sum is within the error bound of summation.
enum class OperatorLaw : int8_t { exact, ordered, rounded };

// Every operator once: X(kind, name, law), name being what --combine takes and reports print. The
// enum, the count, the names, the laws and the run-time dispatch below are generated from this list.
#define PPSIM_OPERATORS(X)         \
  X(sum, "sum", exact)             \
  X(prod, "prod", exact)           \
  X(min, "min", exact)             \
  X(max, "max", exact)             \
  X(band, "and", exact)            \
  X(bor, "or", exact)              \
  X(bxor, "xor", exact)            \
  X(affine, "affine", ordered)     \
  X(interval, "interval", ordered) \
  X(fsum, "fsum", rounded)         \
  X(fsum32, "fsum32", rounded)

enum class OperatorKind : int8_t {
#define PPSIM_OPERATOR_ENUM(kind, name, law) kind,
  PPSIM_OPERATORS(PPSIM_OPERATOR_ENUM)
#undef PPSIM_OPERATOR_ENUM
};
inline constexpr const char* kOperatorNames[] = {
#define PPSIM_OPERATOR_NAME(kind, name, law) name,
    PPSIM_OPERATORS(PPSIM_OPERATOR_NAME)
#undef PPSIM_OPERATOR_NAME
};
inline constexpr int kOperatorCount = int(sizeof(kOperatorNames) / sizeof(kOperatorNames[0]));

// Value left in every slot that the operation's input does not set ("never written").
inline constexpr uint64_t kPoison = 0x5A5A5A5A5A5A5A5AULL;
// interval encodings that are not intervals (lo > hi):
inline constexpr uint64_t kIntervalUnset = 0xFFFFFFFE00000000ULL;
inline constexpr uint64_t kIntervalError = 0xFFFFFFFF00000000ULL;
inline constexpr uint64_t kIntervalIdentity = 0xFFFFFFFD00000000ULL;

PPSIM_HD inline uint64_t interval_make(uint32_t lo, uint32_t hi) { return (uint64_t(lo) << 32) | hi; }
PPSIM_HD inline uint32_t interval_lo(uint64_t w) { return uint32_t(w >> 32); }
PPSIM_HD inline uint32_t interval_hi(uint64_t w) { return uint32_t(w); }
PPSIM_HD inline bool interval_valid(uint64_t w) { return interval_lo(w) <= interval_hi(w); }

PPSIM_HD inline uint64_t combine_interval(uint64_t x, uint64_t y) {
  if (x == kIntervalIdentity) return y;
  if (y == kIntervalIdentity) return x;
  if (!interval_valid(x) || !interval_valid(y)) return kIntervalError;
  if (interval_lo(y) != interval_hi(x) + 1u) return kIntervalError;
  return interval_make(interval_lo(x), interval_hi(y));
}

PPSIM_HD inline uint64_t combine_affine(uint64_t f, uint64_t g) {
  uint32_t a1 = uint32_t(f >> 32), b1 = uint32_t(f), a2 = uint32_t(g >> 32), b2 = uint32_t(g);
  uint32_t a = a1 * a2, b = a2 * b1 + b2;  // uint32 arithmetic wraps mod 2^32
  return (uint64_t(a) << 32) | b;
}

// x ⊕ y for an operator fixed at compile time (the engine's inner loops are instantiated per operator).
template <OperatorKind K>
PPSIM_HD inline uint64_t combine(uint64_t x, uint64_t y) {
  if constexpr (K == OperatorKind::sum) return x + y;
  else if constexpr (K == OperatorKind::prod) return x * y;
  else if constexpr (K == OperatorKind::min) return int64_t(x) < int64_t(y) ? x : y;
  else if constexpr (K == OperatorKind::max) return int64_t(x) < int64_t(y) ? y : x;
  else if constexpr (K == OperatorKind::band) return x & y;
  else if constexpr (K == OperatorKind::bor) return x | y;
  else if constexpr (K == OperatorKind::bxor) return x ^ y;
  else if constexpr (K == OperatorKind::affine) return combine_affine(x, y);
  else if constexpr (K == OperatorKind::fsum) return fsum_combine(x, y);
  else if constexpr (K == OperatorKind::fsum32) return fsum32_combine(x, y);
  else return combine_interval(x, y);
}

// x ⊕ y for an operator chosen at run time (references and small paths).
PPSIM_HD PPSIM_HOT_INLINE uint64_t combine_dyn(OperatorKind k, uint64_t x, uint64_t y) {
  switch (k) {
#define PPSIM_OPERATOR_CASE(kind, name, law) \
  case OperatorKind::kind: return combine<OperatorKind::kind>(x, y);
    PPSIM_OPERATORS(PPSIM_OPERATOR_CASE)
#undef PPSIM_OPERATOR_CASE
  }
  return kPoison;
}

PPSIM_HD inline OperatorLaw operator_law(OperatorKind k) {
  switch (k) {
#define PPSIM_OPERATOR_LAW(kind, name, law) \
  case OperatorKind::kind: return OperatorLaw::law;
    PPSIM_OPERATORS(PPSIM_OPERATOR_LAW)
#undef PPSIM_OPERATOR_LAW
  }
  return OperatorLaw::exact;
}
PPSIM_HD inline bool operator_commutative(OperatorKind k) { return operator_law(k) != OperatorLaw::ordered; }
PPSIM_HD inline bool operator_rounded(OperatorKind k) { return operator_law(k) == OperatorLaw::rounded; }
// The format of a rounded operator's words (fsum32: binary32; fsum: binary64).
PPSIM_HD inline bool operator_single(OperatorKind k) { return k == OperatorKind::fsum32; }
PPSIM_HD inline FloatFormat operator_format(OperatorKind k) { return operator_single(k) ? binary32() : binary64(); }

PPSIM_HD inline uint64_t operator_identity(OperatorKind k) {
  switch (k) {
    case OperatorKind::sum:
    case OperatorKind::bor:
    case OperatorKind::bxor: return 0;
    case OperatorKind::prod: return 1;
    case OperatorKind::min: return uint64_t(INT64_MAX);
    case OperatorKind::max: return uint64_t(INT64_MIN);
    case OperatorKind::band: return ~uint64_t{0};
    case OperatorKind::affine: return uint64_t{1} << 32;  // x -> 1*x + 0
    case OperatorKind::interval: return kIntervalIdentity;
    case OperatorKind::fsum: return kFsumIdentity;
    case OperatorKind::fsum32: return kFsum32Identity;
  }
  return kPoison;
}

PPSIM_HD inline uint64_t operator_unset(OperatorKind k) { return k == OperatorKind::interval ? kIntervalUnset : kPoison; }

// Input values: `iota` is readable (processor i, word w of W input words -> i*W + w + 1),
// `random:SEED` is splitmix64 of the same index. interval words always name their processor (i:i).
// fsum, fsum32: iota is the number i*W + w + 1 (exact small integers: their sums are exact in any
// order below 2^53, 2^24 for floats), random:SEED a number in [lo, hi) (float_words.h).
struct InputSpec {
  bool random = false;
  uint64_t seed = 0;
  double lo = -1.0, hi = 1.0;  // the range of random fsum and fsum32 inputs
};

PPSIM_HD inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

PPSIM_HD inline uint64_t input_word(OperatorKind k, InputSpec in, int64_t proc, int64_t word, int64_t words_per_proc) {
  if (k == OperatorKind::interval) return interval_make(uint32_t(proc), uint32_t(proc));
  uint64_t index = uint64_t(proc) * uint64_t(words_per_proc) + uint64_t(word);
  uint64_t v = in.random ? splitmix64(in.seed * 0x100000001B3ULL ^ splitmix64(index)) : index + 1;
  if (operator_rounded(k))
    return in.random ? random_float_word(operator_single(k), v, in.lo, in.hi) : value_word(operator_single(k), double(v));
  if (k == OperatorKind::affine) {
    uint32_t a = in.random ? (uint32_t(v >> 32) | 1u) : uint32_t(2 * index + 3);
    uint32_t b = in.random ? uint32_t(v) : uint32_t(index + 1);
    return (uint64_t(a) << 32) | b;
  }
  return v;
}

}  // namespace ppsim
