// Verification where the buffers are (docs/DESIGN.md §6), for runs whose buffers stay on the
// device: the words verify_rules.h expects (the same rules as the host's verify_buffers), with the
// fold table folded as an ordered pairwise tree (reductions) or a Hillis-Steele scan (prefixes),
// or for rounded operators summed exactly (verify_rules.h's exact_rows, as on the host), long
// columns in blocks of rows summed at once and then joined. Only the counts (mismatching words, words where processors
// that should agree differ) and the largest error in ulps are computed here; a run with mismatches
// is verified again on the host for the exact report.
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

#include "ppsim/verify.h"
#include "round_bodies.h"
#include "rules/verify_rules.h"

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

// Levels of an ordered tree fold: at level d, row i (a multiple of 2d) absorbs row i + d on its
// right; after the levels d = 1, 2, 4, ... < count, row 0 holds row 0 ⊕ row 1 ⊕ ... ⊕ row
// count-1. One pass does the levels d, 2d, ..., d 2^(levels - 1): each thread folds one subtree of
// 2^levels rows of one column (from row (x / width) d 2^levels), level by level, so the words are
// those of one pass a level.
struct TreeFoldBody {
  OperatorKind k;
  uint64_t* table;
  int64_t count, width, d;
  int levels;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t span = d << levels, first = (x / width) * span, w = x % width;
    for (int64_t dd = d; dd < span; dd *= 2)
      for (int64_t i = first; i < first + span && i + dd < count; i += 2 * dd)
        table[i * width + w] = combine_dyn(k, table[i * width + w], table[(i + dd) * width + w]);
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

// A rounded operator's table is summed column by column; a long column in blocks of rows, each
// summed by one thread into an ExactPart and then joined, so that a column of millions of rows is
// not one thread's sequential work. Blocks: as many as give each a few hundred rows, with at most
// kMaxExactParts parts held at once (about 38 MB).
inline constexpr int64_t kExactRowsPerBlock = 256, kMaxExactParts = int64_t{1} << 16;
struct ExactPlan {
  int64_t count, width, rows_per_block, blocks;
};
inline ExactPlan exact_plan(const RunConfig& c) {
  ExactPlan e;
  rules::fold_shape(c.algorithm->op, c.params, e.count, e.width);
  const int64_t want = (e.count + kExactRowsPerBlock - 1) / kExactRowsPerBlock;
  const int64_t blocks = std::max<int64_t>(1, std::min(want, kMaxExactParts / e.width));
  e.rows_per_block = (e.count + blocks - 1) / blocks;
  e.blocks = (e.count + e.rows_per_block - 1) / e.rows_per_block;
  return e;
}

// Column w summed by one thread (one block: short columns).
struct ExactColumnBody {
  Operation op;
  OperatorKind k;
  InputSpec in;
  AlgoParams a;
  rules::FloatRef* out;
  PPSIM_HD void operator()(int64_t w) const { rules::exact_fold_column(op, k, in, a, w, out); }
};

// Block b of column w (x = b * width + w): its rows summed into parts[x].
struct ExactPartBody {
  Operation op;
  OperatorKind k;
  InputSpec in;
  AlgoParams a;
  ExactPlan e;
  rules::ExactPart* parts;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t b = x / e.width, begin = b * e.rows_per_block,
                  end = begin + e.rows_per_block < e.count ? begin + e.rows_per_block : e.count;
    parts[x].clear();
    rules::exact_rows(op, k, in, a, x % e.width, begin, end, parts[x], nullptr);
  }
};

// Reductions: column w's blocks joined into block 0's part, and its reference.
struct ExactJoinBody {
  OperatorKind k;
  ExactPlan e;
  rules::ExactPart* parts;
  rules::FloatRef* out;
  PPSIM_HD void operator()(int64_t w) const {
    for (int64_t b = 1; b < e.blocks; ++b) parts[w].add(parts[b * e.width + w]);
    out[w] = rules::float_ref(k, parts[w]);
  }
};

// Scans: column w's parts turned into running sums, block b's part holding blocks 0..b.
struct ExactRunningBody {
  ExactPlan e;
  rules::ExactPart* parts;
  PPSIM_HD void operator()(int64_t w) const {
    for (int64_t b = 1; b < e.blocks; ++b) {
      parts[b * e.width + w].add(parts[(b - 1) * e.width + w]);
      parts[b * e.width + w].sum.settle();
    }
  }
};

