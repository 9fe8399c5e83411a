// The GOAL text reader (goal.h): tokens, rank blocks, and the schedule they make (goal_file.cpp
// hands it a mapped file).
#include "goal/goal.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

namespace ppsim::goal {

namespace {

enum class Tok { word, number, minus_one, colon, open, close, newline, end };

struct Token {
  Tok kind = Tok::end;
  std::string_view text;
  uint32_t line = 1;
};

constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

// UTF-8's byte-order mark: a file may start with it; it is skipped.
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Text for a message: every byte outside printable ASCII as \xHH, so that a message stays one line
// of plain text whatever bytes a file holds.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7F) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back("0123456789ABCDEF"[b >> 4]);
      out.push_back("0123456789ABCDEF"[b & 15]);
    }
  }
  return out;
}

class Reader {
 public:
  // `consumed(n)`: the first n bytes of the text will not be read again.
  // keep_labels (keep_lines) false: the labels (lines) stay in the file (Schedule::label, line
  // read them back).
  Reader(std::string_view text, const std::string& name, std::function<void(size_t)> consumed = {}, bool keep_labels = true,
         bool keep_lines = true)
      : s_(text), name_(name), consumed_(std::move(consumed)), keep_labels_(keep_labels), keep_lines_(keep_lines) {
    if (s_.starts_with(kByteOrderMark)) i_ = kByteOrderMark.size();  // (editors on Windows write one)
  }

  Schedule run() {
    Schedule out;
    out.name = name_;
    // Room for an operation or a dependency every 24 bytes (schedgen's lines are 20 to 30 bytes
    // long), without a pass over the text to count its lines: pages of the room a file leaves
    // unused are never touched, and a file of shorter lines grows the vectors as it goes.
    const size_t lines = s_.size() / 24 + 16;
    ops_.reserve(lines);
    if (keep_labels_) labels_.reserve(lines * 4);
    if (keep_lines_) lines_.reserve(lines);
    Token t = next();
    bool have_ranks = false;
    while (t.kind != Tok::end) {
      if (t.kind == Tok::newline) {
        t = next();
        continue;
      }
      if (t.kind == Tok::word && t.text == "num_ranks") {
        if (have_ranks) fail(t, "one num_ranks line", "a second one");
        Token n = next();
        uint64_t v = number(n, "the number of ranks");
        if (v < 1 || v > kMaxRanks) fail(n, "a number of ranks from 1 to " + std::to_string(kMaxRanks), std::string(n.text));
        ranks_ = uint32_t(v);
        have_ranks = true;
        end_of_line(next());
      } else if (t.kind == Tok::word && t.text == "rank") {
        if (!have_ranks) fail(t, "num_ranks before the first rank block", "rank");
        Token n = next();
        uint64_t r = number(n, "a rank");
        if (r >= ranks_) fail(n, "a rank below num_ranks (" + std::to_string(ranks_) + ")", std::string(n.text));
        Token b = next();
        while (b.kind == Tok::newline) b = next();
        if (b.kind != Tok::open) fail(b, "'{'", b);
        if (!quick_block(uint32_t(r), n.line)) block(uint32_t(r), n.line);
        if (consumed_) consumed_(i_);
      } else {
        fail(t, have_ranks ? "'rank N {'" : "'num_ranks N'", t);
      }
      t = next();
    }
    if (!have_ranks) fail(t, "'num_ranks N'", t);
    every_rank_once(t);
    assemble(out);
    return out;
  }

