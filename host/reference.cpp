// The sequential reference of every operation (docs/DESIGN.md §6): the words each processor's
// buffers must hold at the end (verify_rules.h says which and from what), with every fold run
// strictly left to right in processor order, so non-commutative operators check the order as well
// as the values.
#include <vector>

#include "ppsim/engine.h"
#include "verify_rules.h"

namespace ppsim {

void finish_verification(const RunConfig& c, RunResult& r) {
  if (!c.verify) return;
  Verification v = verify_buffers(c, r.buffers);
  r.mismatches = v.mismatches;
  r.first_mismatches = std::move(v.first);
  r.verified = v.mismatches == 0;
}

namespace {

// The fold table, folded in order: row 0 = rows 0..count-1 folded left to right (reductions), or
// row e = rows 0..e folded left to right (scans: every prefix kept). Empty when none is needed.
std::vector<uint64_t> sequential_fold(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op)) return {};
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

}  // namespace

Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs) {
  Verification v;
  const Operation op = c.algorithm->op;
  const int32_t b = rules::checked_buffer(op);
  const int64_t words = operation_buffer_words(op, b, c.params);
  const std::vector<uint64_t> fold = sequential_fold(c);
  const uint64_t* data = bufs[size_t(b)].data();
  for (int64_t i = 0; i < c.params.p; ++i)
    for (int64_t off = 0; off < words; ++off) {
      uint64_t want;
      if (!rules::expected_word(op, c.combine, c.input, c.params, i, off, fold.data(), want)) continue;
      const uint64_t got = data[i * words + off];
      if (got == want) continue;
      ++v.mismatches;
      if (v.first.size() < 10) v.first.push_back(Mismatch{b, i, off, want, got});
    }
  return v;
}

}  // namespace ppsim
