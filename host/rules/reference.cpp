// The sequential reference of every operation (docs/DESIGN.md §6): the words each processor's
// buffers must hold at the end (verify_rules.h says which and from what), with every fold run
// strictly left to right in processor order, so non-commutative operators check the order as well
// as the values; rounded operators' folds are summed exactly instead.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(PPSIM_HAVE_OPENMP)
#include <omp.h>
#endif

#include "ppsim/engine.h"
#include "ppsim/partition.h"
#include "rules/processor_check.h"
#include "rules/verify_rules.h"

namespace ppsim {

void record_verification(const RunConfig& c, Verification v, RunResult& r) {
  r.mismatches = v.mismatches;
  r.first_mismatches = std::move(v.first);
  r.damage = std::move(v.damage);
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

namespace {

// Processors [lo, hi)'s words of the checked buffer (data: theirs, from processor lo on) against
// the reference; peer_words(i) is the checked buffer of the processor i must agree with.
template <class PeerWords>
void verify_range(const RunConfig& c, const uint64_t* data, int64_t lo, int64_t hi, const rules::FoldRef& ref, PeerWords&& peer_words,
                  Verification& v) {
  const Operation op = c.algorithm->op;
  const int32_t b = rules::checked_buffer(op);
  const int64_t words = operation_buffer_words(op, b, c.params);
  const bool damage = c.failures.any();
  for (int64_t i = lo; i < hi; ++i) {
    const int64_t peer = rules::agreeing_with(op, c.params, i);
    const uint64_t* peer_data = peer >= 0 ? peer_words(peer) : nullptr;
    Damage d{i, 0, 0};
    for (int64_t off = 0; off < words; ++off) {
      const uint64_t got = data[(i - lo) * words + off];
      if (peer_data && got != peer_data[off]) ++v.disagreements;
      const rules::WordCheck w = rules::check_word(op, c.combine, c.input, c.params, i, off, ref, got);
      v.max_ulps = std::max(v.max_ulps, w.ulps);
      if (w.ok) continue;
      ++v.mismatches;
      if (v.first.size() < 10) v.first.push_back(Mismatch{b, i, off, w.want, got});
      if (damage) ++(rules::word_missing(op, c.combine, c.input, c.params, b, i, off, got) ? d.missing : d.wrong);
    }
    if (d.missing + d.wrong > 0) v.damage.push_back(d);
  }
}

// A whole run's reference: its checked buffer, and the fold tables its words are checked against.
struct RunReference {
  explicit RunReference(const RunConfig& c)
      : op(c.algorithm->op), b(rules::checked_buffer(op)), words(operation_buffer_words(op, b, c.params)), fold(sequential_fold(c)),
        exact(exact_folds(c)) {}
  rules::FoldRef ref() const { return rules::FoldRef{fold.data(), exact.empty() ? nullptr : exact.data(), 0}; }
  const Operation op;
  const int32_t b;
  const int64_t words;
  const std::vector<uint64_t> fold;
  const std::vector<rules::FloatRef> exact;
};

}  // namespace

// The processors checked in parts on c.threads threads (a run with failures counts the damage of
// every processor: at p = 2^20 that took longer than a device run), the parts joined in processor
// order: the same figures and the same first mismatches as one pass.
Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs) {
  const RunReference r(c);
  const uint64_t* data = bufs[size_t(r.b)].data();
  const rules::FoldRef ref = r.ref();
  auto peer_words = [&](int64_t peer) { return data + peer * r.words; };
  const int64_t p = c.params.p;
  int parts = 1;
#if defined(PPSIM_HAVE_OPENMP)
  const int64_t worth = std::max<int64_t>(1, p * r.words / 65536);  // a part's words worth a thread's start
  parts = int(std::min<int64_t>({c.threads > 0 ? c.threads : omp_get_max_threads(), worth, p}));
#endif
  std::vector<Verification> part(size_t(std::max(1, parts)));
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
#endif
  for (int k = 0; k < parts; ++k)
    verify_range(c, data + block_begin(p, k, parts) * r.words, block_begin(p, k, parts), block_end(p, k, parts), ref, peer_words,
                 part[size_t(k)]);
  Verification v = std::move(part[0]);
  for (size_t k = 1; k < part.size(); ++k) {
    Verification& x = part[k];
    v.mismatches += x.mismatches;
    v.disagreements += x.disagreements;
    v.max_ulps = std::max(v.max_ulps, x.max_ulps);
    for (size_t n = 0; n < x.first.size() && v.first.size() < 10; ++n) v.first.push_back(x.first[n]);
    v.damage.insert(v.damage.end(), x.damage.begin(), x.damage.end());
  }
  return v;
}

std::vector<ProcessorCheck> check_processors(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs,
                                             const std::vector<int64_t>& procs, int64_t max_words) {
  const RunReference r(c);
  const rules::FoldRef ref = r.ref();
  const std::vector<uint64_t>& data = bufs[size_t(r.b)];
  std::vector<ProcessorCheck> out;
  for (int64_t i : procs) {
    ProcessorCheck pc{i, r.b, 0, {}};
    for (int64_t off = 0; off < r.words; ++off) {
      const uint64_t got = data[size_t(i * r.words + off)];
      const rules::WordCheck w = rules::check_word(r.op, c.combine, c.input, c.params, i, off, ref, got);
      if (!w.ok) ++pc.mismatches;
      if (off < max_words) pc.expected.push_back(w.checked ? w.want : got);
    }
    out.push_back(std::move(pc));
  }
  return out;
}

// ---- a run split across ranks: each verifies its block ----

namespace {

// Rank-ordered folds of the blocks: every rank's (nonempty) fold of its rows, gathered and folded in
// rank order; the rows of the ranks before this one (`before`, empty for the first) and of all.
struct BlockFolds {
  std::vector<uint64_t> before, all;
};
BlockFolds fold_blocks(Collectives& comm, OperatorKind k, const std::vector<uint64_t>& mine, int64_t width) {
  std::vector<uint64_t> sent = mine;
  sent.insert(sent.begin(), mine.empty() ? 0 : 1);
  const std::vector<std::vector<uint64_t>> all = comm.allgather(sent);
  BlockFolds f;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) f.before = f.all;
    const std::vector<uint64_t>& g = all[size_t(r)];
    if (g[0] == 0) continue;
    if (f.all.empty()) f.all.assign(g.begin() + 1, g.end());
    else
      for (int64_t w = 0; w < width; ++w) f.all[size_t(w)] = combine_dyn(k, f.all[size_t(w)], g[size_t(1 + w)]);
  }
  return f;
}