  // ---- a file read in parallel (read_segments) ----
  //
  // The header alone: `num_ranks N` (after blank lines) and where the first `rank` line begins;
  // false at anything else, or on an error, which the reader in order then reports.
  bool header(size_t& first_block, uint32_t& ranks) {
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
  // The rank blocks from byte `begin` (a `rank` line) up to `end` (the next segment's `rank` line,
  // or the end of the text), ranks from `rank_base` on in order, each read by the quick reader,
  // with nothing but blank lines between them; the rows of their dependencies made as the reader
  // in order makes them, with operation indices from 0. False at anything else (a comment, a block
  // the quick reader gives back, a rank out of order, an error): the file is then read in order,
  // which reads or reports it. `drop(from, to)`: bytes [from, to) will not be read again.
  bool read_segment(size_t begin, size_t end, uint32_t ranks, uint32_t rank_base, const std::function<void(size_t, size_t)>& drop) {
    i_ = begin;
    ranks_ = ranks;
    rank_base_ = rank_base;
    ops_.reserve((end - begin) / 24 + 16);
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
        if (n.kind != Tok::number || number(n, "a rank") != uint64_t(rank_base_) + blocks_.size() || rank_base_ + blocks_.size() >= ranks_) return false;
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
  // The file's rank blocks split into `threads` segments at `rank` lines, each read on a thread of
  // its own (read_segment), then put together in rank order: the schedule the reader in order
  // gives, or nothing where any segment was not read (that reader then reads the file). Room for
  // the segments' operations and the schedule's is held at once while they are put together.
  static std::optional<Schedule> read_segments(std::string_view text, const std::string& name, int threads,
                                               const std::function<void(size_t, size_t)>& drop) {
    Reader head(text, name, {}, false, false);
    size_t first_block = 0;
    uint32_t ranks = 0;
    if (!head.header(first_block, ranks)) return std::nullopt;
    // Where each segment begins: a `rank` line at or after an even share of the bytes, and its rank.
    std::vector<size_t> begin{first_block};
    for (int k = 1; k < threads; ++k) {
      const size_t at = text.find("\nrank ", first_block + (text.size() - first_block) / size_t(threads) * size_t(k));
      if (at == std::string_view::npos) break;
      if (at + 1 > begin.back()) begin.push_back(at + 1);
    }
    std::vector<uint32_t> base(begin.size(), 0);
    for (size_t k = 1; k < begin.size(); ++k) {
      uint64_t r = 0;
      size_t d = begin[k] + 5;
      while (d < text.size() && text[d] == ' ') ++d;
      const size_t digits = d;
      while (d < text.size() && is_digit(text[d]) && d - digits < 10) r = r * 10 + uint64_t(text[d++] - '0');
      if (d == digits || r >= ranks) return std::nullopt;
      base[k] = uint32_t(r);
    }
    begin.push_back(text.size());
    const size_t n = base.size();
    std::vector<std::unique_ptr<Reader>> seg(n);
    std::vector<char> ok(n, 0);
    auto read = [&](size_t k) {
      try {  // (nothing may leave a thread: the reader in order meets any failure again, and reports it)
        seg[k] = std::make_unique<Reader>(text, name, std::function<void(size_t)>(), false, false);
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
      wide += seg[k]->wide_.size();
    }
    if (blocks != ranks || wide > uint64_t(Schedule::kWideIndex) + 1) return std::nullopt;
    Schedule out;
    out.name = name;
    out.ranks = ranks;
    size_t total = 0;
    for (size_t k = 0; k < n; ++k) total += seg[k]->ops_.size();
    if (total >= (uint64_t(1) << 31)) return std::nullopt;
    out.ops.resize(total);  // (left unwritten until each segment's operations are copied in)
    out.first.assign(1, 0);
    out.first.reserve(size_t(ranks) + 1);
    uint32_t at = 0;
    for (size_t k = 0; k < n; ++k) {
      Reader& r = *seg[k];
      const uint32_t wide_at = uint32_t(out.wide.size());
      // (2 MiB at a time, each given back once copied: the two copies are never both held whole)
      constexpr size_t kStep = (size_t(2) << 20) / sizeof(Op);
      for (size_t i0 = 0; i0 < r.ops_.size(); i0 += kStep) {
        const size_t i1 = std::min(r.ops_.size(), i0 + kStep);
        for (size_t i = i0; i < i1; ++i) {  // (a wide operation's index moves by the wide ones before)
          Op o = r.ops_[i];
          if (o.word >> 31) o.word += wide_at;
          out.ops[at + i] = o;
        }
        release_copied(r.ops_, i0, i1);
      }
      out.wide.insert(out.wide.end(), r.wide_.begin(), r.wide_.end());
      for (const Block& b : r.blocks_) out.first.push_back(at + b.end);
      out.done.append_from(r.done_, at);
      out.start.append_from(r.start_, at);
      out.cpus = std::max(out.cpus, r.cpus_);
      out.nics = std::max(out.nics, r.nics_);
      out.quick_blocks += r.quick_blocks_;
      at += uint32_t(r.ops_.size());
      seg[k].reset();
    }
    out.done.finish();
    out.start.finish();
    out.segments = uint32_t(n);
    return out;
  }

 private:
  struct Edge {
    uint32_t from, to;  // op indices (file order); `to` waits for `from`
    bool start;         // irequires
  };
  struct PendingEdge {
    std::string_view waiter, waited;
    uint32_t line;
    bool start;
  };
  struct Block {
    uint32_t rank, begin, end, line;
  };

  // What was found may quote the file: it is shown printable (one line of ASCII, whatever the bytes).
  [[noreturn]] void fail(const Token& at, const std::string& expected, const std::string& found) const {
    throw ParseError(name_ + ":" + std::to_string(at.line) + ": expected " + expected + ", found " + printable(found));
  }
  [[noreturn]] void fail(const Token& at, const std::string& expected, const Token& found) const { fail(at, expected, describe(found)); }
  static std::string quoted(std::string_view text) {
    std::string q = "'";
    q.append(text);
    q.push_back('\'');
    return q;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::newline: return "the end of the line";
      case Tok::end: return "the end of the file";
      default: return quoted(t.text.substr(0, 40));
    }
  }

  // Skips blanks and comments (a block comment may span lines).
  void skip_blank() {
    for (;;) {
      if (i_ >= s_.size()) return;
      char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        uint32_t start = line_;
        i_ += 2;
        for (;;) {
          if (i_ + 1 >= s_.size()) {
            Token t;
            t.line = start;
            fail(t, "'*/' closing the comment", "the end of the file");
          }
          if (s_[i_] == '*' && s_[i_ + 1] == '/') {
            i_ += 2;
            break;
          }
          if (s_[i_] == '\n') ++line_;
          ++i_;
        }
      } else {
        return;
      }
    }
  }

  Token next() {
    skip_blank();
    Token t;
    t.line = line_;
    if (i_ >= s_.size()) return t;
    size_t b = i_;
    char c = s_[i_];
    if (c == '\n') {
      ++i_;
      ++line_;
      t.kind = Tok::newline;
    } else if (c == ':') {
      ++i_;
      t.kind = Tok::colon;
    } else if (c == '{') {
      ++i_;
      t.kind = Tok::open;
    } else if (c == '}') {
      ++i_;
      t.kind = Tok::close;
    } else if (is_digit(c)) {
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      t.kind = Tok::number;
    } else if (c == '-' && i_ + 1 < s_.size() && s_[i_ + 1] == '1' && (i_ + 2 >= s_.size() || !is_word_char(s_[i_ + 2]))) {
      i_ += 2;
      t.kind = Tok::minus_one;
    } else if (is_alpha(c)) {
      while (i_ < s_.size() && is_word_char(s_[i_])) ++i_;
      t.kind = Tok::word;
    } else {
      ++i_;
      t.kind = Tok::word;  // a stray character: reported by whoever expected something else
      t.text = s_.substr(b, 1);
      return t;
    }
    t.text = s_.substr(b, i_ - b);
    return t;
  }

  uint64_t number(const Token& t, const std::string& what, uint64_t max = ~uint64_t(0)) const {
    if (t.kind != Tok::number) fail(t, what, t);
    uint64_t v = 0;
    for (char c : t.text) {
      uint64_t d = uint64_t(c - '0');
      if (d > max || v > (max - d) / 10) fail(t, what + " up to " + std::to_string(max), std::string(t.text.substr(0, 40)));
      v = v * 10 + d;
    }
    return v;
  }

  // The engine keeps clocks per rank and CPU (NIC): at most kMaxRanks of each kind in all, so that a
  // short file cannot ask for 64 CPUs on each of 2^26 ranks.
  uint64_t last_unit(uint32_t per_rank) const { return std::min<uint64_t>(per_rank, kMaxRanks / ranks_) - 1; }
  std::string unit_number(const std::string& unit, uint32_t per_rank) const {
    if (kMaxRanks / ranks_ >= per_rank) return "a " + unit + " number";
    return "a " + unit + " number (" + std::to_string(kMaxRanks) + " " + unit + "s in all ranks at most)";
  }

  void end_of_line(const Token& t) const {
    if (t.kind != Tok::newline && t.kind != Tok::end) fail(t, "the end of the line", t);
  }

  // `rank R {` has been read: operations and dependencies up to `}`.
  void block(uint32_t rank, uint32_t line) {
    Block blk{rank, uint32_t(ops_.size()), 0, line};
    label_of_.clear();
    pending_.clear();
    for (;;) {
      Token t = next();
      if (t.kind == Tok::newline) continue;
      if (t.kind == Tok::close) break;
      if (t.kind == Tok::end) fail(t, "'}' closing rank " + std::to_string(rank), t);
      statement(rank, t);
    }
    resolve_dependencies(rank);
    blk.end = uint32_t(ops_.size());
    blocks_.push_back(blk);
    settle_block();
    end_of_line(next());
  }

  // ---- the dependency rows, block by block ----
  //
  // While the blocks come in rank order (as every generator writes them), a block's dependencies
  // go straight into the schedule's rows when the block ends: grouped by the operation waited for,
  // each group in file order, as assemble() would make them; so no list of every dependency is
  // held. The first block out of order turns the rows made so far back into that list, and
  // assemble() makes the rows from it.
  void settle_block() {
    const Block& b = blocks_.back();
    if (direct_ && b.rank != rank_base_ + blocks_.size() - 1) {  // out of order: the list after all
      direct_ = false;
      std::vector<Edge, HugeAlloc<Edge>> all;
      std::vector<uint32_t> first;  // of the blocks before, in rank order
      for (size_t k = 0; k + 1 < blocks_.size(); ++k) first.push_back(blocks_[k].begin);
      first.push_back(b.begin);
      auto unroll = [&](DepLists& lists, bool start) {
        for (uint32_t r = 0; r + 1 < first.size(); ++r)
          for (uint32_t i = first[r]; i < first[r + 1]; ++i) lists.each(first, r, i, [&](uint32_t j) { all.push_back(Edge{i, j, start}); });
        lists = DepLists();
      };
      unroll(done_, false);
      unroll(start_, true);
      all.insert(all.end(), edges_.begin(), edges_.end());
      edges_.swap(all);
    }
    if (!direct_) return;
    const uint32_t n = b.end - b.begin;
    // Each kind's lists of the block: grouped by the operation waited for, each group in file order.
    auto rows = [&](bool start, DepLists& lists) {
      group_.assign(size_t(n) + 1, 0);
      for (const Edge& e : edges_)
        if (e.start == start) ++group_[e.from - b.begin + 1];
      for (uint32_t i = 0; i < n; ++i) group_[i + 1] += group_[i];
      to_.resize(group_[n]);
      for (const Edge& e : edges_)
        if (e.start == start) to_[group_[e.from - b.begin]++] = e.to;
      for (uint32_t i = n; i > 0; --i) group_[i] = group_[i - 1];  // (moved up a group by the fill)
      group_[0] = 0;
      lists.append_rank(b.begin, n, group_.data(), to_.data());
    };
    rows(false, done_);
    rows(true, start_);
    edges_.clear();
  }

  // ---- the quick reader of a block ----
  //
  // `rank R {` has been read: the block read by its common forms alone, straight from the bytes
  // (operations `[lN:] send|recv|calc ...` with their optional fields, `lA requires|irequires lB`,
  // blank lines, `}`), labels `l` and a number without leading zeros, kept in a table by their
  // number. Anything else — a comment, another label, a carriage return, a number past its limit, a
  // label defined twice or never — and the block is given back untouched (false) to block(), which
  // reads it token by token and says what is wrong, so that the schedule and every message are
  // those of the token reader. Schedgen's files and ppsim's own are read here whole.
  bool quick_block(uint32_t rank, uint32_t line) {
    const size_t at = i_, ops_at = ops_.size(), edges_at = edges_.size(), labels_at = labels_.size(), wide_at = wide_.size(),
                 lines_at = lines_.size();
    const uint32_t line_at = line_;
    const int cpus_at = cpus_, nics_at = nics_;
    if (quick_lines()) {
      blocks_.push_back(Block{rank, uint32_t(ops_at), uint32_t(ops_.size()), line});
      ++quick_blocks_;
      settle_block();
      return true;
    }
    i_ = at;
    line_ = line_at;
    ops_.resize(ops_at);
    wide_.resize(wide_at);
    lines_.resize(lines_at);
    edges_.resize(edges_at);
    labels_.resize(labels_at);
    cpus_ = cpus_at;
    nics_ = nics_at;
    return false;
  }

  static constexpr uint32_t kNoLabel = ~uint32_t(0), kMostQuickLabels = uint32_t(1) << 22;

  // The quick reader's cursor (within quick_lines) and its steps, each inlined into the loop.
  const char* q_ = nullptr;
  const char* q_end_ = nullptr;
  template <size_t N>
  [[gnu::always_inline]] static bool is(std::string_view w, const char (&literal)[N]) {
    if (w.size() != N - 1) return false;
    for (size_t k = 0; k + 1 < N; ++k)
      if (w[k] != literal[k]) return false;
    return true;
  }
  [[gnu::always_inline]] void q_blanks() {
    while (q_ < q_end_ && (*q_ == ' ' || *q_ == '\t')) ++q_;
  }
  // Bytes that continue a word (letters, digits, '_'), by table: the quick reader's inner loop.
  static constexpr std::array<bool, 256> kWordByte = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) t[size_t(c)] = is_word_char(char(c));
    return t;
  }();
  [[gnu::always_inline]] bool q_word(std::string_view& w) {
    const char* b = q_;
    if (q_ == q_end_ || !is_alpha(*q_)) return false;
    while (q_ < q_end_ && kWordByte[static_cast<unsigned char>(*q_)]) ++q_;
    w = std::string_view(b, size_t(q_ - b));
    return true;
  }
  // Digits up to `max` (what follows is the next field's business, as for the token reader).
  [[gnu::always_inline]] bool q_number(uint64_t max, uint64_t& v) {
    const char* b = q_;
    v = 0;
    while (q_ < q_end_ && is_digit(*q_)) v = v * 10 + uint64_t(*q_++ - '0');
    // No digit, or more than 18 (which could wrap): the token reader says what it is.
    return q_ > b && q_ - b <= 18 && v <= max;
  }
  [[gnu::always_inline]] bool q_minus_one() {
    if (q_ + 1 < q_end_ && q_[0] == '-' && q_[1] == '1' && (q_ + 2 == q_end_ || !is_word_char(q_[2]))) {
      q_ += 2;
      return true;
    }
    return false;
  }
  [[gnu::always_inline]] bool q_line_end() {
    q_blanks();
    if (q_ == q_end_) return true;
    if (*q_ != '\n') return false;
    ++q_;
    ++line_;
    return true;
  }
  // `l` and a number without leading zeros: its number, else kNoLabel.
  [[gnu::always_inline]] static uint32_t label_number(std::string_view w) {
    if (w.size() < 2 || w.size() > 8 || w[0] != 'l' || (w[1] == '0' && w.size() > 2)) return kNoLabel;
    uint32_t v = 0;
    for (size_t k = 1; k < w.size(); ++k) {
      if (!is_digit(w[k])) return kNoLabel;
      v = v * 10 + uint32_t(w[k] - '0');
    }
    return v < kMostQuickLabels ? v : kNoLabel;
  }

  // An operation from its keyword `w` (send, recv, calc) to the end of its line, into `op`; false
  // at anything but the common forms.
  bool quick_operation(std::string_view w, OpFields& op) {
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

  // The block's lines up to and including `}` and its line's end; false at anything else.
  bool quick_lines() {
    q_ = s_.data() + i_;
    q_end_ = s_.data() + s_.size();
    ++block_stamp_;
    quick_pending_.clear();
    for (;;) {
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
      if (!quick_operation(w, op)) return false;
      if (ops_.size() >= (uint64_t(1) << 31)) return false;
      const uint32_t index = uint32_t(ops_.size());
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

  // A line of a rank block, from its first token `t`: a dependency (kept until the block's labels
  // are known), or an operation with its label.
  void statement(uint32_t rank, Token t) {
    std::string_view label;
    const uint32_t line = t.line;
    if (t.kind == Tok::word && !is_op(t.text)) {
      if (!is_alpha(t.text[0])) fail(t, "an operation (send, recv, calc), a label or '}'", t);
      Token u = next();
      if (u.kind == Tok::word && (u.text == "requires" || u.text == "irequires")) {
        Token w = next();
        if (w.kind != Tok::word || !is_alpha(w.text[0]) || is_keyword(w.text)) fail(w, "a label", w);
        end_of_line(next());
        pending_.push_back(PendingEdge{t.text, w.text, line, u.text == "irequires"});
        return;
      }
      if (u.kind != Tok::colon) fail(u, "':', 'requires' or 'irequires' after the label", u);
      if (is_keyword(t.text)) fail(t, "a label that is not a keyword", t);
      label = t.text;
      t = next();
    }
    if (t.kind != Tok::word || !is_op(t.text)) fail(t, "send, recv or calc", t);
    const OpFields op = operation(t);
    if (ops_.size() >= (uint64_t(1) << 31)) fail(t, "at most 2^31 operations", "more");
    const uint32_t index = uint32_t(ops_.size());
    if (!label.empty() && !label_of_.emplace(label, index).second)
      fail(t, "a label defined once in rank " + std::to_string(rank), quoted(label) + " again");
    if (keep_labels_) {
      labels_.append(label);
      labels_.push_back('\0');
    }
    add(op, line);
  }

  void add(const OpFields& op, uint32_t line) {
    ops_.push_back(Schedule::pack(op, wide_));
    if (keep_lines_) lines_.push_back(line);
  }

  // An operation from its keyword `t` (send, recv or calc) to the end of its line.
  OpFields operation(const Token& t) {
    OpFields op;
    if (t.text == "calc") {
      op.type = loggp::kCalc;
      op.size = number(next(), "a computation time in ns", loggp::kMaxSize);
    } else {
      const bool send = t.text == "send";
      op.type = send ? loggp::kSend : loggp::kRecv;
      op.size = number(next(), "a size in bytes", loggp::kMaxSize);
      Token b = next();
      if (b.kind != Tok::word || (b.text != "b" && b.text != "B")) fail(b, "'b' after the size", b);
      Token dir = next();
      if (dir.kind != Tok::word || dir.text != (send ? "to" : "from")) fail(dir, send ? "'to'" : "'from'", dir);
      Token peer = next();
      if (!send && peer.kind == Tok::minus_one) {
        op.peer = loggp::kAny;
      } else {
        uint64_t r = number(peer, send ? "a destination rank" : "a source rank or -1");
        if (r >= ranks_) fail(peer, "a rank below num_ranks (" + std::to_string(ranks_) + ")", std::string(peer.text));
        op.peer = uint32_t(r);
      }
    }
    optional_fields(op);
    return op;
  }

  // Optional fields, in GOAL's order: tag (send, recv), cpu, nic; then the end of the line.
  void optional_fields(OpFields& op) {
    Token f = next();
    if (op.type != loggp::kCalc && f.kind == Tok::word && f.text == "tag") {
      Token v = next();
      op.tag = v.kind == Tok::minus_one ? loggp::kAny : uint32_t(number(v, "a tag", loggp::kAny - 1));
      f = next();
    }
    if (f.kind == Tok::word && f.text == "cpu") {
      op.cpu = uint8_t(number(next(), unit_number("CPU", kMaxCpus), last_unit(kMaxCpus)));
      cpus_ = std::max(cpus_, int(op.cpu) + 1);
      f = next();
    }
    if (f.kind == Tok::word && f.text == "nic") {
      op.nic = uint8_t(number(next(), unit_number("NIC", kMaxNics), last_unit(kMaxNics)));
      nics_ = std::max(nics_, int(op.nic) + 1);
      f = next();
    }
    if (f.kind != Tok::newline && f.kind != Tok::end) {
      std::string fields = op.type == loggp::kCalc ? "cpu, nic" : "tag, cpu, nic";
      fail(f, "the end of the line (or the fields " + fields + ", in that order)", f);
    }
  }

  // The block's dependencies, now that all its labels are known.
  void resolve_dependencies(uint32_t rank) {
    for (const PendingEdge& e : pending_) {
      auto waiter = label_of_.find(e.waiter), waited = label_of_.find(e.waited);
      Token at;
      at.line = e.line;
      if (waiter == label_of_.end()) fail(at, "a label defined in rank " + std::to_string(rank), quoted(e.waiter));
      if (waited == label_of_.end()) fail(at, "a label defined in rank " + std::to_string(rank), quoted(e.waited));
      edges_.push_back(Edge{waited->second, waiter->second, e.start});
    }
  }

  static bool is_op(std::string_view w) { return w == "send" || w == "recv" || w == "calc"; }
  static bool is_keyword(std::string_view w) {
    return is_op(w) || w == "requires" || w == "irequires" || w == "rank" || w == "num_ranks" || w == "to" || w == "from" || w == "tag" ||
           w == "cpu" || w == "nic";
  }

  // A block for every rank, as LogGOPSim's reader needs (so that memory follows the file's size:
  // nothing is allocated per rank before the blocks are there).
  void every_rank_once(const Token& end) const {
    std::vector<std::pair<uint32_t, uint32_t>> order;  // (rank, line)
    order.reserve(blocks_.size());
    for (const Block& b : blocks_) order.emplace_back(b.rank, b.line);
    std::sort(order.begin(), order.end());
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i].first == order[i - 1].first) {
        Token at;
        at.line = order[i].second;
        fail(at, "each rank once", "rank " + std::to_string(order[i].first) + " again");
      }
    for (size_t i = 0; i < ranks_; ++i)
      if (i >= order.size() || order[i].first != i)
        fail(end, "a block for every rank below num_ranks (" + std::to_string(ranks_) + ")", "none for rank " + std::to_string(i));
  }

  // Ranks in order, and the dependency lists as compressed rows in file order.
  void assemble(Schedule& out) {
    const size_t n = ops_.size();
    std::vector<uint32_t> first(size_t(ranks_) + 1, 0);
    for (const Block& b : blocks_) first[b.rank + 1] = b.end - b.begin;
    for (size_t r = 0; r < ranks_; ++r) first[r + 1] += first[r];
    bool in_order = true;
    for (size_t k = 0; k < blocks_.size() && in_order; ++k) in_order = blocks_[k].rank == k;
    std::vector<uint32_t> where;  // file index -> final index (empty: the same)
    if (in_order || !keep_labels_) std::swap(out.labels, labels_);
    if (in_order) {
      out.ops = std::move(ops_);
      out.lines = std::move(lines_);
    } else {
      where.resize(n);
      for (const Block& b : blocks_)
        for (uint32_t i = b.begin; i < b.end; ++i) where[i] = first[b.rank] + (i - b.begin);
      out.ops.resize(n);
      if (keep_lines_) out.lines.resize(n);
      std::vector<uint32_t> file_op(n);  // final index -> file index
      for (size_t i = 0; i < n; ++i) {
        out.ops[where[i]] = ops_[i];
        if (keep_lines_) out.lines[where[i]] = lines_[i];
        file_op[where[i]] = uint32_t(i);
      }
      if (keep_labels_) {
        std::vector<uint32_t> label_at(n, 0);  // into labels_, in file order
        for (size_t i = 0, at = 0; i < n; ++i) {
          label_at[i] = uint32_t(at);
          at = labels_.find('\0', at) + 1;
        }
        out.labels.reserve(labels_.size());
        for (size_t j = 0; j < n; ++j) {
          out.labels.append(labels_.c_str() + label_at[file_op[j]]);
          out.labels.push_back('\0');
        }
      }
      std::vector<Op, HugeAlloc<Op>>().swap(ops_);
      std::vector<uint32_t>().swap(lines_);
      std::string().swap(labels_);
    }
    auto final_index = [&](uint32_t i) { return where.empty() ? i : where[i]; };
    out.wide = std::move(wide_);
    out.ranks = ranks_;
    out.quick_blocks = quick_blocks_;
    out.cpus = cpus_;
    out.nics = nics_;
    out.first = std::move(first);
    auto rows = [&](bool start, DepLists& lists) {
      std::vector<uint32_t> row, col;
      size_t count = 0;
      for (const Edge& e : edges_) count += e.start == start;
      if (count == 0) return;  // no such dependency: no rows at all
      row.assign(n + 1, 0);
      for (const Edge& e : edges_)
        if (e.start == start) ++row[final_index(e.from) + 1];
      for (size_t i = 0; i < n; ++i) row[i + 1] += row[i];
      col.resize(count);
      std::vector<uint32_t> fill(row.begin(), row.end() - 1);
      for (const Edge& e : edges_)
        if (e.start == start) col[fill[final_index(e.from)]++] = final_index(e.to);
      lists.assign(out.first, std::move(row), std::move(col));
    };
    if (direct_) {  // made block by block (settle_block)
      done_.finish();
      start_.finish();
      out.done = std::move(done_);
      out.start = std::move(start_);
    } else {
      rows(false, out.done);
      rows(true, out.start);
    }
    std::vector<Edge, HugeAlloc<Edge>>().swap(edges_);
  }

  std::string_view s_;
  std::string name_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  uint32_t ranks_ = 0;
  int cpus_ = 1, nics_ = 1;
  std::vector<Op, HugeAlloc<Op>> ops_;
  std::vector<WideOp> wide_;
  std::vector<uint32_t> lines_;  // each operation's line (keep_lines_)
  std::string labels_;
  std::vector<Edge, HugeAlloc<Edge>> edges_;  // the block's dependencies (all of them, once blocks came out of order)
  bool direct_ = true;                         // the blocks so far came in rank order: rows made block by block
  DepLists done_, start_;               // made block by block while blocks come in rank order
  std::vector<uint32_t> group_, to_;
  std::vector<Block> blocks_;
  std::unordered_map<std::string_view, uint32_t> label_of_;  // this block's labels
  std::vector<PendingEdge> pending_;                         // this block's dependencies
  // The quick reader's labels: op index of label lN, valid where its stamp is the block's.
  struct QuickEdge {
    uint32_t waiter, waited;
    bool start;
  };
  std::vector<uint32_t> quick_label_, quick_stamp_;
  std::vector<QuickEdge> quick_pending_;
  uint32_t block_stamp_ = 0, quick_blocks_ = 0;
  uint32_t rank_base_ = 0;  // the rank of the first block (a segment's: read_segment)
  std::function<void(size_t)> consumed_;                     // told how far the text has been read
  bool keep_labels_ = true, keep_lines_ = true;
};

}  // namespace

