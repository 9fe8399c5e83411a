// Verification where the buffers are (docs/DESIGN.md §6), for runs whose buffers stay on the
// device: the words verify_rules.h expects (the same rules as the host's verify_buffers), with the
// fold table folded as an ordered pairwise tree (reductions) or a Hillis-Steele scan (prefixes).
// Only the count of mismatching words is computed here; a run with mismatches is verified again on
// the host for the exact report.
#pragma once
#include <utility>

#include "round_bodies.h"
#include "verify_rules.h"

namespace ppsim {
namespace rounds {

// The fold table before folding: fold_input(x) for x in [0, count * width).
struct FoldInputBody {
  Operation op;
  OperatorKind k;
  InputSpec in;
  AlgoParams a;
  uint64_t* table;
  int64_t width;
  PPSIM_HD void operator()(int64_t x) const { table[x] = rules::fold_input(op, k, in, a, width, x); }
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

// Compares every word of the checked buffer that verify_rules.h checks with its expected value;
// counts the differences. `fold` is the folded table, null when not needed.
struct CheckBody {
  Ctx c;
  Operation op;
  InputSpec in;
  int32_t b;  // the buffer checked
  const uint64_t* fold;
  unsigned long long* mismatches;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t words = c.words(b), i = x / words, off = x % words;
    uint64_t want;
    if (rules::expected_word(op, c.op, in, c.a, i, off, fold, want) && c.bufs[b][x] != want) atomic_add(mismatches, 1ull);
  }
};

// The words of the fold table a verification needs (a scan needs two: it ping-pongs), 0 for
// operations checked against the inputs alone.
inline uint64_t verification_table_words(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op)) return 0;
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
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
  if (rules::needs_fold(op)) {
    int64_t count, width;
    rules::fold_shape(op, c.params, count, width);
    const uint64_t need = verification_table_words(c);
    uint64_t* table = spare;
    if (!spare || need > spare_words) {
      own.ensure(size_t(need));
      table = own.get();
    }
    exec.each(count * width, FoldInputBody{op, c.combine, c.input, c.params, table, width});
    if (op == Operation::scan) {
      uint64_t *from = table, *to = table + count * width;
      for (int64_t d = 1; d < count; d *= 2) {
        exec.each(count * width, ScanLevelBody{c.combine, from, to, width, d});
        std::swap(from, to);
      }
      fold = from;
    } else {
      for (int64_t d = 1; d < count; d *= 2)
        exec.each(((count + 2 * d - 1) / (2 * d)) * width, TreeFoldBody{c.combine, table, count, width, d});
      fold = table;
    }
  }
  counter.ensure(1);
  exec.zero(counter.get(), sizeof(unsigned long long));
  const int32_t b = rules::checked_buffer(op);
  exec.each(c.params.p * ctx.words(b), CheckBody{ctx, op, c.input, b, fold, counter.get()});
  unsigned long long n = 0;
  exec.download(&n, counter.get(), sizeof n);
  return (long long)n;
}

}  // namespace rounds
}  // namespace ppsim
