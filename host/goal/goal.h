// GOAL schedules (Hoefler, Siebert, Lumsdaine 2009: "Group Operation Assembly Language"), the text
// format of LogGOPSim's schedule generator and of ATLAHS:
//
//   num_ranks 2                      // comments: // to the end of the line, /* ... */
//   rank 0 {
//   l1: send 8b to 1 tag 0           // [label:] send SIZE b to RANK [tag T] [cpu C] [nic N]
//   l2: calc 100 cpu 0               // [label:] calc NS [cpu C] [nic N]
//   l2 requires l1                   // l2 starts after l1 has finished
//   }
//   rank 1 {
//   l1: recv 8b from 0 tag 0         // [label:] recv SIZE b from RANK|-1 [tag T|-1] [cpu C] [nic N]
//   l3: calc 5
//   l3 irequires l1                  // l3 starts after l1 has started
//   }
//
// Sizes in bytes ("b" or "B"), computations in ns; tag, cpu and nic default to 0; -1 as a source
// or tag matches any (a send's tag -1 too, as in LogGOPSim). A label names an operation within
// its rank block (a dependency may name a label defined further down). Every rank has one block
// (it may be empty), in any order. Every operation keeps its order in the file: ties in
// LogGOPSim's timing follow it.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "loggp/huge_alloc.h"
#include "loggp/loggp.h"

namespace ppsim::goal {

// A file that is not GOAL: "FILE:LINE: expected ..., found ...".
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Limits that keep a hostile file from exhausting memory before it is read; ranks × CPUs and
// ranks × NICs are at most kMaxRanks too (the engine keeps a clock for each).
inline constexpr uint64_t kMaxRanks = uint64_t(1) << 26;
inline constexpr uint32_t kMaxCpus = 64, kMaxNics = 64;

// 20 bytes: a schedule of 2^22 operations is 80 MB of them.
struct Op {
  uint32_t peer;  // send: destination, recv: source (loggp::kAny: any)
  uint32_t tag;
  uint32_t line;
  uint32_t size_low;  // bytes, or ns for calc: size_low + 2^32 size_high (at most loggp::kMaxSize)
  uint8_t size_high;
  uint8_t cpu, nic, type;  // loggp::OpType
  uint64_t size() const { return uint64_t(size_high) << 32 | size_low; }
  void set_size(uint64_t s) {
    size_low = uint32_t(s);
    size_high = uint8_t(s >> 32);
  }
};

static_assert(sizeof(Op) == 20);

// The whole schedule: operations of rank r are ops[first[r] .. first[r+1]); the dependency lists are
// compressed rows in file order (done_col[done_row[i] .. done_row[i+1]): the operations that
// require i; start_row/start_col likewise for irequires, both empty when no line irequires).
struct Schedule {
  std::string name;  // the file, for messages
  uint32_t ranks = 0;
  int cpus = 1, nics = 1;
  std::vector<uint32_t> first;
  std::vector<Op, HugeAlloc<Op>> ops;  // (in huge pages where large: a fault per 2 MiB as it is read)
  std::vector<uint32_t> done_row, done_col, start_row, start_col;
  // Every operation's label ("" for none) in operation order, '\0'-terminated; empty for a schedule
  // read from a file, whose labels are read back from the file (`line`) when a message needs one.
  std::string labels;
  uint32_t quick_blocks = 0;  // rank blocks the quick reader read (the others were read token by token)
  bool binary = false;        // read from LogGOPSim's binary form: an operation's `line` is its index in its rank
  uint64_t edges() const { return done_col.size() + start_col.size(); }
  std::string label(uint32_t op) const;  // linear in the schedule: for messages only
};

// Reads GOAL text; `name` is used in messages. Throws ParseError.
Schedule parse(std::string_view text, const std::string& name);
// Reads a file (ParseError also when it cannot be read). The file is mapped, not copied, and the
// pages already read are given back as the reader goes.
Schedule read_file(const std::string& path);
// The text of a file, for read_file: as parse(), but the labels stay in the file (Schedule::label
// reads them back), and `consumed(n)` is told that the first n bytes will not be read again.
Schedule parse_file_text(std::string_view text, const std::string& path, std::function<void(size_t)> consumed);

// LogGOPSim's binary form of a schedule (what its txt2bin writes; goal_binary.cpp gives the layout):
// whether `bytes` start with its magic number, and the schedule they hold (`name` for messages;
// ParseError "NAME: ..." for a file that is truncated or not one). read_file reads either form.
bool is_binary_schedule(std::string_view bytes);
// `consumed(n)`, where given, is told that the first n bytes will not be read again.
Schedule read_binary(std::string_view bytes, const std::string& name, std::function<void(size_t)> consumed = {});

// Times the schedule under LogGP (loggp.h); throws loggp::StuckError naming the rank and label of
// an operation that can never run.
loggp::Result simulate(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx = {});
// As simulate, by the event engine alone (simulate times a schedule window by window where it can,
// goal_windows.h: the same times, with better locality).
loggp::Result simulate_events(const Schedule& s, const loggp::Params& P, const loggp::Effects& fx = {});

}  // namespace ppsim::goal