// Scans: block b of column w walked again from the sum of the blocks before it, the reference of
// every prefix written.
struct ExactPrefixBody {
  Operation op;
  OperatorKind k;
  InputSpec in;
  AlgoParams a;
  ExactPlan e;
  const rules::ExactPart* parts;
  rules::FloatRef* out;
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t b = x / e.width, w = x % e.width, begin = b * e.rows_per_block;
    const int64_t end = begin + e.rows_per_block < e.count ? begin + e.rows_per_block : e.count;
    rules::ExactPart run;
    if (b > 0) run = parts[x - e.width];
    else run.clear();
    rules::exact_rows(op, k, in, a, w, begin, end, run, out);
  }
};

// A verification's damage counts (a run with failures), in one array: each processor's missing
// words [0, p), its wrong words [p, 2p), then a flag per block of kDamageBlock processors that
// has any, so that only the counts of damaged blocks come back (at p = 2^20, bringing all 16 MB
// back to the host cost a third of the run).
inline constexpr int64_t kDamageBlock = 1024;
inline int64_t damage_counts(int64_t p) { return 2 * p + (p + kDamageBlock - 1) / kDamageBlock; }

// What the check of the words counts: kMismatches, kMaxUlps (a maximum), kDisagreements.
enum Tally { kMismatches, kMaxUlps, kDisagreements, kTallies };

// Checks every word of the checked buffer as verify_rules.h's check_word says and compares it with
// the word the operation says it agrees with.
struct CheckBody {
  Ctx c;
  Operation op;
  InputSpec in;
  int32_t b;  // the buffer checked
  rules::FoldRef ref;
  unsigned long long* tally;   // [kTallies]
  unsigned long long* damage;  // with failures: damage_counts(p) counters, laid out as above (else null)
  PPSIM_HD void operator()(int64_t x) const {
    const int64_t words = c.words(b), i = x / words, off = x % words, peer = rules::agreeing_with(op, c.a, i);
    const uint64_t got = c.bufs[b][x];
    const rules::WordCheck v = rules::check_word(op, c.op, in, c.a, i, off, ref, got);
    if (!v.ok) atomic_add(&tally[kMismatches], 1ull);
    if (!v.ok && damage) {
      atomic_add(&damage[rules::word_missing(op, c.op, in, c.a, b, i, off, got) ? i : c.a.p + i], 1ull);
      unsigned long long* flag = &damage[2 * c.a.p + i / kDamageBlock];
      if (atomic_load(flag) == 0) atomic_max(flag, 1ull);  // read first: all 1,024 of a block's threads would queue on it
    }
    if (v.ulps > 0) atomic_max(&tally[kMaxUlps], v.ulps);
    if (peer >= 0 && got != c.bufs[b][peer * words + off]) atomic_add(&tally[kDisagreements], 1ull);
  }
};

// The first mismatching words (at most kFirstMismatches) of each of a few processors, in word
// order: the examples a report gives, found where the buffers are.
inline constexpr int kFirstMismatches = 10;
struct FirstMismatchBody {
  Ctx c;
  Operation op;
  InputSpec in;
  int32_t b;
  rules::FoldRef ref;
  const int64_t* procs;
  Mismatch* out;  // [kFirstMismatches] per processor; proc = -1 where fewer
  PPSIM_HD void operator()(int64_t k) const {
    const int64_t i = procs[k], words = c.words(b);
    int n = 0;
    for (int64_t off = 0; off < words && n < kFirstMismatches; ++off) {
      const uint64_t got = c.bufs[b][i * words + off];
      const rules::WordCheck v = rules::check_word(op, c.op, in, c.a, i, off, ref, got);
      if (!v.ok) out[k * kFirstMismatches + n++] = Mismatch{b, i, off, v.want, got};
    }
    for (; n < kFirstMismatches; ++n) out[k * kFirstMismatches + n] = Mismatch{b, -1, 0, 0, 0};
  }
};

// The words of the fold table a verification needs (a scan needs two: it ping-pongs; a rounded
// operator a FloatRef per entry kept, and its parts when columns are split into blocks), 0 for
// operations checked against the inputs alone.
inline uint64_t verification_table_words(const RunConfig& c) {
  static_assert(sizeof(rules::FloatRef) % 8 == 0 && sizeof(rules::ExactPart) % 8 == 0, "the table is a whole number of words");
  const Operation op = c.algorithm->op;
  if (!rules::needs_fold(op)) return 0;
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
  if (operator_rounded(c.combine)) {
    const ExactPlan e = exact_plan(c);
    const uint64_t refs = uint64_t(op == Operation::scan ? count * width : width) * (sizeof(rules::FloatRef) / 8);
    return refs + (e.blocks > 1 ? uint64_t(e.blocks * width) * (sizeof(rules::ExactPart) / 8) : 0);
  }
  return uint64_t(count * width) * (op == Operation::scan ? 2 : 1);
}

