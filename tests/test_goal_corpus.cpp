// Replays the GOAL corpus that `make fuzz` grew (tests/data/goal_corpus/, fuzz/goal_fuzz.cpp): every
// file is read, or refused with a ParseError "NAME:LINE: expected ..., found ..." (one line of
// printable ASCII); every small schedule that is read is timed, or refused with a StuckError, under
// LogGOPSim's default parameters and under the fuzzer's second set (rendezvous from 17 bytes, 3 ns
// of CPU per byte). Any other exception, crash or sanitizer report is a regression of the reader or
// the engine.
//
// The hand-written seeds say what they must give: seed_*.goal and LogGOPSim's schedules are read,
// bad_*.goal are refused; the files the fuzzer added (named by their SHA-1) may go either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "goal/goal.h"

namespace {

namespace fs = std::filesystem;

// The fuzzer's limits: larger schedules are only read.
constexpr uint32_t kMaxRanksTimed = 64;
constexpr size_t kMaxOpsTimed = 10000;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

// "NAME:LINE: expected ..., found ..." with LINE a positive number, all of it printable ASCII (a
// byte of the file that is not is quoted as \xHH).
bool well_formed(const std::string& message, const std::string& name) {
  if (message.compare(0, name.size() + 1, name + ":") != 0) return false;
  if (!std::all_of(message.begin(), message.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return false;
  size_t i = name.size() + 1;
  const size_t digits_begin = i;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
  if (i == digits_begin || message[digits_begin] == '0') return false;
  return message.compare(i, 11, ": expected ") == 0 && message.find(", found ", i) != std::string::npos;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

TEST(GoalCorpus, EveryFileIsReadOrRefusedAndEverySmallScheduleIsTimedOrStuck) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(PPSIM_GOAL_CORPUS))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u) << "the corpus in " << PPSIM_GOAL_CORPUS << " is missing or was not grown by make fuzz";

  ppsim::loggp::Params early_rendezvous;
  early_rendezvous.S = 16;
  early_rendezvous.O = 3;
  size_t replayed = 0, refused = 0, timed = 0, stuck = 0;
  for (const fs::path& path : files) {
    const std::string name = path.filename().string();
    SCOPED_TRACE(name);
    const bool must_fail = starts_with(name, "bad_");
    const bool must_read = !must_fail && path.extension() == ".goal";
    ++replayed;
    ppsim::goal::Schedule s;
    try {
      s = ppsim::goal::parse(read_bytes(path), name);
    } catch (const ppsim::goal::ParseError& e) {
      ++refused;
      EXPECT_TRUE(well_formed(e.what(), name)) << "message: " << e.what();
      EXPECT_FALSE(must_read) << e.what();
      continue;
    }
    EXPECT_FALSE(must_fail) << "was read, but is one of the broken seeds";
    EXPECT_LE(uint64_t(s.ranks) * uint64_t(std::max(s.cpus, s.nics)), ppsim::goal::kMaxRanks) << "clocks the engine would keep";
    if (s.ranks > kMaxRanksTimed || s.size() > kMaxOpsTimed) continue;
    for (const ppsim::loggp::Params& P : {ppsim::loggp::Params{}, early_rendezvous}) {
      try {
        ppsim::loggp::Result r = ppsim::goal::simulate(s, P);
        ++timed;
        EXPECT_EQ(r.finish.size(), s.ranks);
      } catch (const ppsim::loggp::StuckError& e) {
        ++stuck;
        EXPECT_NE(std::string(e.what()), "");
      }
    }
  }
  // Every file was replayed, and the corpus holds both kinds of input and both outcomes.
  EXPECT_EQ(replayed, files.size());
  EXPECT_GT(refused, 0u);
  EXPECT_GT(replayed - refused, 0u);
  EXPECT_GT(timed, 0u);
  EXPECT_GT(stuck, 0u);
}

// The quick reader (goal_quick.cpp, quick_block) reads a rank block straight from its bytes and gives
// anything unusual back to the token reader. A comment after a block's `}` is such a thing, so the
// same text with one there is read block by block by the token reader alone: every file of the
// corpus that is read must give the same schedule both ways, field by field. (A file's reader keeps
// no lines or labels, and the texts here are no files: `lines` false compares the rest.)
bool same_schedule(const ppsim::goal::Schedule& a, const ppsim::goal::Schedule& b, std::string& why, bool lines = true) {
  if (a.ranks != b.ranks || a.cpus != b.cpus || a.nics != b.nics) return why = "ranks, cpus or nics", false;
  if (a.first != b.first) return why = "rank offsets", false;
  if (a.size() != b.size()) return why = "operation count", false;
  for (size_t i = 0; i < a.size(); ++i) {
    const ppsim::goal::OpFields x = a.op(uint32_t(i)), y = b.op(uint32_t(i));
    if (x.peer != y.peer || x.tag != y.tag || x.size != y.size || x.cpu != y.cpu || x.nic != y.nic || x.type != y.type ||
        (lines && a.line(uint32_t(i)) != b.line(uint32_t(i))))
      return why = "operation " + std::to_string(i), false;
  }
  if (!(a.done == b.done)) return why = "requires", false;
  if (!(a.start == b.start)) return why = "irequires", false;
  if (lines && a.labels != b.labels) return why = "labels", false;
  return true;
}

TEST(GoalCorpus, TheQuickReaderGivesTheTokenReadersSchedule) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(PPSIM_GOAL_CORPUS))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  size_t compared = 0, quick_blocks = 0;
  for (const fs::path& path : files) {
    const std::string text = read_bytes(path), name = path.filename().string();
    ppsim::goal::Schedule quick;
    try {
      quick = ppsim::goal::parse(text, name);
    } catch (const ppsim::goal::ParseError&) {
      continue;  // refused: the token reader said why (the corpus test checks how)
    }
    std::string slow_text;
    for (size_t i = 0; i < text.size(); ++i) {
      slow_text.push_back(text[i]);
      if (text[i] == '}') slow_text += " //";
    }
    ppsim::goal::Schedule slow;
    ASSERT_NO_THROW(slow = ppsim::goal::parse(slow_text, name)) << name;
    EXPECT_EQ(slow.quick_blocks, 0u) << name;  // every block ends in a comment: token by token
    quick_blocks += quick.quick_blocks;
    std::string why;
    EXPECT_TRUE(same_schedule(quick, slow, why)) << name << ": " << why << " differ";
    ++compared;
  }
  EXPECT_GT(compared, 20u);
  EXPECT_GT(quick_blocks, 100u);  // LogGOPSim's and ppsim's schedules are read by the quick reader
}

