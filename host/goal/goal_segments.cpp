// A large GOAL file's rank blocks read on threads (goal_reader.h).
#include <algorithm>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "goal/goal_reader.h"

namespace ppsim::goal::detail {

bool Reader::header(size_t& first_block, uint32_t& ranks) {
  try {
    Token t = next();
    while (t.kind == Tok::newline) t = next();
    if (t.kind != Tok::word || t.text != "num_ranks") return false;
    const uint64_t v = number(next(), "the number of ranks");
    if (v < 1 || v > kMaxRanks) return false;
    ranks_ = ranks = uint32_t(v);
    end_of_line(next());
    t = next();
    while (t.kind == Tok::newline) t = next();
    if (t.kind != Tok::word || t.text != "rank") return false;
    first_block = size_t(t.text.data() - s_.data());
    return true;
  } catch (const ParseError&) {
    return false;
  }
}

bool Reader::read_segment(size_t begin, size_t end, uint32_t ranks, uint32_t rank_base, const std::function<void(size_t, size_t)>& drop) {
  i_ = begin;
  ranks_ = ranks;
  store_.set_ranks(ranks);
  rank_base_ = rank_base;
  reserve_for(end - begin);
  size_t dropped = begin;
  try {
    for (;;) {
      Token t = next();
      if (t.kind == Tok::newline) continue;
      const size_t at = t.kind == Tok::end ? s_.size() : size_t(t.text.data() - s_.data());
      const bool rank_word = t.kind == Tok::word && t.text == "rank";
      if (at >= end) return at == end && (t.kind == Tok::end || rank_word);
      if (!rank_word) return false;
      const Token n = next();
      if (n.kind != Tok::number || number(n, "a rank") != uint64_t(rank_base_) + blocks_.size() || rank_base_ + blocks_.size() >= ranks_)
        return false;
      Token b = next();
      while (b.kind == Tok::newline) b = next();
      if (b.kind != Tok::open || !quick_block(uint32_t(rank_base_ + blocks_.size()), n.line)) return false;
      if (drop && i_ >= dropped + (size_t(1) << 20)) {  // every MB
        drop(dropped, i_);
        dropped = i_;
      }
    }
  } catch (const ParseError&) {
    return false;
  }
}

std::optional<Schedule> Reader::read_segments(std::string_view text, const std::string& name, int threads,
                                              const std::function<void(size_t, size_t)>& drop) {
  Reader head(text, name, {}, false, false);
  size_t first_block = 0;
  uint32_t ranks = 0;
  std::vector<size_t> begin;
  std::vector<uint32_t> base;
  if (!head.header(first_block, ranks) || !split(text, first_block, threads, ranks, begin, base)) return std::nullopt;
  const size_t n = base.size();
  std::vector<std::unique_ptr<Reader>> seg(n);
  std::vector<char> ok(n, 0);
  auto read = [&](size_t k) {
    try {  // (nothing may leave a thread: the reader in order meets any failure again, and reports it)
      seg[k] = std::make_unique<Reader>(text, name, std::function<void(size_t)>(), false, false, true);
      ok[k] = seg[k]->read_segment(begin[k], begin[k + 1], ranks, base[k], drop);
    } catch (...) {
      ok[k] = 0;
    }
  };
  std::vector<std::thread> pool;
  for (size_t k = 1; k < n; ++k) pool.emplace_back(read, k);
  read(0);
  for (std::thread& t : pool) t.join();
  // Every segment read, their ranks one after another from 0, every rank once.
  uint64_t blocks = 0, wide = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!ok[k] || base[k] != blocks) return std::nullopt;
    blocks += seg[k]->blocks_.size();
    wide += seg[k]->store_.wide_size();
  }
  if (blocks != ranks || wide > uint64_t(Schedule::kWideIndex) + 1) return std::nullopt;
  return join(seg, name, ranks);
}

bool Reader::split(std::string_view text, size_t first_block, int threads, uint32_t ranks, std::vector<size_t>& begin,
                   std::vector<uint32_t>& base) {
  begin.assign(1, first_block);
  for (int k = 1; k < threads; ++k) {
    const size_t at = text.find("\nrank ", first_block + (text.size() - first_block) / size_t(threads) * size_t(k));
    if (at == std::string_view::npos) break;
    if (at + 1 > begin.back()) begin.push_back(at + 1);
  }
  base.assign(begin.size(), 0);
  for (size_t k = 1; k < begin.size(); ++k) {
    uint64_t r = 0;
    size_t d = begin[k] + 5;
    while (d < text.size() && text[d] == ' ') ++d;
    const size_t digits = d;
    while (d < text.size() && is_digit(text[d]) && d - digits < 10) r = r * 10 + uint64_t(text[d++] - '0');
    if (d == digits || r >= ranks) return false;
    base[k] = uint32_t(r);
  }
  begin.push_back(text.size());
  return true;
}