// The same for a rounded operator's exact parts (one per column): summed in rank order.
std::vector<rules::ExactPart> sum_parts(Collectives& comm, const std::vector<rules::ExactPart>& mine, bool before_only) {
  const size_t part_words = (sizeof(rules::ExactPart) + 7) / 8;
  std::vector<uint64_t> sent(mine.size() * part_words, 0);
  std::memcpy(sent.data(), mine.data(), mine.size() * sizeof(rules::ExactPart));
  const std::vector<std::vector<uint64_t>> all = comm.allgather(sent);
  std::vector<rules::ExactPart> sum(mine.size());
  for (auto& part : sum) part.clear();
  const int last = before_only ? comm.rank() : comm.size();
  for (int r = 0; r < last; ++r)
    for (size_t w = 0; w < mine.size(); ++w) {
      rules::ExactPart part;
      std::memcpy(&part, all[size_t(r)].data() + w * part_words, sizeof(part));
      sum[w].add(part);
    }
  for (auto& part : sum) part.sum.settle();
  return sum;
}

// The fold entries block [lo, hi) checks, as the sequential reference has them: ordered folds
// (fold) or exact sums (exact), from entry `base` on.
struct BlockRef {
  std::vector<uint64_t> fold;
  std::vector<rules::FloatRef> exact;
  int64_t base = 0;
};
BlockRef block_reference(const RunConfig& c, Collectives& comm, int64_t lo, int64_t hi) {
  BlockRef ref;
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op)) return ref;
  const OperatorKind k = c.combine;
  const bool rounded = operator_rounded(k);
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
  auto input = [&](int64_t x) { return rules::fold_input(op, k, c.input, c.params, width, x); };
  if (op == Operation::reduce_scatter) {  // this block's columns, over every row: nothing to exchange
    const int64_t m = c.params.m, first = lo * m, cols = (hi - lo) * m;
    ref.base = first;
    if (rounded) {
      ref.exact.resize(size_t(cols));
      for (int64_t w = 0; w < cols; ++w) {
        rules::ExactPart part;
        part.clear();
        rules::exact_rows(op, k, c.input, c.params, first + w, 0, count, part, nullptr);
        ref.exact[size_t(w)] = rules::float_ref(k, part);
      }
      return ref;
    }
    ref.fold.resize(size_t(cols));
    for (int64_t w = 0; w < cols; ++w) {
      uint64_t acc = input(first + w);
      for (int64_t row = 1; row < count; ++row) acc = combine_dyn(k, acc, input(row * width + first + w));
      ref.fold[size_t(w)] = acc;
    }
    return ref;
  }
  // Reductions: this block's rows are its processors; scans: its processors' elements.
  const bool scan = op == Operation::scan;
  const int64_t r0 = scan ? scan_first(c.params, lo) : lo, r1 = scan ? scan_first(c.params, hi) : hi;
  if (rounded) {
    std::vector<rules::ExactPart> mine(static_cast<size_t>(width));
    for (int64_t w = 0; w < width; ++w) {
      mine[size_t(w)].clear();
      rules::exact_rows(op, k, c.input, c.params, w, r0, r1, mine[size_t(w)], nullptr);
    }
    std::vector<rules::ExactPart> carry = sum_parts(comm, mine, scan);
    if (!scan) {
      ref.exact.resize(size_t(width));
      for (int64_t w = 0; w < width; ++w) ref.exact[size_t(w)] = rules::float_ref(k, carry[size_t(w)]);
      return ref;
    }
    ref.base = r0 * width;
    ref.exact.resize(size_t((r1 - r0) * width));
    for (int64_t w = 0; w < width; ++w) rules::exact_rows(op, k, c.input, c.params, w, r0, r1, carry[size_t(w)], ref.exact.data(), ref.base);
    return ref;
  }
  // Ordered operators: the block's rows folded left to right (every prefix kept for scans), then
  // the folds of the blocks before it (scans) or of all blocks (reductions), in rank order.
  std::vector<uint64_t> rows(size_t((r1 - r0) * width));
  for (int64_t row = r0; row < r1; ++row)
    for (int64_t w = 0; w < width; ++w) {
      const uint64_t x = input(row * width + w);
      uint64_t& out = rows[size_t((row - r0) * width + w)];
      out = row == r0 ? x : combine_dyn(k, rows[size_t((row - r0 - 1) * width + w)], x);
    }
  std::vector<uint64_t> mine;
  if (r1 > r0) mine.assign(rows.end() - width, rows.end());
  const BlockFolds f = fold_blocks(comm, k, mine, width);
  if (!scan) {
    ref.fold = f.all;
    return ref;
  }
  ref.base = r0 * width;
  if (!f.before.empty())
    for (int64_t x = 0; x < int64_t(rows.size()); ++x) rows[size_t(x)] = combine_dyn(k, f.before[size_t(x % width)], rows[size_t(x)]);
  ref.fold = std::move(rows);
  return ref;
}

}  // namespace

