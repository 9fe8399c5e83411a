// The sequential reference of every operation (DESIGN.md §6): what each processor's buffers must
// hold at the end, computed from the operation's meaning with std:: algorithms, never from the
// algorithm that ran. Folds run strictly in processor order, so non-commutative operators check
// the order as well as the values.
#include <algorithm>
#include <numeric>
#include <vector>

#include "ppsim/engine.h"

namespace ppsim {

namespace {

// Element-wise ordered fold of the m-word vectors produced by value(i, w) for i in [0, count).
template <class Value>
std::vector<uint64_t> ordered_fold(OperatorKind k, int64_t count, int64_t m, Value value) {
  std::vector<uint64_t> acc(static_cast<size_t>(m));
  std::vector<int64_t> ids(static_cast<size_t>(count));
  std::iota(ids.begin(), ids.end(), 0);
  for (int64_t w = 0; w < m; ++w) {
    acc[size_t(w)] = std::accumulate(ids.begin() + 1, ids.end(), value(0, w),
                                     [&](uint64_t a, int64_t i) { return combine_dyn(k, a, value(i, w)); });
  }
  return acc;
}

class Checker {
 public:
  explicit Checker(const std::vector<std::vector<uint64_t>>& bufs) : bufs_(bufs) {}
  void expect(int32_t b, int64_t proc, int64_t words_per_proc, int64_t w, uint64_t expected) {
    uint64_t got = bufs_[size_t(b)][size_t(proc * words_per_proc + w)];
    if (got == expected) return;
    ++v.mismatches;
    if (v.first.size() < 10) v.first.push_back(Mismatch{b, proc, w, expected, got});
  }
  Verification v;

