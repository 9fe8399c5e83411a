// The quick reader of a rank block (goal_reader.h): its common lines straight from the bytes.
#include <algorithm>
#include <cstring>
#include <string>

#include "goal/goal_reader.h"

namespace ppsim::goal::detail {

namespace {

// Eight bytes of text as one little-endian word, and a literal's first n bytes the same way.
[[gnu::always_inline]] inline uint64_t load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
constexpr uint64_t word_of(const char* w, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(w[k])) << (8 * k);
  return v;
}
// Whether the n (at most 8) bytes at p are the literal's.
template <size_t N>
[[gnu::always_inline]] inline bool starts(const char* p, const char (&literal)[N]) {
  static_assert(N - 1 <= 8);
  constexpr uint64_t mask = N - 1 == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * (N - 1))) - 1;
  return (load8(p) & mask) == word_of(literal, N - 1);
}
// Digits at p, as q_number reads them: at least one and at most 18, the value at most `max`; p
// moved past them (it reads at most 19).
[[gnu::always_inline]] inline bool digits(const char*& p, uint64_t max, uint64_t& v) {
  v = unsigned(p[0] - '0');
  if (v >= 10) return false;
  int n = 1;
  for (unsigned d; n < 19 && (d = unsigned(p[n] - '0')) < 10; ++n) v = v * 10 + d;
  p += n;
  return n <= 18 && v <= max;
}
// A label's number after its `l`, as label_number reads it: 1 to 7 digits, no leading zero.
[[gnu::always_inline]] inline bool label_digits(const char*& p, uint32_t most, uint32_t& label) {
  const char* b = p;
  uint64_t v;
  if (*p == '0' && unsigned(p[1] - '0') < 10) return false;
  if (!digits(p, most - 1, v) || p - b > 7) return false;
  label = uint32_t(v);
  return true;
}

}  // namespace

// (inlined into quick_lines, as quick_define: a call for every line was a tenth of reading)
[[gnu::always_inline]] inline bool Reader::fast_line(FastLine& f) {
  const char* p = q_;
  uint64_t v;
  if (*p != 'l') return false;
  ++p;
  if (!label_digits(p, kMostQuickLabels, f.label)) return false;
  if (p[0] == ':' && p[1] == ' ') {
    p += 2;
    f.dependency = false;
    OpFields& op = f.op;
    const bool send = starts(p, "send "), recv = !send && starts(p, "recv ");
    if (!send && !recv) {
      if (!starts(p, "calc ")) return false;
      p += 5;
      if (!digits(p, loggp::kMaxSize, v) || *p != '\n') return false;
      op.type = loggp::kCalc;
      op.size = v;
    } else {
      p += 5;
      if (!digits(p, loggp::kMaxSize, v)) return false;
      op.size = v;
      if (send ? !starts(p, "b to ") : !starts(p, "b from ")) return false;
      p += send ? 5 : 7;
      if (!digits(p, ranks_ - 1, v)) return false;
      op.peer = uint32_t(v);
      op.type = send ? loggp::kSend : loggp::kRecv;
      if (*p == ' ') {
        if (!starts(p, " tag ")) return false;
        p += 5;
        if (!digits(p, loggp::kAny - 1, v)) return false;
        op.tag = uint32_t(v);
      }
      if (*p != '\n') return false;
    }
  } else if (p[0] == ' ') {
    ++p;
    f.dependency = true;
    f.start = *p == 'i';
    p += f.start;
    if (!starts(p, "requires") || p[8] != ' ' || p[9] != 'l') return false;
    p += 10;
    if (!label_digits(p, kMostQuickLabels, f.waited) || *p != '\n') return false;
  } else {
    return false;
  }
  q_ = p + 1;
  return true;
}

bool Reader::quick_block(uint32_t rank, uint32_t line) {
  const size_t at = i_, ops_at = store_.size(), edges_at = edges_.size(), labels_at = labels_.size(), lines_at = lines_.size();
  const uint32_t line_at = line_;
  const int cpus_at = cpus_, nics_at = nics_;
  if (quick_lines()) {
    blocks_.push_back(Block{rank, uint32_t(ops_at), store_.size(), line});
    ++quick_blocks_;
    settle_block();
    return true;
  }
  i_ = at;
  line_ = line_at;
  store_.truncate(uint32_t(ops_at));
  lines_.resize(lines_at);
  edges_.resize(edges_at);
  labels_.resize(labels_at);
  cpus_ = cpus_at;
  nics_ = nics_at;
  return false;
}

