// The sequential reference of every operation (docs/DESIGN.md §6): the words each processor's
// buffers must hold at the end (verify_rules.h says which and from what), with every fold run
// strictly left to right in processor order, so non-commutative operators check the order as well
// as the values; rounded operators' folds are summed exactly instead.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ppsim/engine.h"
#include "rules/verify_rules.h"

namespace ppsim {

void record_verification(const RunConfig& c, Verification v, RunResult& r) {
  r.mismatches = v.mismatches;
  r.first_mismatches = std::move(v.first);
  r.verified = v.mismatches == 0;
  r.max_error_ulps = operator_rounded(c.combine) ? int64_t(std::min<uint64_t>(v.max_ulps, INT64_MAX)) : -1;
  r.results_agree = !rules::operation_agrees(c.algorithm->op) ? Agreement::not_applicable
                    : v.disagreements == 0                    ? Agreement::agree
                                                              : Agreement::differ;
}

void finish_verification(const RunConfig& c, RunResult& r) {
  if (c.verify) record_verification(c, verify_buffers(c, r.buffers), r);
}

namespace {

// The fold table, folded in order: row 0 = rows 0..count-1 folded left to right (reductions), or
// row e = rows 0..e folded left to right (scans: every prefix kept). Empty when none is needed.
std::vector<uint64_t> sequential_fold(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op) || operator_rounded(c.combine)) return {};
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
  const bool keep_rows = op == Operation::scan;
  std::vector<uint64_t> table(size_t(keep_rows ? count * width : width));
  auto input = [&](int64_t x) { return rules::fold_input(op, c.combine, c.input, c.params, width, x); };
  for (int64_t w = 0; w < width; ++w) table[size_t(w)] = input(w);
  for (int64_t row = 1; row < count; ++row) {
    uint64_t* out = table.data() + (keep_rows ? row * width : 0);
    const uint64_t* acc = table.data() + (keep_rows ? (row - 1) * width : 0);
    for (int64_t w = 0; w < width; ++w) out[w] = combine_dyn(c.combine, acc[w], input(row * width + w));
  }
  return table;
}

// A rounded operator's fold table summed exactly, column by column (verify_rules.h).
std::vector<rules::FloatRef> exact_folds(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op) || !operator_rounded(c.combine)) return {};
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
  std::vector<rules::FloatRef> table(size_t(op == Operation::scan ? count * width : width));
  for (int64_t w = 0; w < width; ++w) rules::exact_fold_column(op, c.combine, c.input, c.params, w, table.data());
  return table;
}

}  // namespace

Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs) {
  Verification v;
  const Operation op = c.algorithm->op;
  const int32_t b = rules::checked_buffer(op);
  const int64_t words = operation_buffer_words(op, b, c.params);
  const std::vector<uint64_t> fold = sequential_fold(c);
  const std::vector<rules::FloatRef> exact = exact_folds(c);
  const rules::FoldRef ref{fold.data(), exact.empty() ? nullptr : exact.data()};
  const uint64_t* data = bufs[size_t(b)].data();
  for (int64_t i = 0; i < c.params.p; ++i) {
    const int64_t peer = rules::agreeing_with(op, c.params, i);
    for (int64_t off = 0; off < words; ++off) {
      const uint64_t got = data[i * words + off];
      if (peer >= 0 && got != data[peer * words + off]) ++v.disagreements;
      const rules::WordCheck w = rules::check_word(op, c.combine, c.input, c.params, i, off, ref, got);
      v.max_ulps = std::max(v.max_ulps, w.ulps);
      if (w.ok) continue;
      ++v.mismatches;
      if (v.first.size() < 10) v.first.push_back(Mismatch{b, i, off, w.want, got});
    }
  }
  return v;
}

}  // namespace ppsim
