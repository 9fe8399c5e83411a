// A schedule's operations as a reader makes them (goal_reader.h, goal_binary.cpp): in the 4-byte
// form of Schedule::compact from the first operation on, while their shapes are few enough (a
// generator's schedules have a handful), else in Op's 8 bytes. Writing the 4-byte form as the file
// is read, instead of the 8-byte one to be rewritten after, touches half the memory and saves a
// pass over every operation.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "goal/goal.h"
#include "loggp/huge_alloc.h"

namespace ppsim::goal::detail {

// The shapes of a schedule's operations (a shape: an operation's fields but its peer), numbered in
// the order they are met: found as the last shape of the operation's type, else through a small
// table keyed by the fields, so that most cost a comparison instead of a hash lookup.
class ShapeIndex {
 public:
  uint32_t find(const OpFields& f) {
    // (first the last shape of f's type: a generator's sends are alike, and so are its receives)
    Slot& last = last_[f.type & 3];
    if (!last.holds(f)) last = slot(f);
    return last.index;
  }
  const std::vector<OpFields>& list() const { return list_; }

 private:
  struct Slot {
    uint64_t size = 0;
    uint32_t tag = 0, index = 0;
    uint8_t cpu = 0, nic = 0, type = 0;
    bool used = false;
    bool holds(const OpFields& f) const { return used && size == f.size && tag == f.tag && cpu == f.cpu && nic == f.nic && type == f.type; }
  };
  [[gnu::noinline]] const Slot& slot(const OpFields& f) {
    Slot& c = cache_[size_t(mix(f.size, f.tag, f.cpu, f.nic, f.type) * 0xBF58476D1CE4E5B9ull >> 56)];
    if (!c.holds(f)) {
      OpFields shape = f;
      shape.peer = 0;
      const auto [at, added] = index_.try_emplace(Key{f.size, f.tag, f.cpu, f.nic, f.type}, uint32_t(list_.size()));
      if (added) list_.push_back(shape);
      c = Slot{f.size, f.tag, at->second, f.cpu, f.nic, f.type, true};
    }
    return c;
  }
  static uint64_t mix(uint64_t size, uint32_t tag, uint8_t cpu, uint8_t nic, uint8_t type) {
    return size * 0x9E3779B97F4A7C15ull ^ (uint64_t(tag) << 24 | uint64_t(cpu) << 16 | uint64_t(nic) << 8 | type);
  }
  struct Key {
    uint64_t size;
    uint32_t tag;
    uint8_t cpu, nic, type;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(mix(k.size, k.tag, k.cpu, k.nic, k.type));
    }
  };
  std::array<Slot, 4> last_{};
  std::array<Slot, 256> cache_{};
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::vector<OpFields> list_;
};

// The bits of a peer in the 4-byte form of a schedule of `ranks` ranks (peers 0 .. ranks - 1, and
// `ranks` for any source); 0 where the form cannot hold them.
inline uint32_t peer_bits_for(uint32_t ranks) {
  const uint32_t bits = uint32_t(std::bit_width(ranks));
  return bits > 27 ? 0 : bits;
}

// Operation f's 4-byte word (its shape's index above the peer's `bits` bits); false where the
// shape's index does not fit above them, or the peer is no rank.
inline bool narrow_word(ShapeIndex& shapes, const OpFields& f, uint32_t ranks, uint32_t bits, uint32_t& out) {
  const uint32_t shape = shapes.find(f);
  uint32_t peer = f.type == loggp::kCalc ? 0 : f.peer;
  if (peer == loggp::kAny) peer = ranks;  // (the code no rank has)
  else if (peer >= ranks) return false;
  if (shape >= uint32_t(1) << (32 - bits)) return false;
  out = shape << bits | peer;
  return true;
}

class OpStore {
 public:
  // compact: the 4-byte form from the first operation, where the ranks allow it (set_ranks).
  explicit OpStore(bool compact) : compact_(compact) {}
  // The number of ranks, before the first operation (the 4-byte form's peers need it).
  void set_ranks(uint32_t ranks) {
    ranks_ = ranks;
    bits_ = peer_bits_for(ranks);
    if (bits_ == 0) widen();
  }
  // Room for n operations (pages never written are never touched).
  void reserve(size_t n) {
    if (compact_) words_.reserve(n);
    else ops_.reserve(n);
  }
  uint32_t size() const { return uint32_t(compact_ ? words_.size() : ops_.size()); }
  bool compact() const { return compact_; }
  size_t wide_size() const { return wide_.size(); }
  void push(const OpFields& f) {
    if (compact_) {
      uint32_t w;
      if (ranks_ != 0 && narrow_word(shapes_, f, ranks_, bits_, w)) {
        words_.push_back(w);
        return;
      }
      widen();
    }
    ops_.push_back(Schedule::pack(f, wide_));
  }
  // Back to the first n operations (a block read again token by token).
  void truncate(uint32_t n) {
    if (compact_) {
      words_.resize(n);
      return;
    }
    for (uint32_t i = n; i < ops_.size(); ++i)  // (the first wide one given back, and those after it)
      if (ops_[i].word >> 31) {
        wide_.resize(ops_[i].word & Schedule::kWideIndex);
        break;
      }
    ops_.resize(n);
  }
  // Operation i's fields.
  OpFields at(uint32_t i) const { return compact_ ? fields_of(words_[i]) : Schedule::op_fields(ops_[i], wide_); }
  // Into s (its ranks set): in order, or operation i to where[i] where `where` is given; this
  // store left empty.
  void move_into(Schedule& s, const std::vector<uint32_t>& where = {}) {
    // (the room reserved past the last operation given back: the huge page it ends in was touched whole)
    release_copied(words_, words_.size(), words_.capacity());
    release_copied(ops_, ops_.size(), ops_.capacity());
    if (compact_ && !words_.empty()) {  // (no operations: no form, as Schedule::compact leaves them)
      s.shapes = shapes_.list();
      s.peer_bits = bits_;
      s.compacted = true;
      s.narrow = permuted(std::move(words_), where);
    } else if (!compact_) {
      s.ops = permuted(std::move(ops_), where);
      s.wide = std::move(wide_);
    }
    *this = OpStore(compact_);
  }
  // The parts' operations one after another, into s (its ranks set), each part given back 2 MiB at
  // a time as it is copied: in the 4-byte form where every part is and their shapes together fit.
  static void join(std::vector<OpStore*>& parts, Schedule& s);

 private:
  // The 4-byte form left for Op's (too many shapes): the operations so far rewritten.
  void widen() {
    if (!compact_) return;
    compact_ = false;
    ops_.reserve(words_.capacity());
    for (const uint32_t w : words_) ops_.push_back(Schedule::pack(fields_of(w), wide_));
    std::vector<uint32_t, HugeAlloc<uint32_t>>().swap(words_);
  }
  OpFields fields_of(uint32_t w) const { return Schedule::word_fields(w, shapes_.list(), bits_, ranks_); }
  template <class V>
  static V permuted(V&& v, const std::vector<uint32_t>& where) {
    if (where.empty()) return std::move(v);
    V out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[where[i]] = v[i];
    return out;
  }
  bool compact_;
  uint32_t ranks_ = 0, bits_ = 0;
  ShapeIndex shapes_;
  std::vector<uint32_t, HugeAlloc<uint32_t>> words_;
  std::vector<Op, HugeAlloc<Op>> ops_;
  std::vector<WideOp> wide_;
};

}  // namespace ppsim::goal::detail
