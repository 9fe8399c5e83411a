// The log of makers of the GOAL window timing (goal_windows.h): every maker's own Made
// (loggp/loggp_makers.h), which a comparison of two events tied in time reads back through. It is
// most of the window timing's memory, so an entry is kept in 16 bytes, and in about 6 once it is a
// few blocks old: reads that far back are rare (a comparison that tied at every step back, or an
// event held up by noise), while the blocks just written are read for every pending event.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "loggp/huge_alloc.h"
#include "loggp/loggp_makers.h"

namespace ppsim::goal::detail {

// A Made in 16 bytes: time and idx in one word, a root as ref kRoot, and no seq. Ties go to seq
// only between makers of one rank, and those ran in the order of their own entries in the log, so
// seq is given as ref, which orders them alike. (A time past 2^48 ns ends the window timing.)
struct PackedMade {
  static constexpr uint32_t kRoot = ~uint32_t(0);
  uint64_t time_idx = 0;  // time << 16 | idx
  uint32_t host = 0, ref = kRoot;
  static bool fits(uint64_t time) { return time >> 48 == 0; }
  static PackedMade root(uint16_t idx) { return PackedMade{idx, 0, kRoot}; }
  bool is_root() const { return ref == kRoot; }
  PackedMade with_idx(uint16_t idx) const { return PackedMade{(time_idx & ~uint64_t(0xFFFF)) | idx, host, ref}; }
  loggp_makers::Made unpack() const {
    loggp_makers::Made m;
    m.time = time_idx >> 16;
    m.idx = uint16_t(time_idx);
    m.host = host;
    m.root = is_root();
    m.ref = m.seq = m.root ? 0 : ref;
    return m;
  }
  bool operator==(const PackedMade&) const = default;
};
static_assert(sizeof(PackedMade) == 16);

// A full block of the log, packed: in groups of 64 entries, each field (time, idx, host, ref + 1)
// as its offset from the group's least, in as few bits as the group's largest offset needs.
// Entries made one after another are close in all four (the same window, neighbouring ranks,
// makers made a window or so before), so a group takes about 40 bits an entry.
class PackedBlock {
 public:
  void build(const PackedMade* e, uint32_t n) {
    groups_.assign((n + kGroup - 1) / kGroup, Group{});
    uint64_t bits = 0;
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      Group& x = groups_[g];
      const uint32_t from = g * kGroup, to = std::min(n, from + kGroup);
      Fields lo = fields(e[from]), hi = lo;
      for (uint32_t i = from + 1; i < to; ++i) {
        const Fields f = fields(e[i]);
        for (int k = 0; k < 4; ++k) lo.v[k] = std::min(lo.v[k], f.v[k]), hi.v[k] = std::max(hi.v[k], f.v[k]);
      }
      x.time = lo.v[0], x.idx = uint16_t(lo.v[1]), x.host = uint32_t(lo.v[2]), x.ref = uint32_t(lo.v[3]);
      for (int k = 0; k < 4; ++k) x.width[k] = uint8_t(std::bit_width(hi.v[k] - lo.v[k]));
      x.at = bits;
      bits += uint64_t(to - from) * x.entry_bits();
    }
    bits_.assign(bits / 64 + 2, 0);
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      const Group& x = groups_[g];
      const uint32_t from = g * kGroup, to = std::min(n, from + kGroup), w0 = x.width[0], w01 = w0 + x.width[1], w012 = w01 + x.width[2];
      const uint64_t least[4] = {x.time, x.idx, x.host, x.ref};
      uint64_t at = x.at;
      if (const uint32_t bits_each = x.entry_bits(); bits_each < 64) {  // (most groups: an entry's fields in one word, written at once)
        for (uint32_t i = from; i < to; ++i, at += bits_each) {
          const Fields f = fields(e[i]);
          put(at, bits_each, (f.v[0] - least[0]) | (f.v[1] - least[1]) << w0 | (f.v[2] - least[2]) << w01 | (f.v[3] - least[3]) << w012);
        }
        continue;
      }
      for (uint32_t i = from; i < to; ++i) {
        const Fields f = fields(e[i]);
        for (int k = 0; k < 4; ++k) {
          put(at, x.width[k], f.v[k] - least[k]);
          at += x.width[k];
        }
      }
    }
  }
  PackedMade operator[](uint32_t i) const {
    const Group& x = groups_[i / kGroup];
    uint64_t at = x.at + uint64_t(i % kGroup) * x.entry_bits();
    if (const uint32_t bits = x.entry_bits(); bits < 64) {  // (read at once, as written)
      const uint64_t all = get(at, bits);
      const uint32_t w0 = x.width[0], w1 = x.width[1], w2 = x.width[2], w3 = x.width[3];
      auto low = [](uint64_t v, uint32_t w) { return v & ((uint64_t(1) << w) - 1); };
      return PackedMade{(x.time + low(all, w0)) << 16 | (x.idx + low(all >> w0, w1)), uint32_t(x.host + low(all >> (w0 + w1), w2)),
                        uint32_t(x.ref + low(all >> (w0 + w1 + w2), w3)) - 1};
    }
    const uint64_t time = x.time + get(at, x.width[0]);
    at += x.width[0];
    const uint64_t idx = x.idx + get(at, x.width[1]);
    at += x.width[1];
    const uint32_t host = uint32_t(x.host + get(at, x.width[2]));
    at += x.width[2];
    const uint32_t ref = uint32_t(x.ref + get(at, x.width[3])) - 1;
    return PackedMade{time << 16 | idx, host, ref};
  }
  bool empty() const { return groups_.empty(); }
  void clear() {
    std::vector<Group>().swap(groups_);
    std::vector<uint64_t>().swap(bits_);
  }

 private:
  static constexpr uint32_t kGroup = 64;
  struct Fields {
    uint64_t v[4];  // time, idx, host, ref + 1 (a root's ref, kRoot, is 0)
  };
  static Fields fields(const PackedMade& m) { return Fields{{m.time_idx >> 16, m.time_idx & 0xFFFF, m.host, uint32_t(m.ref + 1)}}; }
  struct Group {
    uint64_t time = 0, at = 0;  // the least time; where the group's bits start
    uint32_t host = 0, ref = 0;
    uint16_t idx = 0;
    uint8_t width[4] = {};
    uint32_t entry_bits() const { return uint32_t(width[0]) + width[1] + width[2] + width[3]; }
  };
  // (values of up to 63 bits: a field, or an entry's fields together where they fit)
  void put(uint64_t at, uint32_t width, uint64_t v) {
    if (width == 0) return;
    const uint32_t shift = uint32_t(at & 63);
    bits_[at >> 6] |= v << shift;
    if (shift + width > 64) bits_[(at >> 6) + 1] |= v >> (64 - shift);
  }
  uint64_t get(uint64_t at, uint32_t width) const {
    if (width == 0) return 0;
    const uint32_t shift = uint32_t(at & 63);
    uint64_t v = bits_[at >> 6] >> shift;
    if (shift + width > 64) v |= bits_[(at >> 6) + 1] << (64 - shift);
    return v & ((uint64_t(1) << width) - 1);
  }
  std::vector<Group> groups_;
  std::vector<uint64_t> bits_;
};