// A file's schedule keeps its operations in 4 bytes each where they come in few shapes
// (Schedule::compact): every schedule of the corpus gives the same operations and the same times
// in either form.
TEST(GoalCorpus, TheCompactFormGivesTheSameOperationsAndTimes) {
  size_t compacted = 0, timed = 0;
  for (const auto& entry : fs::directory_iterator(PPSIM_GOAL_CORPUS)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    ppsim::goal::Schedule s;
    try {
      s = ppsim::goal::parse(read_bytes(entry.path()), name);
    } catch (const ppsim::goal::ParseError&) {
      continue;
    }
    ppsim::goal::Schedule c = s;
    const bool fits = c.compact();
    // (a file's reader writes the 4-byte form as it reads, where the shapes allow; a block it reads
    // token by token, given back by the quick reader, is written again)
    std::string why, slow_text;
    for (const char ch : read_bytes(entry.path())) {
      slow_text.push_back(ch);
      if (ch == '}') slow_text += " //";
    }
    for (const std::string& text : {read_bytes(entry.path()), slow_text}) {
      const ppsim::goal::Schedule r = ppsim::goal::parse_file_text(text, name, {});
      EXPECT_EQ(r.compacted, fits) << name;
      EXPECT_TRUE(same_schedule(s, r, why, false)) << name << " as read: " << why << " differ";
    }
    if (!fits) continue;
    ++compacted;
    EXPECT_TRUE(c.ops.empty()) << name;
    EXPECT_TRUE(same_schedule(s, c, why)) << name << ": " << why << " differ";
    if (s.ranks > kMaxRanksTimed || s.size() > kMaxOpsTimed) continue;
    std::string a, b;
    try {
      a = testing::PrintToString(ppsim::goal::simulate(s, {}).finish);
    } catch (const ppsim::loggp::StuckError& e) {
      a = e.what();
    }
    try {
      b = testing::PrintToString(ppsim::goal::simulate(c, {}).finish);
    } catch (const ppsim::loggp::StuckError& e) {
      b = e.what();
    }
    EXPECT_EQ(a, b) << name;
    ++timed;
  }
  EXPECT_GT(compacted, 100u);
  EXPECT_GT(timed, 100u);
}

