// The schedule's storage (goal.h): the dependency lists in 16 bits where they fit, operations in 4
// bytes where they come in few shapes, and an operation's line and label read back from its file
// when a message needs one.
#include <algorithm>
#include <fstream>
#include <mutex>
#include <string>

#include "goal/goal.h"
#include "goal/goal_op_store.h"
#include "goal/goal_reader.h"

namespace ppsim::goal {

void DepLists::assign(const std::vector<uint32_t>& first, std::vector<uint32_t>&& row, std::vector<uint32_t>&& col) {
  *this = DepLists();
  if (col.empty()) return;
  std::vector<uint32_t> at;
  for (size_t r = 0; r + 1 < first.size(); ++r) {
    const uint32_t n = first[r + 1] - first[r], from = row[first[r]];
    at.resize(size_t(n) + 1);
    for (uint32_t i = 0; i <= n; ++i) at[i] = row[first[r] + i] - from;
    append_rank(first[r], n, at.data(), col.data() + from);
  }
  finish();
}

void DepLists::append_rank(uint32_t first, uint32_t n, const uint32_t* at, const uint32_t* to) {
  const uint32_t m = at[n];
  if (!started_ && m > 0) {  // the first lists: those of the ranks before are empty
    started_ = true;
    narrow_ = narrow_first_;
    if (narrow_) row8_.assign(first, 0);
    else row16_.assign(first, 0);
    base_.assign(firsts_.size() + 1, 0);
  }
  if (started_) {
    if (narrow_) {  // (8 bits while every start and entry fits, as narrow() would find)
      bool fits = true;
      for (uint32_t i = 0; i < n && fits; ++i) fits = at[i] <= 0xFF;
      for (uint32_t k = 0; k < m && fits; ++k) fits = to[k] >= first && to[k] - first <= 0xFF;
      if (!fits) to16();
    }
    bool fits = !wide_ && m <= 0xFFFF;
    for (uint32_t k = 0; k < m && fits; ++k) fits = to[k] >= first && to[k] - first <= 0xFFFF;
    if (!fits && !wide_) widen();
    if (wide_) {
      for (uint32_t i = 1; i <= n; ++i) row32_.push_back(uint32_t(size_ + at[i]));
      col32_.insert(col32_.end(), to, to + m);
    } else if (narrow_) {
      for (uint32_t i = 0; i < n; ++i) row8_.push_back(uint8_t(at[i]));
      for (uint32_t k = 0; k < m; ++k) col8_.push_back(uint8_t(to[k] - first));
      base_.push_back(base_.back() + m);
    } else {
      for (uint32_t i = 0; i < n; ++i) row16_.push_back(uint16_t(at[i]));
      for (uint32_t k = 0; k < m; ++k) col16_.push_back(uint16_t(to[k] - first));
      base_.push_back(base_.back() + m);
    }
  }
  firsts_.push_back(first);
  ops_ = first + n;
  size_ += m;
}

void DepLists::append_from(const DepLists& o, uint32_t offset) {
  std::vector<uint32_t> at, to;
  for (size_t r = 0; r < o.firsts_.size(); ++r) {
    const uint32_t begin = o.firsts_[r], end = r + 1 < o.firsts_.size() ? o.firsts_[r + 1] : o.ops_, n = end - begin;
    at.assign(size_t(n) + 1, 0);
    to.clear();
    if (o.started_ && !o.wide_) {
      for (uint32_t i = 0; i < n; ++i) at[i] = o.narrow_ ? o.row8_[begin + i] : o.row16_[begin + i];
      at[n] = o.base_[r + 1] - o.base_[r];
      for (uint32_t k = o.base_[r]; k < o.base_[r + 1]; ++k) to.push_back(offset + begin + (o.narrow_ ? o.col8_[k] : o.col16_[k]));
    } else if (o.wide_) {
      for (uint32_t i = 0; i <= n; ++i) at[i] = o.row32_[begin + i] - o.row32_[begin];
      for (uint32_t k = o.row32_[begin]; k < o.row32_[end]; ++k) to.push_back(offset + o.col32_[k]);
    }
    append_rank(offset + begin, n, at.data(), to.data());
  }
}

bool DepLists::narrow() {
  if (!started_ || wide_ || narrow_) return narrow_;
  // (copied and checked in one pass each)
  auto narrowed = [](const std::vector<uint16_t>& v, std::vector<uint8_t>& out) {
    out.resize(v.size());
    uint16_t any = 0;
    for (size_t i = 0; i < v.size(); ++i) any |= v[i], out[i] = uint8_t(v[i]);
    return any <= 0xFF;
  };
  if (!narrowed(row16_, row8_) || !narrowed(col16_, col8_)) {
    std::vector<uint8_t>().swap(row8_);
    std::vector<uint8_t>().swap(col8_);
    return false;
  }
  std::vector<uint16_t>().swap(row16_);
  std::vector<uint16_t>().swap(col16_);
  narrow_ = true;
  return true;
}

bool DepLists::operator==(const DepLists& o) const {
  if (size_ != o.size_ || started_ != o.started_ || wide_ != o.wide_) return false;
  if (wide_) return row32_ == o.row32_ && col32_ == o.col32_;
  if (base_ != o.base_) return false;
  auto same = [](const auto& a8, const auto& a16, bool a_narrow, const auto& b8, const auto& b16, bool b_narrow) {
    const size_t n = a_narrow ? a8.size() : a16.size();
    if (n != (b_narrow ? b8.size() : b16.size())) return false;
    for (size_t i = 0; i < n; ++i)
      if ((a_narrow ? a8[i] : a16[i]) != (b_narrow ? b8[i] : b16[i])) return false;
    return true;
  };
  return same(row8_, row16_, narrow_, o.row8_, o.row16_, o.narrow_) && same(col8_, col16_, narrow_, o.col8_, o.col16_, o.narrow_);
}

// The 8-bit lists in 16 bits (a rank whose starts or entries do not fit 8).
void DepLists::to16() {
  row16_.assign(row8_.begin(), row8_.end());
  col16_.assign(col8_.begin(), col8_.end());
  std::vector<uint8_t>().swap(row8_);
  std::vector<uint8_t>().swap(col8_);
  narrow_ = false;
}

// The 16-bit lists as rows over the whole schedule (a rank with 2^16 entries or more).
void DepLists::widen() {
  if (narrow_) to16();
  wide_ = true;
  row32_.resize(size_t(ops_) + 1);
  col32_.resize(col16_.size());
  for (size_t r = 0; r < firsts_.size(); ++r) {
    const uint32_t end = r + 1 < firsts_.size() ? firsts_[r + 1] : ops_;
    for (uint32_t i = firsts_[r]; i < end; ++i) row32_[i] = base_[r] + row16_[i];
    for (uint32_t k = base_[r]; k < base_[r + 1]; ++k) col32_[k] = firsts_[r] + col16_[k];
  }
  row32_[ops_] = uint32_t(size_);
  std::vector<uint32_t>().swap(base_);
  std::vector<uint16_t>().swap(row16_);
  std::vector<uint16_t>().swap(col16_);
}

void DepLists::finish() {
  std::vector<uint32_t>().swap(firsts_);
  if (!started_) *this = DepLists();
}

bool Schedule::compact() {
  const bool narrowed = compact_operations();
  done.narrow();  // (after the operations: the lists' two forms are held together for a moment)
  start.narrow();
  return narrowed;
}

bool Schedule::compact_operations() {
  if (compacted || ops.empty()) return compacted;
  const uint32_t bits = detail::peer_bits_for(ranks);
  if (bits == 0) return false;
  const uint32_t n = uint32_t(ops.size());
  detail::ShapeIndex form;
  narrow.resize(n);
  // 2 MiB of operations at a time, each given back once written (the two forms are never both held
  // whole), in one pass: a schedule found to have too many shapes gets those back from their 4 bytes.
  constexpr uint32_t kStep = (uint32_t(2) << 20) / sizeof(Op);
  uint32_t given = 0;
  bool fits = true;
  for (uint32_t i0 = 0; i0 < n && fits; i0 += kStep) {
    const uint32_t i1 = std::min(n, i0 + kStep);
    for (uint32_t i = i0; i < i1 && fits; ++i) fits = detail::narrow_word(form, op(i), ranks, bits, narrow[i]);
    if (!fits) break;
    release_copied(ops, i0, i1);
    given = i1;
  }
  shapes = form.list();
  peer_bits = bits;
  if (!fits) {
    compacted = true;  // (op() reads the 4-byte form of the operations given back)
    std::vector<OpFields> back(given);
    for (uint32_t i = 0; i < given; ++i) back[i] = op(i);
    compacted = false;
    for (uint32_t i = 0; i < given; ++i) ops[i] = pack(back[i], wide);
    std::vector<uint32_t, HugeAlloc<uint32_t>>().swap(narrow);
    shapes.clear();
    peer_bits = 0;
    return false;
  }
  std::vector<Op, HugeAlloc<Op>>().swap(ops);
  std::vector<WideOp>().swap(wide);
  compacted = true;
  return true;
}

uint32_t Schedule::line(uint32_t op) const {
  if (binary) return op - *(std::upper_bound(first.begin(), first.end(), op) - 1);  // its index in its rank
  // (the lines are read once, by whichever timing of the schedule needs one first)
  static std::mutex reading;
  const std::lock_guard<std::mutex> hold(reading);
  if (lines.empty()) {
    try {
      lines = read_file_lines(name);
    } catch (const ParseError&) {  // the file changed since: no line to give
    }
  }
  return op < lines.size() ? lines[op] : 0;
}

std::string Schedule::label(uint32_t op) const {
  if (binary) return {};  // a binary schedule has no labels
  if (labels.empty()) {   // read from a file: the label written on the operation's line, if any
    std::ifstream f(name);
    std::string text;
    for (uint32_t l = 0, to = line(op); l < to && std::getline(f, text); ++l) {
    }
    size_t b = text.find_first_not_of(" \t");
    if (b == std::string::npos || !detail::is_alpha(text[b])) return {};
    size_t e = b;
    while (e < text.size() && detail::is_word_char(text[e])) ++e;
    const size_t colon = text.find_first_not_of(" \t", e);
    return colon != std::string::npos && text[colon] == ':' ? text.substr(b, e - b) : std::string();
  }
  size_t at = 0;
  for (uint32_t i = 0; i < op; ++i) at = labels.find('\0', at) + 1;
  return std::string(labels.c_str() + at);
}

}  // namespace ppsim::goal
