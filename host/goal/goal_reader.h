// The GOAL text reader (goal.h's parse, parse_file_text and parse_file_lines): a class shared by
// the files that define its parts:
//   goal_tokens.cpp    a file read token by token (run, blocks and statements, and their messages)
//   goal_quick.cpp     the quick reader of a rank block: its common lines straight from the bytes
//   goal_assemble.cpp  the dependency rows, block by block, and the schedule put together
//   goal_segments.cpp  a large file's rank blocks read on threads
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_op_store.h"

namespace ppsim::goal::detail {

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
std::string printable(std::string_view text);

class Reader {
 public:
  // `consumed(n)`: the first n bytes of the text will not be read again.
  // keep_labels (keep_lines) false: the labels (lines) stay in the file (Schedule::label, line
  // read them back).
  // compact: the operations in the 4-byte form of Schedule::compact as they are read, where their
  // shapes allow it (goal_op_store.h), and the dependency lists in 8 bits where they fit.
  Reader(std::string_view text, const std::string& name, std::function<void(size_t)> consumed = {}, bool keep_labels = true,
         bool keep_lines = true, bool compact = false)
      : s_(text), name_(name), store_(compact), consumed_(std::move(consumed)), keep_labels_(keep_labels), keep_lines_(keep_lines) {
    if (compact) {  // (the dependency lists too, in 8 bits from the first where they fit)
      done_.narrow_from_start();
      start_.narrow_from_start();
    }
    if (s_.starts_with(kByteOrderMark)) i_ = kByteOrderMark.size();  // (editors on Windows write one)
  }

  Schedule run();

  // The file's rank blocks split into `threads` segments at `rank` lines, each read on a thread of
  // its own (read_segment), then put together in rank order: the schedule the reader in order
  // gives, or nothing where any segment was not read (that reader then reads the file). The
  // operations are copied into the schedule 2 MiB at a time, each piece given back once copied.
  static std::optional<Schedule> read_segments(std::string_view text, const std::string& name, int threads,
                                               const std::function<void(size_t, size_t)>& drop);
  // Where read_segments's parts begin (a `rank` line at or after each even share of the bytes from
  // the first block, and the text's end after them) and the rank of each; false at a rank that is
  // no number below `ranks`.
  static bool split(std::string_view text, size_t first_block, int threads, uint32_t ranks, std::vector<size_t>& begin,
                    std::vector<uint32_t>& base);
  // The parts read, in rank order, as one schedule (each part freed as it is copied in); nothing
  // where it would hold 2^31 operations or more.
  static std::optional<Schedule> join(std::vector<std::unique_ptr<Reader>>& seg, const std::string& name, uint32_t ranks);

 private:
  // ---- a file read in parallel (read_segments) ----
  //
  // The header alone: `num_ranks N` (after blank lines) and where the first `rank` line begins;
  // false at anything else, or on an error, which the reader in order then reports.
  bool header(size_t& first_block, uint32_t& ranks);
  // The rank blocks from byte `begin` (a `rank` line) up to `end` (the next segment's `rank` line,
  // or the end of the text), ranks from `rank_base` on in order, each read by the quick reader,
  // with nothing but blank lines between them; the rows of their dependencies made as the reader
  // in order makes them, with operation indices from 0. False at anything else (a comment, a block
  // the quick reader gives back, a rank out of order, an error): the file is then read in order,
  // which reads or reports it. `drop(from, to)`: bytes [from, to) will not be read again.
  bool read_segment(size_t begin, size_t end, uint32_t ranks, uint32_t rank_base, const std::function<void(size_t, size_t)>& drop);
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
  void skip_blank();
  // The next token (a word, a number, -1, ':', '{', '}', a line's end, the text's end).
  Token next();
  // Token t as a whole number up to max; else a message naming `what`.
  uint64_t number(const Token& t, const std::string& what, uint64_t max = ~uint64_t(0)) const;

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
  void block(uint32_t rank, uint32_t line);

  // ---- the dependency rows, block by block ----
  //
  // While the blocks come in rank order (as every generator writes them), a block's dependencies
  // go straight into the schedule's rows when the block ends: grouped by the operation waited for,
  // each group in file order, as assemble() would make them; so no list of every dependency is
  // held. The first block out of order turns the rows made so far back into that list, and
  // assemble() makes the rows from it.
  void settle_block();