std::string Schedule::label(uint32_t op) const {
  if (binary) return {};  // a binary schedule has no labels
  if (labels.empty()) {  // read from a file: the label written on the operation's line, if any
    std::ifstream f(name);
    std::string text;
    for (uint32_t l = 0, to = line(op); l < to && std::getline(f, text); ++l) {
    }
    size_t b = text.find_first_not_of(" \t");
    if (b == std::string::npos || !is_alpha(text[b])) return {};
    size_t e = b;
    while (e < text.size() && is_word_char(text[e])) ++e;
    const size_t colon = text.find_first_not_of(" \t", e);
    return colon != std::string::npos && text[colon] == ':' ? text.substr(b, e - b) : std::string();
  }
  size_t at = 0;
  for (uint32_t i = 0; i < op; ++i) at = labels.find('\0', at) + 1;
  return std::string(labels.c_str() + at);
}

Schedule parse(std::string_view text, const std::string& name) { return Reader(text, name).run(); }

Schedule parse_file_text(std::string_view text, const std::string& path, std::function<void(size_t)> consumed, int threads,
                         const std::function<void(size_t, size_t)>& drop, size_t least_share) {
  if (threads > 1 && text.size() >= size_t(threads) * least_share)
    if (std::optional<Schedule> s = Reader::read_segments(text, path, threads, drop)) return std::move(*s);
  return Reader(text, path, std::move(consumed), false, false).run();
}

Schedule parse_file_lines(std::string_view text, const std::string& path, std::function<void(size_t)> consumed) {
  return Reader(text, path, std::move(consumed), false, true).run();
}

}  // namespace ppsim::goal