// A schedule of more shapes than the 4-byte form has room for keeps its 8-byte form, and so the
// operations compact() had written and given back before it found out: 2^16 ranks leave 15 bits
// for 32,768 shapes, and rank 0 has 300,000 operations of three shapes (more than one 2 MiB step
// of them, wide ones among them) before calcs of 32,765 or 32,768 lengths more.
TEST(GoalCorpus, TooManyShapesKeepEveryOperationAsItWas) {
  for (const uint32_t lengths : {32765u, 32768u}) {  // (3 + 32,765 shapes fit; 3 + 32,768 do not)
    std::string text = "num_ranks 65536\nrank 0 {\n";
    for (int k = 0; k < 100000; ++k) text += "send 3000000b to 65535 tag 3\nrecv 70000b from -1 tag -1\ncalc 1000000000000 cpu 1\n";
    for (uint32_t k = 0; k < lengths; ++k) text += "calc " + std::to_string(10 + k) + "\n";
    text += "}\n";
    for (int r = 1; r < 65536; ++r) text += "rank " + std::to_string(r) + " {\n}\n";
    const ppsim::goal::Schedule s = ppsim::goal::parse(text, "shapes.goal");
    ppsim::goal::Schedule c = s;
    EXPECT_EQ(c.compact(), lengths == 32765u) << lengths;
    EXPECT_EQ(c.compacted, lengths == 32765u) << lengths;
    std::string why;
    EXPECT_TRUE(same_schedule(s, c, why)) << lengths << ": " << why << " differ";
    // The same where the reader writes the 4-byte form as it reads: the operations read before it
    // found out are rewritten in 8 bytes.
    const ppsim::goal::Schedule r = ppsim::goal::parse_file_text(text, "shapes.goal", {});
    EXPECT_EQ(r.compacted, lengths == 32765u) << lengths;
    EXPECT_TRUE(same_schedule(s, r, why, false)) << lengths << " as read: " << why << " differ";
  }
}

// In the 4-byte form a peer code of `ranks` stands for any source: a peer that is no rank (only a
// schedule built by hand can hold one) leaves the operations as they are, rather than read back
// as "any".
TEST(GoalCorpus, APeerThatIsNoRankIsNotTakenForAny) {
  for (const uint32_t to : {1u, 2u}) {
    ppsim::goal::Schedule s;
    s.ranks = 2;
    s.first = {0, 1, 2};
    ppsim::goal::OpFields send, recv;
    send.type = ppsim::loggp::kSend, send.size = 8, send.peer = to;
    recv.type = ppsim::loggp::kRecv, recv.size = 8, recv.peer = ppsim::loggp::kAny, recv.tag = ppsim::loggp::kAny;
    s.push(send);
    s.push(recv);
    ppsim::goal::Schedule c = s;
    EXPECT_EQ(c.compact(), to == 1u) << to;
    EXPECT_EQ(c.op(0).peer, to);
    EXPECT_EQ(c.op(1).peer, ppsim::loggp::kAny);
    EXPECT_EQ(c.op(1).tag, ppsim::loggp::kAny);
  }
}