std::optional<Schedule> Reader::join(std::vector<std::unique_ptr<Reader>>& seg, const std::string& name, uint32_t ranks) {
  const size_t n = seg.size();
  Schedule out;
  out.name = name;
  out.ranks = ranks;
  size_t total = 0;
  std::vector<OpStore*> parts;
  std::vector<uint32_t> sizes;
  for (size_t k = 0; k < n; ++k) {
    sizes.push_back(seg[k]->store_.size());
    total += sizes.back();
    parts.push_back(&seg[k]->store_);
  }
  if (total >= (uint64_t(1) << 31)) return std::nullopt;
  OpStore::join(parts, out);
  out.done.narrow_from_start();
  out.start.narrow_from_start();
  out.first.assign(1, 0);
  out.first.reserve(size_t(ranks) + 1);
  uint32_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    Reader& r = *seg[k];
    for (const Block& b : r.blocks_) out.first.push_back(at + b.end);
    out.done.append_from(r.done_, at);
    out.start.append_from(r.start_, at);
    out.cpus = std::max(out.cpus, r.cpus_);
    out.nics = std::max(out.nics, r.nics_);
    out.quick_blocks += r.quick_blocks_;
    at += sizes[k];
    seg[k].reset();
  }
  out.done.finish();
  out.start.finish();
  out.segments = uint32_t(n);
  return out;
}

void OpStore::join(std::vector<OpStore*>& parts, Schedule& s) {
  // One numbering of the parts' shapes, where every part has the 4-byte form and they all fit.
  bool compact = true;
  ShapeIndex all;
  std::vector<std::vector<uint32_t>> renumber(parts.size());
  const uint32_t bits = peer_bits_for(s.ranks);
  for (size_t k = 0; k < parts.size() && compact; ++k) {
    compact = parts[k]->compact_ && bits != 0 && parts[k]->bits_ == bits;
    for (const OpFields& f : parts[k]->shapes_.list()) renumber[k].push_back(all.find(f));
    compact = compact && all.list().size() <= (uint64_t(1) << (32 - bits));
  }
  size_t total = 0;
  for (const OpStore* p : parts) total += p->size();
  compact = compact && total > 0;  // (no operations: no form, as Schedule::compact leaves them)
  if (compact) {
    s.narrow.resize(total);  // (left unwritten until each part's operations are copied in)
    s.shapes = all.list();
    s.peer_bits = bits;
    s.compacted = true;
  } else {
    s.ops.resize(total);
  }
  size_t at = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    OpStore& p = *parts[k];
    const uint32_t wide_at = uint32_t(s.wide.size()), peer = (uint32_t(1) << p.bits_) - 1;
    // (2 MiB at a time, each given back once copied: the two copies are never both held whole)
    const size_t step = (size_t(2) << 20) / (p.compact_ ? sizeof(uint32_t) : sizeof(Op));
    for (size_t i0 = 0; i0 < p.size(); i0 += step) {
      const size_t i1 = std::min<size_t>(p.size(), i0 + step);
      for (size_t i = i0; i < i1; ++i) {
        if (compact) {
          s.narrow[at + i] = renumber[k][p.words_[i] >> bits] << bits | (p.words_[i] & peer);
        } else if (p.compact_) {
          s.ops[at + i] = Schedule::pack(p.fields_of(p.words_[i]), s.wide);
        } else {  // (a wide operation's index moves by the wide ones before)
          Op o = p.ops_[i];
          if (o.word >> 31) o.word += wide_at;
          s.ops[at + i] = o;
        }
      }
      if (p.compact_) release_copied(p.words_, i0, i1);
      else release_copied(p.ops_, i0, i1);
    }
    if (!p.compact_) s.wide.insert(s.wide.end(), p.wide_.begin(), p.wide_.end());
    at += p.size();
    p = OpStore(p.compact_);
  }
}

}  // namespace ppsim::goal::detail
