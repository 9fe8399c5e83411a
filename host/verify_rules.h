// What verification expects (docs/DESIGN.md §6), written once for both backends: for every
// operation, which buffer holds the result, which of its words are checked, and the value each
// must hold, computed from the operation's meaning and the inputs, never from the algorithm that
// ran. Reductions and prefixes read a fold table: its rows are the inputs (fold_input), folded in
// order — left to right by the host's sequential reference (reference.cpp), as an ordered tree
// (reductions) or a Hillis-Steele scan (prefixes) on the device (cuda/verify_bodies.h); for
// ppsim's associative operators both give the same words.
#pragma once
#include <cstdint>

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

// The word processor i must hold at offset `off` of the checked buffer (false: that word is not
// checked). `fold` is the folded table: row 0 (the whole fold) for reductions, every row (the
// prefixes) for scans; unused by the other operations.
PPSIM_HD inline bool expected_word(Operation op, OperatorKind k, const InputSpec& in, const AlgoParams& a, int64_t i, int64_t off,
                                   const uint64_t* fold, uint64_t& want) {
  const int64_t p = a.p, m = a.m, root = a.root;
  switch (op) {
    case Operation::broadcast: want = input_word(k, in, root, off, m); return true;
    case Operation::reduce:
      if (i != root) return false;
      want = fold[off];
      return true;
    case Operation::allreduce: want = fold[off]; return true;
    case Operation::allgather: want = input_word(k, in, off / m, off % m, m); return true;
    case Operation::gather:
      if (i != root) return false;
      want = input_word(k, in, off / m, off % m, m);
      return true;
    case Operation::scatter:
      if (off / m != i) return false;
      want = input_word(k, in, root, off, p * m);
      return true;
    case Operation::scan:
      if (off / m >= scan_count(a, i)) return false;
      want = fold[(scan_first(a, i) + off / m) * m + off % m];
      return true;
    case Operation::reduce_scatter: want = fold[i * m + off]; return true;
    case Operation::alltoall: want = input_word(k, in, off / m, i * m + off % m, p * m); return true;
    case Operation::multicast: want = multicast_rank(a, i) >= 0 ? input_word(k, in, root, off, m) : operator_unset(k); return true;
    case Operation::kbroadcast: want = input_word(k, in, (off / m) * kbroadcast_spacing(a), off % m, m); return true;
    case Operation::kscatter: want = input_word(k, in, (off / m) * kbroadcast_spacing(a), i * m + off % m, p * m); return true;
    case Operation::shift: want = input_word(k, in, pos_mod(i - a.shift, p), off, m); return true;
    case Operation::barrier: want = token_full(p); return true;  // it has heard from every processor
  }
  return false;
}

}  // namespace ppsim::rules
