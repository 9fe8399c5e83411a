// A GOAL file read token by token (goal_reader.h): the header, the rank blocks (each given to the
// quick reader first), their statements, and every message of a file that is not GOAL; and the
// reader's entry points (goal.h).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "goal/goal_reader.h"

namespace ppsim::goal::detail {

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

Schedule Reader::run() {
  Schedule out;
  out.name = name_;
  const size_t lines = reserve_for(s_.size());
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
      store_.set_ranks(ranks_);
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

void Reader::skip_blank() {
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

Token Reader::next() {
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

uint64_t Reader::number(const Token& t, const std::string& what, uint64_t max) const {
  if (t.kind != Tok::number) fail(t, what, t);
  uint64_t v = 0;
  for (char c : t.text) {
    uint64_t d = uint64_t(c - '0');
    if (d > max || v > (max - d) / 10) fail(t, what + " up to " + std::to_string(max), std::string(t.text.substr(0, 40)));
    v = v * 10 + d;
  }
  return v;
}

void Reader::block(uint32_t rank, uint32_t line) {
  Block blk{rank, store_.size(), 0, line};
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
  blk.end = store_.size();
  blocks_.push_back(blk);
  settle_block();
  end_of_line(next());
}

void Reader::statement(uint32_t rank, Token t) {
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
  if (store_.size() >= (uint64_t(1) << 31)) fail(t, "at most 2^31 operations", "more");
  const uint32_t index = store_.size();
  if (!label.empty() && !label_of_.emplace(label, index).second)
    fail(t, "a label defined once in rank " + std::to_string(rank), quoted(label) + " again");
  if (keep_labels_) {
    labels_.append(label);
    labels_.push_back('\0');
  }
  add(op, line);
}

OpFields Reader::operation(const Token& t) {
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

void Reader::optional_fields(OpFields& op) {
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

void Reader::resolve_dependencies(uint32_t rank) {
  for (const PendingEdge& e : pending_) {
    auto waiter = label_of_.find(e.waiter), waited = label_of_.find(e.waited);
    Token at;
    at.line = e.line;
    if (waiter == label_of_.end()) fail(at, "a label defined in rank " + std::to_string(rank), quoted(e.waiter));
    if (waited == label_of_.end()) fail(at, "a label defined in rank " + std::to_string(rank), quoted(e.waited));
    edges_.push_back(Edge{waited->second, waiter->second, e.start});
  }
}

void Reader::every_rank_once(const Token& end) const {
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

}  // namespace ppsim::goal::detail

namespace ppsim::goal {

Schedule parse(std::string_view text, const std::string& name) { return detail::Reader(text, name).run(); }

Schedule parse_file_text(std::string_view text, const std::string& path, std::function<void(size_t)> consumed, int threads,
                         const std::function<void(size_t, size_t)>& drop, size_t least_share) {
  if (threads > 1 && text.size() >= size_t(threads) * least_share)
    if (std::optional<Schedule> s = detail::Reader::read_segments(text, path, threads, drop)) return std::move(*s);
  return detail::Reader(text, path, std::move(consumed), false, false, true).run();
}

Schedule parse_file_lines(std::string_view text, const std::string& path, std::function<void(size_t)> consumed) {
  return detail::Reader(text, path, std::move(consumed), false, true).run();
}

}  // namespace ppsim::goal