// A schedule's dependency lists are kept in 8 bits where all of them fit (DepLists::narrow, and
// a file's reader from the first): a chain of n calcs, each requiring the one before, has starts
// up to n - 1, and stays in 16 bits from n = 257 on, with the same times either way.
TEST(GoalCorpus, DependencyListsNarrowOnlyWhereTheyFit) {
  for (const int n : {200, 256, 257, 300}) {
    // (rank 0 a chain of 10, whose lists fit 8 bits, before rank 1's of n: a file's reader, which
    // writes them in 8 bits from the first, then has to rewrite rank 0's in 16)
    std::string text = "num_ranks 2\n";
    for (const int r : {0, 1}) {
      const int length = r == 0 ? 10 : n;
      text += "rank " + std::to_string(r) + " {\n";
      for (int k = 1; k <= length; ++k) text += "l" + std::to_string(k) + ": calc " + std::to_string(k) + "\n";
      for (int k = 2; k <= length; ++k) text += "l" + std::to_string(k) + " requires l" + std::to_string(k - 1) + "\n";
      text += "}\n";
    }
    const ppsim::goal::Schedule s = ppsim::goal::parse(text, "chain.goal");
    ppsim::goal::Schedule c = s;
    c.compact();
    const ppsim::goal::Schedule r = ppsim::goal::parse_file_text(text, "chain.goal", {});
    EXPECT_EQ(s.done.bits(), 16) << n;
    EXPECT_EQ(c.done.bits(), n <= 256 ? 8 : 16) << n;
    EXPECT_EQ(r.done.bits(), n <= 256 ? 8 : 16) << n;
    std::string why;
    EXPECT_TRUE(same_schedule(s, c, why)) << n << ": " << why << " differ";
    EXPECT_TRUE(same_schedule(s, r, why, false)) << n << " as read: " << why << " differ";
    const ppsim::loggp::Result a = ppsim::goal::simulate(s, {}), b = ppsim::goal::simulate(c, {}), d = ppsim::goal::simulate(r, {});
    EXPECT_EQ(a.finish, b.finish) << n;
    EXPECT_EQ(a.finish, d.finish) << n;
    EXPECT_EQ(a.finish[1], uint64_t(n) * uint64_t(n + 1) / 2) << n;  // (the calcs one after another: 1 + 2 + ... + n)
  }
}

// The quick reader's first try at a line reads only a generator's exact forms and leaves anything
// else to the rest of the quick reader or to the token reader: each line below, near those forms,
// is read (or refused, with the same message) as the token reader reads it. Each is followed by
// enough lines that the first try is made on it.
TEST(GoalCorpus, TheExactFormsReadAsTheTokenReaderReadsThem) {
  const std::vector<std::string> lines = {
      "l1: send 8b to 1 tag 0", "l1: send 8b to 1", "l1: recv 8b from 1 tag 7", "l1: recv 8b from -1 tag 7",
      "l1: recv 8b from 1 tag -1", "l1: send 8B to 1 tag 0", "l1: send 8b to 1 tag 0 cpu 1", "l1: send 8b to 1 tag 0 nic 1",
      "l1: send 8b to 1 tag 0 ", "l1:  send 8b to 1 tag 0", "l1 : send 8b to 1 tag 0", "l1:\tsend 8b to 1 tag 0",
      "l1: send 8b  to 1 tag 0", "l1: send 8b to 1  tag 0", "l1: send 8b to 4 tag 0", "l1: send 8b to 01 tag 0",
      "l1: send 2097152b to 1 tag 0", "l1: send 8b to 1 tag 255", "l1: send 8b to 1 tag 4294967294",
      "l1: send 8b to 1 tag 4294967295", "l1: send 1099511627776b to 1", "l1: send 1099511627775b to 1",
      "l1: send 1234567890123456789b to 1", "l1: send b to 1", "l1: calc 100", "l1: calc 100 cpu 1", "l1: calc 0",
      "l1: calc 1099511627775", "l1: calc 99999999999999999999", "l1: calcx 5", "l1: sendx 8b to 1", "l01: calc 5",
      "l0: calc 5", "l1234567: calc 5", "l12345678: calc 5", "l4194304: calc 5", "m1: calc 5", "calc 5", "l1: calc 5\r",
      "l9 requires l1", "l9 irequires l1", "l9  requires l1", "l9 requires  l1", "l9 requires l1 ", "l9 requires l01",
      "l9 requires m1", "l9 require l1", "l9 irequire l1", "l9 requiresl1", "l9 requires l8", "l1 requires l1", "l9 xrequires l1"};
  size_t read_quickly = 0, refused = 0;
  for (const std::string& line : lines) {
    std::string text = "num_ranks 3\nrank 0 {\n" + line + "\n";
    for (int k = 2; k < 12; ++k) text += "l" + std::to_string(k + 8) + ": calc " + std::to_string(k) + "\n";
    text += "l9: send 8b to 1 tag 3\n}\nrank 1 {\nl1: recv 8b from 0 tag 3\n}\nrank 2 {\n}\n";
    std::string slow_text;
    for (char c : text) {
      slow_text.push_back(c);
      if (c == '}') slow_text += " //";
    }
    std::string quick_error, slow_error;
    ppsim::goal::Schedule quick, slow;
    try {
      quick = ppsim::goal::parse(text, "t");
    } catch (const ppsim::goal::ParseError& e) {
      quick_error = e.what();
    }
    try {
      slow = ppsim::goal::parse(slow_text, "t");
    } catch (const ppsim::goal::ParseError& e) {
      slow_error = e.what();
    }
    EXPECT_EQ(quick_error, slow_error) << line;
    if (!quick_error.empty() || !slow_error.empty()) {
      ++refused;
      continue;
    }
    EXPECT_EQ(slow.quick_blocks, 0u) << line;
    read_quickly += quick.quick_blocks == 3;
    std::string why;
    EXPECT_TRUE(same_schedule(quick, slow, why)) << line << ": " << why << " differ";
  }
  EXPECT_GT(read_quickly, 25u);
  EXPECT_GT(refused, 10u);
}

