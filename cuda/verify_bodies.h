// Verification where the buffers are (DESIGN.md §6), for runs whose buffers stay on the device:
// the same expected words as verify_buffers (host/reference.cpp), computed from the operation's
// meaning and the inputs, never from the algorithm that ran. Folds are ordered pairwise trees
// (reductions) and Hillis-Steele scans (prefixes) over the inputs: for the associative operators
// of ppsim these give the same words as the host's left-to-right folds, order included.
// Only the count of mismatching words is computed here; a run with mismatches is verified again on
// the host for the exact report.
#pragma once
#include <utility>

#include "round_bodies.h"

namespace ppsim {
namespace rounds {

// The table a fold starts from: fold_input(x) for x in [0, count * width), row-major [count][width].
//   reduce, allreduce: row i = processor i's m words;
//   reduce_scatter:    row j = processor j's p*m words (block i of the fold is processor i's result);
//   scan:              row e = element e's m words (exclusive: the identity, then elements 0..n-2).
PPSIM_HD inline void fold_shape(Operation op, const AlgoParams& a, int64_t& count, int64_t& width) {
  count = a.p;
  width = a.m;
  if (op == Operation::reduce_scatter) width = a.p * a.m;
  if (op == Operation::scan) count = scan_elements(a);
}

struct FoldInputBody {
  Operation op;
  OperatorKind k;
  InputSpec in;
  AlgoParams a;
  uint64_t* table;
  PPSIM_HD void operator()(int64_t x) const {
    int64_t count, width;
    fold_shape(op, a, count, width);
    const int64_t row = x / width, w = x % width;
    if (op == Operation::scan && a.exclusive) {
      table[x] = row == 0 ? operator_identity(k) : input_word(k, in, row - 1, w, a.m);
      return;
    }
    table[x] = input_word(k, in, row, w, op == Operation::reduce_scatter ? a.p * a.m : a.m);
  }
};

// One level of an ordered tree fold: row i (a multiple of 2d) absorbs row i + d on its right.
// After the levels d = 1, 2, 4, ... < count, row 0 holds row 0 ⊕ row 1 ⊕ ... ⊕ row count-1.
struct TreeFoldBody {
  OperatorKind k;
  uint64_t* table;
  int64_t count, width, d;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t i = (x / width) * 2 * d, w = x % width;
    if (i + d < count) table[i * width + w] = combine_dyn(k, table[i * width + w], table[(i + d) * width + w]);
  }
};

// One level of a Hillis-Steele inclusive scan, from `in` to `out`: row e becomes
// in[e - d] ⊕ in[e] (rows e < d are copied). After the levels d = 1, 2, 4, ... < count,
// row e holds row 0 ⊕ ... ⊕ row e.
struct ScanLevelBody {
  OperatorKind k;
  const uint64_t* in;
  uint64_t* out;
  int64_t width, d;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t e = x / width;
    out[x] = e >= d ? combine_dyn(k, in[x - d * width], in[x]) : in[x];
  }
};

// Compares every word verify_buffers checks with its expected value; counts the differences.
// `fold` is the folded table (row 0 for reductions, every row for scans), null when not needed.
struct CheckBody {
  Ctx c;
  Operation op;
  InputSpec in;
  int32_t b;  // the buffer checked
  const uint64_t* fold;
  unsigned long long* mismatches;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t p = c.a.p, m = c.a.m, root = c.a.root, words = c.words[b];
    const int64_t i = x / words, off = x % words;
    const OperatorKind k = c.op;
    uint64_t want = 0;
    switch (op) {
      case Operation::broadcast: want = input_word(k, in, root, off, m); break;
      case Operation::reduce:
      case Operation::allreduce:
        if (op == Operation::reduce && i != root) return;
        want = fold[off];
        break;
      case Operation::allgather: want = input_word(k, in, off / m, off % m, m); break;
      case Operation::gather:
        if (i != root) return;
        want = input_word(k, in, off / m, off % m, m);
        break;
      case Operation::scatter:
        if (off / m != i) return;
        want = input_word(k, in, root, off, p * m);
        break;
      case Operation::scan:
        if (off / m >= scan_count(c.a, i)) return;
        want = fold[(scan_first(c.a, i) + off / m) * m + off % m];
        break;
      case Operation::reduce_scatter: want = fold[i * m + off]; break;
      case Operation::alltoall: want = input_word(k, in, off / m, i * m + off % m, p * m); break;
      case Operation::multicast: want = multicast_rank(c.a, i) >= 0 ? input_word(k, in, root, off, m) : operator_unset(k); break;
      case Operation::kbroadcast: want = input_word(k, in, (off / m) * kbroadcast_spacing(c.a), off % m, m); break;
      case Operation::kscatter: want = input_word(k, in, (off / m) * kbroadcast_spacing(c.a), i * m + off % m, p * m); break;
      case Operation::shift: want = input_word(k, in, pos_mod(i - c.a.shift, p), off, m); break;
    }
    if (c.bufs[b][x] != want) atomic_add(mismatches, 1ull);
  }
};

// The buffer verify_buffers checks for an operation.
inline int32_t checked_buffer(Operation op) {
  switch (op) {
    case Operation::reduce_scatter: case Operation::alltoall: case Operation::kscatter: case Operation::shift: return kResult;
    default: return kData;
  }
}

inline bool needs_fold(Operation op) {
  return op == Operation::reduce || op == Operation::allreduce || op == Operation::reduce_scatter || op == Operation::scan;
}

// The words of the fold table a verification needs (a scan needs two: it ping-pongs), 0 for
// operations checked against the inputs alone.
inline uint64_t verification_table_words(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (!needs_fold(op)) return 0;
  int64_t count, width;
  fold_shape(op, c.params, count, width);
  return uint64_t(count * width) * (op == Operation::scan ? 2 : 1);
}

// The number of words that differ from the reference, computed by the executor's bodies. The
// fold table lives in `spare` (spare_words words no longer needed: the run's message pool) when it
// fits there, else in memory of its own.
template <class Exec>
long long count_mismatches(const RunConfig& c, Exec& exec, const Ctx& ctx, uint64_t* spare = nullptr, uint64_t spare_words = 0) {
  const Operation op = c.algorithm->op;
  typename Exec::template Array<uint64_t> own;
  typename Exec::template Array<unsigned long long> counter;
  const uint64_t* fold = nullptr;
  if (needs_fold(op)) {
    int64_t count, width;
    fold_shape(op, c.params, count, width);
    const uint64_t need = verification_table_words(c);
    uint64_t* table = spare;
    if (!spare || need > spare_words) {
      own.ensure(size_t(need));
      table = own.get();
    }
    exec.each(count * width, FoldInputBody{op, c.combine, c.input, c.params, table});
    if (op == Operation::scan) {
      uint64_t *from = table, *to = table + count * width;
      for (int64_t d = 1; d < count; d *= 2) {
        exec.each(count * width, ScanLevelBody{c.combine, from, to, width, d});
        std::swap(from, to);
      }
      fold = from;
    } else {
      for (int64_t d = 1; d < count; d *= 2) exec.each(((count + 2 * d - 1) / (2 * d)) * width, TreeFoldBody{c.combine, table, count, width, d});
      fold = table;
    }
  }
  counter.ensure(1);
  exec.zero(counter.get(), sizeof(unsigned long long));
  const int32_t b = checked_buffer(op);
  exec.each(c.params.p * ctx.words[b], CheckBody{ctx, op, c.input, b, fold, counter.get()});
  unsigned long long n = 0;
  exec.download(&n, counter.get(), sizeof n);
  return (long long)n;
}

}  // namespace rounds
}  // namespace ppsim