// Every maker's own Made, in the order they ran, in blocks that are used again once no pending
// event can reach them: the log of every event would be most of a run's memory, and a comparison
// reads further back than an event's maker's maker only where both tied at every step (one lookup
// past what is kept ends the window timing: the engine times the schedule). The last kRawBlocks
// blocks stay as written; older ones are packed (PackedBlock) and their pages used again.
class RecentMakers {
 public:
  using Made = loggp_makers::Made;
  struct Gone {};  // an entry given back: thrown through the comparison
  uint64_t size() const { return size_; }
  // Appends m; false when the log is full (2^32 - 1 entries).
  bool push(const PackedMade& m, uint32_t& index) {
    if (size_ >= PackedMade::kRoot) return false;
    if ((size_ >> bits_) == blocks_.size()) new_block();
    blocks_[size_ >> bits_].raw[size_ & mask_] = m;
    index = uint32_t(size_++);
    return true;
  }
  Made operator[](uint32_t i) const { return entry(i).unpack(); }
  // Entry i asked for ahead of its use, where it is kept as written.
  void prefetch(uint32_t i) const {
    if (i < kept_ || i >= size_) return;
    const Block& b = blocks_[i >> bits_];
    if (!b.raw.empty()) __builtin_prefetch(&b.raw[i & mask_]);
  }
  PackedMade entry(uint32_t i) const {
    if (i < kept_) throw Gone{};
    const Block& b = blocks_[i >> bits_];
    return b.raw.empty() ? b.packed[i & mask_] : b.raw[i & mask_];
  }
  // Gives back the whole blocks before entry i, for the blocks to come (a fresh block costs its
  // pages' first touch: a tenth of a run, when they were unmapped and mapped again).
  void forget_before(uint64_t i) {
    for (; (kept_ >> bits_) < (i >> bits_); kept_ += uint64_t(1) << bits_) {
      Block& b = blocks_[kept_ >> bits_];
      if (!b.raw.empty()) spare_.push_back(std::move(b.raw));
      b.packed.clear();
    }
  }
  // Blocks of 2^bits entries. bits_for(ranks) gives blocks of about half as many entries as there
  // are ranks, somewhat less than a window makes (2^17 entries, 2 MiB as written, at 2^18 ranks),
  // so that the raw blocks hold the last windows, which pending events reach most, and a smaller
  // machine's log is given back as finely.
  explicit RecentMakers(uint32_t bits = 17) : bits_(bits), mask_((uint64_t(1) << bits) - 1) {}
  static uint32_t bits_for(uint32_t ranks) { return std::clamp<uint32_t>(uint32_t(std::bit_width(ranks)), 14, 19) - 2; }

 private:
  uint32_t bits_;
  uint64_t mask_;
  static constexpr size_t kRawBlocks = 3;  // (a window at 2^18 ranks makes about 160,000 makers)
  struct Block {
    HugeVector<PackedMade> raw;  // empty once packed
    PackedBlock packed;
  };
  // A block to write in; the newest full block beyond the last kRawBlocks packed, its pages to be
  // written in next.
  void new_block() {
    if (blocks_.size() >= kRawBlocks) {
      const size_t old = blocks_.size() - kRawBlocks;
      Block& b = blocks_[old];
      if (!b.raw.empty()) {  // (empty: given back already)
        b.packed.build(b.raw.data(), uint32_t(b.raw.size()));
        spare_.push_back(std::move(b.raw));
      }
    }
    if (spare_.empty()) spare_.emplace_back(size_t(1) << bits_);
    blocks_.emplace_back();
    blocks_.back().raw = std::move(spare_.back());
    spare_.pop_back();
  }
  std::vector<Block> blocks_;
  std::vector<HugeVector<PackedMade>> spare_;
  uint64_t size_ = 0, kept_ = 0;
};

}  // namespace ppsim::goal::detail