// A file read on threads (its rank blocks split among them) gives the schedule the reader in
// order gives, or the same refusal, word for word: every corpus file, on 2, 3 and 8 threads, with
// no least share a thread so that even the smallest file is split. Files that the threads cannot
// read alone (a comment, a block out of order, an error) are read in order.
TEST(GoalCorpus, ReadingOnThreadsGivesTheScheduleOrTheErrorOfReadingInOrder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(PPSIM_GOAL_CORPUS))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  size_t read = 0, refused = 0, split = 0;
  for (const fs::path& path : files) {
    const std::string text = read_bytes(path), name = path.string();
    std::string in_order_error;
    ppsim::goal::Schedule in_order;
    try {
      in_order = ppsim::goal::parse_file_text(text, name, {});
    } catch (const ppsim::goal::ParseError& e) {
      in_order_error = e.what();
    }
    for (int threads : {2, 3, 8}) {
      try {
        const ppsim::goal::Schedule s = ppsim::goal::parse_file_text(text, name, {}, threads, {}, 0);
        ASSERT_TRUE(in_order_error.empty()) << name << " on " << threads << " threads was read; in order: " << in_order_error;
        std::string why;
        EXPECT_TRUE(same_schedule(s, in_order, why)) << name << " on " << threads << " threads: " << why << " differ";
        EXPECT_EQ(s.quick_blocks, in_order.quick_blocks) << name;
        EXPECT_EQ(in_order.segments, 1u);
        split += s.segments > 1;
      } catch (const ppsim::goal::ParseError& e) {
        EXPECT_EQ(e.what(), in_order_error) << name << " on " << threads << " threads";
      }
    }
    (in_order_error.empty() ? read : refused) += 1;
  }
  EXPECT_GT(read, 20u);
  EXPECT_GT(refused, 20u);
  EXPECT_GT(split, 100u) << split;  // (reads on threads that split the file)
}

