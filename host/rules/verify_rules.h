// What verification expects (docs/DESIGN.md §6), written once for both backends: for every
// operation, which buffer holds the result, which of its words are checked, and the value each
// must hold, computed from the operation's meaning and the inputs, never from the algorithm that
// ran. Reductions and prefixes read a fold table: its rows are the inputs (fold_input), folded in
// order — left to right by the host's sequential reference (reference.cpp), as an ordered tree
// (reductions) or a Hillis-Steele scan (prefixes) on the device (cuda/verify_bodies.h); for
// ppsim's associative operators both give the same words.
//
// Rounded operators (fsum, fsum32) are not associative: no fold order is "the" reference. Their
// table is summed exactly instead (exact_rows, the same on both sides), and a folded word
// is right when its distance from the exact sum s of its n terms is within the error bound of
// floating-point summation in any order, (n - 1) u Σ|x| (Rump 2012 for recursive summation,
// Jeannerod and Rump 2013 for any order of evaluation; u = 2^-53, or 2^-24 for floats). Words
// that are copies of inputs must still match bit for bit.
#pragma once
#include <cstdint>

#include "rules/exact_sum.h"
#include "ppsim/operation.h"
#include "ppsim/operators.h"

namespace ppsim::rules {

// The buffer an operation's result is checked in.
PPSIM_HD inline int32_t checked_buffer(Operation op) {
  switch (op) {
    case Operation::reduce_scatter:
    case Operation::alltoall:
    case Operation::kscatter:
    case Operation::shift: return kResult;
    default: return kData;
  }
}

PPSIM_HD inline bool needs_fold(Operation op) {
  return op == Operation::reduce || op == Operation::allreduce || op == Operation::reduce_scatter || op == Operation::scan;
}

// The fold table's shape, row-major [count][width]:
//   reduce, allreduce: row i = processor i's m words;
//   reduce_scatter:    row j = processor j's p*m words (block i of the fold is processor i's result);
//   scan:              row e = element e's m words (exclusive: the identity, then elements 0..n-2).
PPSIM_HD inline void fold_shape(Operation op, const AlgoParams& a, int64_t& count, int64_t& width) {
  count = a.p;
  width = a.m;
  if (op == Operation::reduce_scatter) width = a.p * a.m;
  if (op == Operation::scan) count = scan_elements(a);
}

// Word x of the fold table before folding.
PPSIM_HD inline uint64_t fold_input(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t width, int64_t x) {
  const int64_t row = x / width, w = x % width;
  if (op == Operation::scan && a.exclusive) return row == 0 ? operator_identity(k) : input_word(k, in, row - 1, w, a.m);
  return input_word(k, in, row, w, op == Operation::reduce_scatter ? a.p * a.m : a.m);
}

// The entry of the folded table (row * width + column) that the word processor i holds at offset
// `off` of the checked buffer is checked against: row 0 (the whole fold) for reductions, the
// element's row (its prefix) for scans; -1 for words that are not checked or not folds.
PPSIM_HD inline int64_t fold_entry(Operation op, const AlgoParams& a, int64_t i, int64_t off) {
  const int64_t m = a.m;
  switch (op) {
    case Operation::reduce: return i == a.root ? off : -1;
    case Operation::allreduce: return off;
    case Operation::reduce_scatter: return i * m + off;
    case Operation::scan: return off / m < scan_count(a, i) ? (scan_first(a, i) + off / m) * m + off % m : -1;
    default: return -1;
  }
}

// The number of terms folded into an entry: every row for reductions, rows 0..e for prefix e.
PPSIM_HD inline int64_t fold_terms(Operation op, const AlgoParams& a, int64_t entry) {
  int64_t count, width;
  fold_shape(op, a, count, width);
  return op == Operation::scan ? entry / width + 1 : count;
}

// A rounded operator's reference for one fold entry: the exact sum s of its terms rounded to
// nearest in the operator's format (`want`, a word), what that rounding left (s - want, rounded to
// a double: `tail`), and Σ|x| over the terms (compensated: to a relative 2^-52 or so).
struct FloatRef {
  uint64_t want;
  double tail, abs_sum;
};

// The folded table a verification reads: the folds (exact and ordered operators) or the exact
// sums (rounded operators), both indexed by fold_entry.
// (A run split across ranks holds only the entries its block checks: from entry `base` on.)
struct FoldRef {
  const uint64_t* fold = nullptr;
  const FloatRef* exact = nullptr;
  int64_t base = 0;
  PPSIM_HD uint64_t want(int64_t entry) const { return exact ? exact[entry - base].want : fold[entry - base]; }
  PPSIM_HD const FloatRef& exact_at(int64_t entry) const { return exact[entry - base]; }
};

// Rows of one column of a rounded operator's fold table, summed: exactly (the long accumulator)
// and Σ|x| (Neumaier's compensated sum of the |x|).
struct ExactPart {
  ExactSum sum;
  double abs_sum, abs_lost;
  PPSIM_HD void clear() {
    sum.clear();
    abs_sum = abs_lost = 0;
  }
  PPSIM_HD void add_abs(double ax) {
    const double t = abs_sum + ax;
    abs_lost += abs_sum >= ax ? (abs_sum - t) + ax : (ax - t) + abs_sum;
    abs_sum = t;
  }
  // Adds the rows of another part (settled, as exact_rows leaves it).
  PPSIM_HD void add(const ExactPart& o) {
    sum.add(o.sum);
    add_abs(o.abs_sum);
    abs_lost += o.abs_lost;
  }
};

// The reference of the rows a part holds; the part's sum is left as it was.
PPSIM_HD inline FloatRef float_ref(OperatorKind k, ExactPart& part) {
  const bool single = operator_single(k);
  FloatRef r;
  r.want = part.sum.rounded(operator_format(k));
  part.sum.add(word_value(single, r.want), -1);  // s - want, exactly; then s again
  r.tail = bits_double(part.sum.rounded(binary64()));
  part.sum.add(word_value(single, r.want));
  r.abs_sum = part.abs_sum + part.abs_lost;
  return r;
}

// Adds rows [begin, end) of column w to `part`, leaving it settled; for scans (out not null) writes
// the reference of every prefix it reaches to out[row * width + w - out_base].
PPSIM_HD inline void exact_rows(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t w, int64_t begin,
                                int64_t end, ExactPart& part, FloatRef* out, int64_t out_base = 0) {
  int64_t count, width;
  fold_shape(op, a, count, width);
  const bool single = operator_single(k);
  for (int64_t row = begin; row < end; ++row) {
    const double x = word_value(single, fold_input(op, k, in, a, width, row * width + w));
    part.sum.add(x);
    part.add_abs(x < 0 ? -x : x);
    if (out) out[row * width + w - out_base] = float_ref(k, part);
  }
  part.sum.settle();
}

// Column w of a rounded operator's fold table summed in one pass: out[w] for reductions (all
// rows), out[e * width + w] for every prefix e of a scan. (The device splits long columns into
// blocks of rows: cuda/verify_bodies.h.)
PPSIM_HD inline void exact_fold_column(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t w, FloatRef* out) {
  int64_t count, width;
  fold_shape(op, a, count, width);
  const bool scan = op == Operation::scan;
  ExactPart part;
  part.clear();
  exact_rows(op, k, in, a, w, 0, count, part, scan ? out : nullptr);
  if (!scan) out[w] = float_ref(k, part);
}

// Whether a rounded operator's word is within the error bound of summation: |got - s| <= (n - 1) u
// Σ|x| for the entry's n terms, with got - s = (got - want) - tail (exact but for rounding of the
// order of u relative to the error itself).
PPSIM_HD inline bool within_error_bound(OperatorKind k, uint64_t got, const FloatRef& r, int64_t terms) {
  const bool single = operator_single(k);
  if (!word_in_format(single, got)) return false;
  const double err = (word_value(single, got) - word_value(single, r.want)) - r.tail;
  return (err < 0 ? -err : err) <= double(terms - 1) * operator_format(k).unit_roundoff * r.abs_sum;  // false for NaN
}

// The word processor i must hold at offset `off` of the checked buffer (false: that word is not
// checked). `ref` is the folded table (fold_entry says which entry is the word's); unused by the
// operations without folds.
PPSIM_HD inline bool expected_word(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t i, int64_t off,
                                   const FoldRef& ref, uint64_t& want) {
  const int64_t p = a.p, m = a.m, root = a.root;
  switch (op) {
    case Operation::broadcast: want = input_word(k, in, root, off, m); return true;
    case Operation::reduce:
    case Operation::allreduce:
    case Operation::scan:
    case Operation::reduce_scatter: {
      const int64_t entry = fold_entry(op, a, i, off);
      if (entry < 0) return false;
      want = ref.want(entry);
      return true;
    }
    case Operation::allgather: want = input_word(k, in, off / m, off % m, m); return true;
    case Operation::gather:
      if (i != root) return false;
      want = input_word(k, in, off / m, off % m, m);
      return true;
    case Operation::scatter:
      if (off / m != i) return false;
      want = input_word(k, in, root, off, p * m);
      return true;
    case Operation::alltoall: want = input_word(k, in, off / m, i * m + off % m, p * m); return true;
    case Operation::multicast: want = multicast_rank(a, i) >= 0 ? input_word(k, in, root, off, m) : operator_unset(k); return true;
    case Operation::kbroadcast: want = input_word(k, in, (off / m) * kbroadcast_spacing(a), off % m, m); return true;
    case Operation::kscatter: want = input_word(k, in, (off / m) * kbroadcast_spacing(a), i * m + off % m, p * m); return true;
    case Operation::shift: want = input_word(k, in, pos_mod(i - a.shift, p), off, m); return true;
    case Operation::barrier: want = token_full(p); return true;  // it has heard from every processor
  }
  return false;
}

// The verdict on one word of the checked buffer: whether it is checked, whether it is right (equal
// to the reference, or for a rounded operator's folds within the error bound) and, for rounded
// operators, its distance in ulps from the exactly rounded reference.
struct WordCheck {
  bool checked = false, ok = true;
  uint64_t want = 0, ulps = 0;
};
PPSIM_HD inline WordCheck check_word(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t i, int64_t off,
                                     const FoldRef& ref, uint64_t got) {
  WordCheck v;
  if (!expected_word(op, k, in, a, i, off, ref, v.want)) return v;
  v.checked = true;
  v.ok = got == v.want;
  if (!operator_rounded(k)) return v;
  v.ulps = got == v.want ? 0 : ulp_distance(operator_single(k), got, v.want);
  const int64_t entry = fold_entry(op, a, i, off);
  if (entry >= 0) v.ok = within_error_bound(k, got, ref.exact_at(entry), fold_terms(op, a, entry));
  return v;
}

// A wrong word of a run with failures is missing when it is still the word it started with (its
// data never arrived), else wrong: the damage report's two counts, on the host and the device.
PPSIM_HD inline bool word_missing(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int32_t b, int64_t i, int64_t off,
                                  uint64_t got) {
  return got == operation_initial_word(op, k, in, a, b, i, off);
}

// Where an operation says processors hold the same words: the processor whose checked buffer
// processor i's must equal bit for bit (allreduce, allgather, kbroadcast: everyone's; broadcast and
// multicast: the root's copies), or -1. Rounded operators may differ here while each is verified:
// the run reports whether they agree.
PPSIM_HD inline bool operation_agrees(Operation op) {
  return op == Operation::allreduce || op == Operation::allgather || op == Operation::kbroadcast || op == Operation::broadcast ||
         op == Operation::multicast;
}
PPSIM_HD inline int64_t agreeing_with(Operation op, const AlgoParams& a, int64_t i) {
  switch (op) {
    case Operation::allreduce:
    case Operation::allgather:
    case Operation::kbroadcast: return 0;
    case Operation::broadcast: return a.root;
    case Operation::multicast: return multicast_rank(a, i) >= 0 ? a.root : -1;
    default: return -1;
  }
}

}  // namespace ppsim::rules