 private:
  const std::vector<std::vector<uint64_t>>& bufs_;
};

}  // namespace

void add_step(RunResult& r, StepStats st, int lambda) {
  if (lambda > 1) st.time = 1.0;  // postal model: time is the number of steps
  r.per_step.push_back(st);
  r.messages += st.messages;
  r.words += st.words;
  r.link_hops += st.link_hops;
  r.max_link_load = std::max(r.max_link_load, st.max_link_load);
  r.time += st.time;
}

void finish_verification(const RunConfig& c, RunResult& r) {
  if (!c.verify) return;
  Verification v = verify_buffers(c, r.buffers);
  r.mismatches = v.mismatches;
  r.first_mismatches = std::move(v.first);
  r.verified = v.mismatches == 0;
}

int run_buffer_count(const RunConfig& c) {
  return operation_buffer_count(c.algorithm->op) + (c.algorithm->scratch_words(c.params) > 0 ? 1 : 0);
}

int64_t run_buffer_words(const RunConfig& c, int32_t b) {
  const Operation op = c.algorithm->op;
  return b < operation_buffer_count(op) ? operation_buffer_words(op, b, c.params) : c.algorithm->scratch_words(c.params);
}

uint64_t run_total_words(const RunConfig& c) {
  uint64_t words = 0;
  for (int b = 0; b < run_buffer_count(c); ++b) words += uint64_t(c.params.p) * uint64_t(run_buffer_words(c, b));
  return words;
}

const char* buffer_name(Operation op, int32_t b) {
  if (b >= operation_buffer_count(op)) return "scratch";
  if (b == kData) return op == Operation::alltoall ? "send" : "data";
  switch (op) {
    case Operation::scan: return b == kPartial ? "partial" : "prefix";
    case Operation::reduce_scatter: return "result";
    default: return "recv";
  }
}

Verification verify_buffers(const RunConfig& c, const std::vector<std::vector<uint64_t>>& bufs) {
  const int64_t p = c.params.p, m = c.params.m, root = c.params.root;
  const OperatorKind k = c.combine;
  const Operation op = c.algorithm->op;
  auto input = [&](int64_t i, int64_t w, int64_t per) { return input_word(k, c.input, i, w, per); };
  Checker chk(bufs);
  switch (op) {
    case Operation::broadcast:
      for (int64_t i = 0; i < p; ++i)
        for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, m, w, input(root, w, m));
      break;
    case Operation::reduce:
    case Operation::allreduce: {
      auto total = ordered_fold(k, p, m, [&](int64_t i, int64_t w) { return input(i, w, m); });
      for (int64_t i = (op == Operation::reduce ? root : 0); i < (op == Operation::reduce ? root + 1 : p); ++i)
        for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, m, w, total[size_t(w)]);
      break;
    }
    case Operation::allgather:
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < p; ++j)
          for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, p * m, j * m + w, input(j, w, m));
      break;
    case Operation::gather:
      for (int64_t j = 0; j < p; ++j)
        for (int64_t w = 0; w < m; ++w) chk.expect(kData, root, p * m, j * m + w, input(j, w, m));
      break;
    case Operation::scatter:
      for (int64_t i = 0; i < p; ++i)
        for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, p * m, i * m + w, input(root, i * m + w, p * m));
      break;
    case Operation::scan: {  // element e (of n, spread as scan_first/scan_count say) = v(0) ⊕ ... ⊕ v(e)
      const int64_t n = scan_elements(c.params), words = operation_buffer_words(op, kData, c.params);
      for (int64_t w = 0; w < m; ++w) {
        std::vector<uint64_t> in(static_cast<size_t>(n)), prefix(static_cast<size_t>(n));
        for (int64_t e = 0; e < n; ++e) in[size_t(e)] = input(e, w, m);
        auto fold = [&](uint64_t a, uint64_t b) { return combine_dyn(k, a, b); };
        if (c.params.exclusive) std::exclusive_scan(in.begin(), in.end(), prefix.begin(), operator_identity(k), fold);
        else std::inclusive_scan(in.begin(), in.end(), prefix.begin(), fold);
        for (int64_t i = 0; i < p; ++i)
          for (int64_t e = 0; e < scan_count(c.params, i); ++e)
            chk.expect(kData, i, words, e * m + w, prefix[size_t(scan_first(c.params, i) + e)]);
      }
      break;
    }
    case Operation::reduce_scatter:
      for (int64_t i = 0; i < p; ++i) {
        auto block = ordered_fold(k, p, m, [&](int64_t j, int64_t w) { return input(j, i * m + w, p * m); });
        for (int64_t w = 0; w < m; ++w) chk.expect(kResult, i, m, w, block[size_t(w)]);
      }
      break;
    case Operation::alltoall:
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < p; ++j)
          for (int64_t w = 0; w < m; ++w) chk.expect(kResult, i, p * m, j * m + w, input(j, i * m + w, p * m));
      break;
    case Operation::multicast: {  // members get the root's words; everyone else is left untouched
      std::vector<char> member(static_cast<size_t>(p), 0);
      for (int64_t j = 0; j < multicast_size(c.params); ++j) member[size_t(multicast_member(c.params, j))] = 1;
      for (int64_t i = 0; i < p; ++i)
        for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, m, w, member[size_t(i)] ? input(root, w, m) : operator_unset(k));
      break;
    }
    case Operation::kbroadcast: {
      const int64_t spacing = kbroadcast_spacing(c.params), ks = c.params.sources;
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < ks; ++j)
          for (int64_t w = 0; w < m; ++w) chk.expect(kData, i, ks * m, j * m + w, input(j * spacing, w, m));
      break;
    }
    case Operation::kscatter: {  // processor i gets, from every source j, that source's block i
      const int64_t spacing = kbroadcast_spacing(c.params), ks = c.params.sources;
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < ks; ++j)
          for (int64_t w = 0; w < m; ++w) chk.expect(kResult, i, ks * m, j * m + w, input(j * spacing, i * m + w, p * m));
      break;
    }
    case Operation::shift:
      for (int64_t i = 0; i < p; ++i)
        for (int64_t w = 0; w < m; ++w) chk.expect(kResult, (i + c.params.shift) % p, m, w, input(i, w, m));
      break;
  }
  return chk.v;
}

}  // namespace ppsim