// The same on a schedule whose every rank has operations that do not fit an operation's word (a
// tag from 255, 2 MiB or more, a CPU or NIC past 0), irequires as well as requires, and blank lines
// between blocks: split into up to 7 parts, the wide operations of each part keep their fields.
TEST(GoalCorpus, ReadingOnThreadsKeepsWideOperationsAndBothKindsOfDependency) {
  const int p = 64;
  std::string text = "num_ranks " + std::to_string(p) + "\n";
  for (int r = 0; r < p; ++r) {
    const std::string next = std::to_string((r + 1) % p), prev = std::to_string((r + p - 1) % p);
    const std::string next2 = std::to_string((r + 2) % p), prev2 = std::to_string((r + p - 2) % p);
    text += "\nrank " + std::to_string(r) + " {\n";
    text += "l1: send 8b to " + next + " tag " + std::to_string(300 + r) + "\n";
    text += "l2: recv 8b from " + prev + " tag " + std::to_string(300 + (r + p - 1) % p) + "\n";
    text += "l3: calc " + std::to_string(100 + r) + " cpu 1\n";
    text += "l4: send 4194304b to " + next2 + " tag 5 nic 1\n";
    text += "l5: recv 4194304b from " + prev2 + " tag 5\n";
    text += "l3 requires l2\nl4 irequires l1\nl5 requires l3\n}\n";
  }
  const ppsim::goal::Schedule wide = ppsim::goal::parse(text, "wide.goal");
  ASSERT_EQ(wide.wide.size(), size_t(5 * p));  // l1, l2 (tags), l3 (cpu), l4 (size, nic), l5 (size): none fits Op's word
  ASSERT_FALSE(wide.start.empty());
  const ppsim::goal::Schedule in_order = ppsim::goal::parse_file_text(text, "wide.goal", {});
  EXPECT_TRUE(in_order.compacted);  // (as a file is read: 194 shapes)
  std::string why;
  EXPECT_TRUE(same_schedule(in_order, wide, why, false)) << why << " differ";
  for (int threads : {2, 4, 7}) {
    const ppsim::goal::Schedule s = ppsim::goal::parse_file_text(text, "wide.goal", {}, threads, {}, 0);
    EXPECT_EQ(s.segments, uint32_t(threads));
    EXPECT_TRUE(s.compacted);
    EXPECT_EQ(s.shapes.size(), in_order.shapes.size());
    EXPECT_TRUE(same_schedule(s, wide, why, false)) << threads << " threads: " << why << " differ";
  }
}

// Parts read on threads each in whichever form their shapes allow, put together: all in 4 bytes
// where their shapes together fit; else in 8, from parts of either form (2^16 ranks leave room for
// 32,768 shapes). Rank r has a calc of its own length, 65,536 shapes in all: each part of 2, 4 or
// 7 fits alone, not all together; or rank 0 alone has 40,000 shapes, its part none of the others'.
// Wide operations (a tag from 255, a CPU past 0) among them keep their fields.
TEST(GoalCorpus, ReadingOnThreadsJoinsPartsOfEitherForm) {
  const int p = 65536;
  for (const bool rank0 : {false, true}) {
    std::string text = "num_ranks " + std::to_string(p) + "\n";
    for (int r = 0; r < p; ++r) {
      text += "rank " + std::to_string(r) + " {\n";
      text += "l1: send 8b to " + std::to_string((r + 1) % p) + " tag " + std::to_string(r % 3 == 0 ? 300 : 7) + "\n";
      text += "l2: recv 8b from " + std::to_string((r + p - 1) % p) + " tag " + std::to_string((r + p - 1) % 3 == 0 ? 300 : 7) + "\n";
      if (!rank0) text += "l3: calc " + std::to_string(10 + r) + (r % 5 == 0 ? " cpu 1" : "") + "\nl3 requires l2\n";
      if (rank0 && r == 0)
        for (int k = 0; k < 40000; ++k) text += "calc " + std::to_string(10 + k) + "\n";
      text += "}\n";
    }
    const ppsim::goal::Schedule wide = ppsim::goal::parse(text, "join.goal");
    ppsim::goal::Schedule c = wide;
    EXPECT_FALSE(c.compact());
    std::string why;
    for (int threads : {1, 2, 4, 7}) {
      const ppsim::goal::Schedule s = ppsim::goal::parse_file_text(text, "join.goal", {}, threads, {}, 0);
      EXPECT_EQ(s.segments, uint32_t(threads));
      EXPECT_FALSE(s.compacted) << threads;
      EXPECT_TRUE(same_schedule(s, wide, why, false)) << rank0 << ", " << threads << " threads: " << why << " differ";
    }
  }
}

}  // namespace