bool Reader::quick_operation(std::string_view w, OpFields& op) {
  uint64_t v = 0;
  q_blanks();
  const bool calc = is(w, "calc"), send = is(w, "send");
  if (calc) {
    op.type = loggp::kCalc;
    if (!q_number(loggp::kMaxSize, v)) return false;
    op.size = v;
  } else if (send || is(w, "recv")) {
    op.type = send ? loggp::kSend : loggp::kRecv;
    if (!q_number(loggp::kMaxSize, v)) return false;
    op.size = v;
    q_blanks();
    std::string_view unit, dir;
    if (!q_word(unit) || !(is(unit, "b") || is(unit, "B"))) return false;
    q_blanks();
    if (!q_word(dir) || !(send ? is(dir, "to") : is(dir, "from"))) return false;
    q_blanks();
    if (!send && q_minus_one()) {
      op.peer = loggp::kAny;
    } else {
      if (!q_number(ranks_ - 1, v)) return false;
      op.peer = uint32_t(v);
    }
  } else {
    return false;
  }
  q_blanks();
  std::string_view field;
  const char* before = q_;
  if (!calc && q_word(field) && is(field, "tag")) {
    q_blanks();
    if (q_minus_one()) {
      op.tag = loggp::kAny;
    } else {
      if (!q_number(loggp::kAny - 1, v)) return false;
      op.tag = uint32_t(v);
    }
    q_blanks();
    before = q_;
  }
  q_ = before;
  // `cpu C`, then `nic N`, each optional: a unit number below the limit, and the units used.
  auto unit = [&](std::string_view name, uint32_t most, uint8_t& field_of_op, int& used) {
    std::string_view w;
    if (q_word(w) && w == name) {
      q_blanks();
      if (!q_number(last_unit(most), v)) return false;
      field_of_op = uint8_t(v);
      used = std::max(used, int(v) + 1);
      q_blanks();
      before = q_;
    }
    q_ = before;
    return true;
  };
  if (!unit("cpu", kMaxCpus, op.cpu, cpus_) || !unit("nic", kMaxNics, op.nic, nics_)) return false;
  if (!q_line_end()) return false;
  return true;
}

[[gnu::always_inline]] inline bool Reader::quick_define(uint32_t label, const OpFields& op, uint32_t line) {
  if (store_.size() >= (uint64_t(1) << 31)) return false;
  const uint32_t index = store_.size();
  if (label != kNoLabel) {
    if (label >= quick_label_.size()) {
      quick_label_.resize(std::max<size_t>(label + 1, quick_label_.size() * 2), 0);
      quick_stamp_.resize(quick_label_.size(), 0);
    }
    if (quick_stamp_[label] == block_stamp_) return false;  // defined twice: block() says so
    quick_stamp_[label] = block_stamp_;
    quick_label_[label] = index;
  }
  if (keep_labels_) {
    if (label != kNoLabel) labels_.append("l").append(std::to_string(label));
    labels_.push_back('\0');
  }
  add(op, line);
  return true;
}

bool Reader::quick_lines() {
  q_ = s_.data() + i_;
  q_end_ = s_.data() + s_.size();
  ++block_stamp_;
  quick_pending_.clear();
  for (;;) {
    if (q_end_ - q_ >= kFastReach) {
      FastLine f;
      if (fast_line(f)) {
        if (f.dependency) {
          quick_pending_.push_back(QuickEdge{f.label, f.waited, f.start});
        } else if (!quick_define(f.label, f.op, line_)) {
          return false;
        }
        ++line_;
        continue;
      }
    }
    q_blanks();
    if (q_ == q_end_) return false;
    if (*q_ == '\n') {
      ++q_;
      ++line_;
      continue;
    }
    if (*q_ == '}') {
      ++q_;
      if (!q_line_end()) return false;
      break;
    }
    const uint32_t line = line_;
    std::string_view w;
    if (!q_word(w)) return false;
    q_blanks();
    uint32_t label = kNoLabel;
    const bool op_word = is(w, "send") || is(w, "recv") || is(w, "calc");
    if (q_ < q_end_ && *q_ == ':') {  // a label
      label = label_number(w);
      if (label == kNoLabel) return false;
      ++q_;
      q_blanks();
      if (!q_word(w)) return false;
    } else if (!op_word) {  // a dependency
      const uint32_t waiter = label_number(w);
      std::string_view how, waited_word;
      if (waiter == kNoLabel || !q_word(how) || !(is(how, "requires") || is(how, "irequires"))) return false;
      q_blanks();
      if (!q_word(waited_word)) return false;
      const uint32_t waited = label_number(waited_word);
      if (waited == kNoLabel || !q_line_end()) return false;
      quick_pending_.push_back(QuickEdge{waiter, waited, how.size() == 9});
      continue;
    }
    OpFields op;
    if (!quick_operation(w, op) || !quick_define(label, op, line)) return false;
  }
  for (const QuickEdge& e : quick_pending_) {
    if (e.waiter >= quick_stamp_.size() || e.waited >= quick_stamp_.size() || quick_stamp_[e.waiter] != block_stamp_ ||
        quick_stamp_[e.waited] != block_stamp_)
      return false;  // a label the block does not define: block() names it
    edges_.push_back(Edge{quick_label_[e.waited], quick_label_[e.waiter], e.start});
  }
  i_ = size_t(q_ - s_.data());
  return true;
}

}  // namespace ppsim::goal::detail