  // ---- the quick reader of a block ----
  //
  // `rank R {` has been read: the block read by its common forms alone, straight from the bytes
  // (operations `[lN:] send|recv|calc ...` with their optional fields, `lA requires|irequires lB`,
  // blank lines, `}`), labels `l` and a number without leading zeros, kept in a table by their
  // number. Anything else — a comment, another label, a carriage return, a number past its limit, a
  // label defined twice or never — and the block is given back untouched (false) to block(), which
  // reads it token by token and says what is wrong, so that the schedule and every message are
  // those of the token reader. Schedgen's files and ppsim's own are read here whole.
  bool quick_block(uint32_t rank, uint32_t line);

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
  bool quick_operation(std::string_view w, OpFields& op);

  // The quick reader's first try at a line: the forms a generator writes, byte for byte, with one
  // blank between fields and a label on every operation — `lN: send|recv SIZEb to|from RANK[ tag
  // T]`, `lN: calc NS`, `lA requires|irequires lB` — read with no tokens at all. Nothing moves at
  // anything else (another form, a value the quick reader would refuse): quick_lines then reads
  // the line field by field. It reads at most kFastReach bytes, so it is tried only where the text
  // holds that many more.
  struct FastLine {
    OpFields op;
    uint32_t label, waited;
    bool dependency, start;
  };
  static constexpr ptrdiff_t kFastReach = 128;
  bool fast_line(FastLine& f);

  // Operation `op` of the block at `line`, with its label (kNoLabel: none) put in the table; false
  // where the label is defined twice or the schedule is full.
  bool quick_define(uint32_t label, const OpFields& op, uint32_t line);

  // The block's lines up to and including `}` and its line's end; false at anything else.
  bool quick_lines();

  // A line of a rank block, from its first token `t`: a dependency (kept until the block's labels
  // are known), or an operation with its label.
  void statement(uint32_t rank, Token t);

  // Room for an operation or a dependency every 24 bytes of `bytes` of text (schedgen's lines are
  // 20 to 30 bytes long), without a pass over the text to count its lines: pages of the room a file
  // leaves unused are never touched, and a file of shorter lines grows the vectors as it goes.
  // Returns that many lines.
  size_t reserve_for(size_t bytes) {
    const size_t lines = bytes / 24 + 16;
    store_.reserve(lines);
    done_.reserve(lines, lines);
    return lines;
  }

  void add(const OpFields& op, uint32_t line) {
    store_.push(op);
    if (keep_lines_) lines_.push_back(line);
  }

  // An operation from its keyword `t` (send, recv or calc) to the end of its line.
  OpFields operation(const Token& t);

  // Optional fields, in GOAL's order: tag (send, recv), cpu, nic; then the end of the line.
  void optional_fields(OpFields& op);

  // The block's dependencies, now that all its labels are known.
  void resolve_dependencies(uint32_t rank);

  static bool is_op(std::string_view w) { return w == "send" || w == "recv" || w == "calc"; }
  static bool is_keyword(std::string_view w) {
    return is_op(w) || w == "requires" || w == "irequires" || w == "rank" || w == "num_ranks" || w == "to" || w == "from" || w == "tag" ||
           w == "cpu" || w == "nic";
  }

  // A block for every rank, as LogGOPSim's reader needs (so that memory follows the file's size:
  // nothing is allocated per rank before the blocks are there).
  void every_rank_once(const Token& end) const;

  // Ranks in order, and the dependency lists as compressed rows in file order.
  void assemble(Schedule& out);

  std::string_view s_;
  std::string name_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  uint32_t ranks_ = 0;
  int cpus_ = 1, nics_ = 1;
  OpStore store_;
  std::vector<uint32_t> lines_;  // each operation's line (keep_lines_)
  std::string labels_;
  std::vector<Edge, HugeAlloc<Edge>> edges_;  // the block's dependencies (all of them, once blocks came out of order)
  bool direct_ = true;                        // the blocks so far came in rank order: rows made block by block
  DepLists done_, start_;                     // made block by block while blocks come in rank order
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
  uint32_t rank_base_ = 0;                // the rank of the first block (a segment's: read_segment)
  std::function<void(size_t)> consumed_;  // told how far the text has been read
  bool keep_labels_ = true, keep_lines_ = true;
};

}  // namespace ppsim::goal::detail