Verification verify_block(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs, Collectives& comm) {
  Verification v;
  const Operation op = c.algorithm->op;
  const int32_t b = rules::checked_buffer(op);
  const int64_t words = operation_buffer_words(op, b, c.params), procs = run_processors(c), p = c.params.p;
  const int ranks = comm.size();
  const int64_t lo = std::min(p, block_begin(procs, comm.rank(), ranks)), hi = std::min(p, block_end(procs, comm.rank(), ranks));
  const BlockRef block = block_reference(c, comm, lo, hi);
  const rules::FoldRef ref{block.fold.data(), block.exact.empty() ? nullptr : block.exact.data(), block.base};
  const uint64_t* data = bufs[size_t(b)].data();
  // The processor every other agrees with (the first or the root) sends its words to all.
  std::vector<uint64_t> peer;
  int64_t peer_id = -1;
  if (rules::operation_agrees(op)) {
    peer_id = op == Operation::broadcast || op == Operation::multicast ? c.params.root : 0;
    const int owner = block_owner(procs, peer_id, ranks);
    if (comm.rank() == owner) peer.assign(data + (peer_id - lo) * words, data + (peer_id - lo + 1) * words);
    comm.broadcast(peer, owner);
  }
  verify_range(c, data, lo, hi, ref, [&](int64_t) { return peer.data(); }, v);
  // The figures over all ranks: counts summed, the largest error, the first ten mismatches in
  // processor order (ranks hold processors in order).
  int64_t sums[2] = {v.mismatches, v.disagreements};
  comm.sum(sums, 2);
  int64_t ulps[1] = {-int64_t(std::min<uint64_t>(v.max_ulps, INT64_MAX))};
  comm.min(ulps, 1);
  std::vector<uint64_t> first;
  for (const Mismatch& x : v.first) first.insert(first.end(), {uint64_t(x.buf), uint64_t(x.proc), uint64_t(x.word), x.expected, x.got});
  const std::vector<std::vector<uint64_t>> all = comm.allgather(first);
  v.first.clear();
  for (const auto& g : all)
    for (size_t i = 0; i + 5 <= g.size() && v.first.size() < 10; i += 5)
      v.first.push_back(Mismatch{int32_t(g[i]), int64_t(g[i + 1]), int64_t(g[i + 2]), g[i + 3], g[i + 4]});
  v.mismatches = sums[0];
  v.disagreements = sums[1];
  v.max_ulps = uint64_t(-ulps[0]);
  return v;
}

}  // namespace ppsim