// A rounded operator's references in `table`: the FloatRefs first, then the blocks' parts.
template <class Exec>
rules::FloatRef* exact_reference(const RunConfig& c, Exec& exec, uint64_t* table) {
  const Operation op = c.algorithm->op;
  const ExactPlan e = exact_plan(c);
  rules::FloatRef* refs = reinterpret_cast<rules::FloatRef*>(table);
  if (e.blocks == 1) {
    exec.each(e.width, ExactColumnBody{op, c.combine, c.input, c.params, refs});
    return refs;
  }
  const int64_t nrefs = op == Operation::scan ? e.count * e.width : e.width;
  rules::ExactPart* parts = reinterpret_cast<rules::ExactPart*>(table + nrefs * int64_t(sizeof(rules::FloatRef) / 8));
  exec.each(e.blocks * e.width, ExactPartBody{op, c.combine, c.input, c.params, e, parts});
  if (op == Operation::scan) {
    exec.each(e.width, ExactRunningBody{e, parts});
    exec.each(e.blocks * e.width, ExactPrefixBody{op, c.combine, c.input, c.params, e, parts, refs});
  } else {
    exec.each(e.width, ExactJoinBody{c.combine, e, parts, refs});
  }
  return refs;
}

// Levels of the tree fold a pass folds: each thread folds 2^kFoldLevels rows of a column.
inline constexpr int kFoldLevels = 7;

// The reference a verification reads, computed in `table` (verification_table_words(c) words):
// the exact sums of a rounded operator, or the folded table of the others (a scan ping-pongs
// between the table's two halves).
template <class Exec>
rules::FoldRef fold_reference(const RunConfig& c, Exec& exec, uint64_t* table) {
  const Operation op = c.algorithm->op;
  int64_t count, width;
  rules::fold_shape(op, c.params, count, width);
  rules::FoldRef ref;
  if (operator_rounded(c.combine)) {
    ref.exact = exact_reference(c, exec, table);
    return ref;
  }
  exec.each(count * width, FoldInputBody{op, c.combine, c.input, c.params, table, width});
  if (op == Operation::scan) {
    uint64_t *from = table, *to = table + count * width;
    for (int64_t d = 1; d < count; d *= 2) {
      exec.each(count * width, ScanLevelBody{c.combine, from, to, width, d});
      std::swap(from, to);
    }
    ref.fold = from;
  } else {
    // kFoldLevels levels a pass (a run of 2^20 processors: 3 launches, not 20)
    for (int64_t d = 1; d < count; d <<= kFoldLevels)
      exec.each(((count + (d << kFoldLevels) - 1) / (d << kFoldLevels)) * width, TreeFoldBody{c.combine, table, count, width, d, kFoldLevels});
    ref.fold = table;
  }
  return ref;
}

// The executor memory a verification with `damage` takes besides the table and the tallies: the
// per-processor counts, and the first mismatches of up to kFirstMismatches processors.
inline uint64_t damage_bytes(const RunConfig& c) {
  return uint64_t(damage_counts(c.params.p)) * sizeof(unsigned long long) + kFirstMismatches * (sizeof(int64_t) + kFirstMismatches * sizeof(Mismatch));
}

// A verification queued on the executor: its kernels are on their way, its tallies land in
// `tally` (kTallies words of executor memory), and its arrays live until it is finished.
template <class Exec>
struct QueuedCheck {
  typename Exec::template Array<uint64_t> own;               // the fold table, where the spare space is too small
  typename Exec::template Array<unsigned long long> counter;  // the tallies, where the caller gave no place for them
  typename Exec::template Array<unsigned long long> per_proc;
  rules::FoldRef ref;
  unsigned long long* tally = nullptr;
  bool damage = false;
};

// Queues the verification's counts (without `damage` no examples: Verification::first stays
// empty), computed by the executor's bodies, into `tally` (zeroed by the caller; null: memory of
// its own). The fold
// table lives in `spare` (spare_words words no longer needed: the run's message pool) when it fits
// there, else in memory of its own. With `damage` (a run with failures) the counts also give every
// damaged processor's missing and wrong words, for finish_check.
template <class Exec>
void queue_check(QueuedCheck<Exec>& q, const RunConfig& c, Exec& exec, const Ctx& ctx, uint64_t* spare, uint64_t spare_words, bool damage,
                 unsigned long long* tally) {
  const Operation op = c.algorithm->op;
  if (rules::needs_fold(op)) {
    const uint64_t need = verification_table_words(c);
    uint64_t* table = spare;
    if (!spare || need > spare_words) {
      q.own.ensure(size_t(need));
      table = q.own.get();
    }
    q.ref = fold_reference(c, exec, table);
  }
  if (!tally) {
    q.counter.ensure(kTallies);
    tally = q.counter.get();
    exec.zero(tally, kTallies * sizeof(unsigned long long));
  }
  q.tally = tally;
  q.damage = damage;
  const int32_t b = rules::checked_buffer(op);
  const int64_t p = c.params.p;
  if (damage) {
    q.per_proc.ensure(size_t(damage_counts(p)));
    exec.zero(q.per_proc.get(), size_t(damage_counts(p)) * sizeof(unsigned long long));
  }
  exec.each(p * ctx.words(b), CheckBody{ctx, op, c.input, b, q.ref, tally, damage ? q.per_proc.get() : nullptr});
}

// The verification from its tallies n (read back by the caller), and with damage its listing
// (which reads back only the damaged processors' counts).
template <class Exec>
Verification finish_check(QueuedCheck<Exec>& q, const RunConfig& c, Exec& exec, const Ctx& ctx, const unsigned long long* n) {
  const Operation op = c.algorithm->op;
  const int32_t b = rules::checked_buffer(op);
  const rules::FoldRef& ref = q.ref;
  const bool damage = q.damage;
  auto& per_proc = q.per_proc;
  const int64_t p = c.params.p;
  Verification v;
  v.mismatches = int64_t(n[kMismatches]);
  v.max_ulps = n[kMaxUlps];
  v.disagreements = int64_t(n[kDisagreements]);
  if (!damage || v.mismatches == 0) return v;
  const int64_t blocks = damage_counts(p) - 2 * p;
  std::vector<unsigned long long> flag(static_cast<size_t>(blocks)), missing, wrong;
  exec.download(flag.data(), per_proc.get() + 2 * p, flag.size() * sizeof(unsigned long long));
  std::vector<int64_t> firsts;  // the processors that hold the first kFirstMismatches mismatches
  int64_t seen = 0;
  for (int64_t k = 0; k < blocks;) {  // each run of damaged blocks: its counts brought back at once
    if (!flag[size_t(k)]) {
      ++k;
      continue;
    }
    int64_t end = k;
    while (end < blocks && flag[size_t(end)]) ++end;
    const int64_t lo = k * kDamageBlock, hi = std::min(p, end * kDamageBlock);
    missing.resize(size_t(hi - lo));
    wrong.resize(size_t(hi - lo));
    exec.download(missing.data(), per_proc.get() + lo, missing.size() * sizeof(unsigned long long));
    exec.download(wrong.data(), per_proc.get() + p + lo, wrong.size() * sizeof(unsigned long long));
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t ms = int64_t(missing[size_t(i - lo)]), wr = int64_t(wrong[size_t(i - lo)]);
      if (ms + wr == 0) continue;
      v.damage.push_back(Damage{i, ms, wr});
      if (seen < kFirstMismatches) {
        firsts.push_back(i);
        seen += ms + wr;
      }
    }
    k = end;
  }
  typename Exec::template Array<int64_t> dev_procs;
  typename Exec::template Array<Mismatch> dev_first;
  dev_procs.ensure(firsts.size());
  dev_first.ensure(firsts.size() * kFirstMismatches);
  exec.upload(dev_procs.get(), firsts.data(), firsts.size() * sizeof(int64_t));
  exec.each(int64_t(firsts.size()), FirstMismatchBody{ctx, op, c.input, b, ref, dev_procs.get(), dev_first.get()});
  std::vector<Mismatch> first(firsts.size() * kFirstMismatches);
  exec.download(first.data(), dev_first.get(), first.size() * sizeof(Mismatch));
  for (const Mismatch& m : first)
    if (m.proc >= 0 && v.first.size() < size_t(kFirstMismatches)) v.first.push_back(m);
  return v;
}

// The verification's counts, queued and read back at once (see queue_check).
template <class Exec>
Verification count_mismatches(const RunConfig& c, Exec& exec, const Ctx& ctx, uint64_t* spare = nullptr, uint64_t spare_words = 0,
                              bool damage = false) {
  QueuedCheck<Exec> q;
  queue_check(q, c, exec, ctx, spare, spare_words, damage, nullptr);
  unsigned long long n[kTallies] = {};
  exec.download(n, q.tally, sizeof n);
  return finish_check(q, c, exec, ctx, n);
}

}  // namespace rounds
}  // namespace ppsim
