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
#include <utility>
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

// An operation's fields, as written.
struct OpFields {
  uint64_t size = 0;  // bytes, or ns for calc (at most loggp::kMaxSize)
  uint32_t peer = 0;  // send: destination, recv: source (loggp::kAny: any)
  uint32_t tag = 0;
  uint8_t cpu = 0, nic = 0, type = 0;  // loggp::OpType
};

// An operation as kept: 8 bytes, so that a schedule of 2^22 operations is 32 MB of them. Most fit
// `word` whole (bit 31 clear):
//   send, recv: bits 0-1 type, 2-9 tag (255: loggp::kAny), 10-30 size; `peer` the peer
//   calc:       bits 0-1 type, 2-9 the ns' bits 32-39; `peer` their bits 0-31
// on CPU and NIC 0 (a calc with tag and peer 0). Any other (a tag from 255 up, 2 MiB or more, a
// CPU or NIC past 0) has bit 31 set and bits 0-30 its place in Schedule::wide, `peer` the peer.
struct Op {
  uint32_t peer;
  uint32_t word;
};
static_assert(sizeof(Op) == 8);

// The fields of an operation that does not fit Op's word (16 bytes).
struct WideOp {
  uint64_t size;
  uint32_t tag;
  uint8_t cpu, nic, type;
};

// The operations that wait for each operation (one kind: those that require it, or irequire it),
// in file order. An operation waits only for operations of its rank, so where every rank has fewer
// than 2^16 operations and entries, a list's start and its entries are kept in 16 bits, relative to
// the rank (its lists start at base[r], its operations at first[r]): 2 bytes an operation and an
// entry instead of 4, and 1 where every rank's are below 2^8 (a generator's ranks have a few dozen):
// found by narrow(), or kept so from the first (narrow_from_start). Else, or where an entry names
// another rank's operation, compressed rows over the whole schedule: col32[row32[i] .. row32[i+1]).
class DepLists {
 public:
  // From compressed rows over the whole schedule (row: an entry per operation and one more; both
  // empty when there are no dependencies); `first` as Schedule::first.
  void assign(const std::vector<uint32_t>& first, std::vector<uint32_t>&& row, std::vector<uint32_t>&& col);
  // Or rank by rank, from rank 0: the lists of the rank's operations [first, first + n), that of
  // first + i being to[at[i] .. at[i+1]) (at[0] = 0); then finish() once every rank is in.
  void append_rank(uint32_t first, uint32_t n, const uint32_t* at, const uint32_t* to);
  // The ranks of `o` (appended, not finished) appended after these, its operations moved by `offset`.
  void append_from(const DepLists& o, uint32_t offset);
  void finish();
  // The 16-bit lists in 8 bits where every value fits (after finish()). Whether they were.
  bool narrow();
  // Room for lists of `ops` operations with `entries` entries in all, in the form they start in (a
  // reader's estimate: pages of room left unused are never touched, while growing copied the
  // lists and touched fresh pages twice over).
  void reserve(size_t ops, size_t entries) {
    if (narrow_first_) {
      row8_.reserve(ops);
      col8_.reserve(entries);
    } else {
      row16_.reserve(ops);
      col16_.reserve(entries);
    }
  }
  // Lists appended after this are kept in 8 bits from the first (a file's reader: no 16-bit copy
  // to narrow after), and in 16 or 32 from the first rank whose do not fit; before any is appended.
  void narrow_from_start() { narrow_first_ = true; }
  bool empty() const { return size_ == 0; }
  uint64_t size() const { return size_; }
  int bits() const { return wide_ ? 32 : narrow_ ? 8 : 16; }  // of a list's start and its entries
  // f(j) for every operation j in the list of operation `op` of rank h, in order.
  template <class F>
  void each(const std::vector<uint32_t>& first, uint32_t h, uint32_t op, F&& f) const {
    if (size_ == 0) return;
    if (narrow_) {
      const uint32_t b = base_[h], from = first[h];
      const uint32_t end = op + 1 < first[h + 1] ? b + row8_[op + 1] : base_[h + 1];
      for (uint32_t k = b + row8_[op]; k < end; ++k) f(from + col8_[k]);
    } else if (!wide_) {
      const uint32_t b = base_[h], from = first[h];
      const uint32_t end = op + 1 < first[h + 1] ? b + row16_[op + 1] : base_[h + 1];
      for (uint32_t k = b + row16_[op]; k < end; ++k) f(from + col16_[k]);
    } else {
      for (uint32_t k = row32_[op]; k < row32_[op + 1]; ++k) f(col32_[k]);
    }
  }
  // Where the list of operation `op` starts, asked for ahead of reading it.
  void prefetch(uint32_t op) const {
    if (size_ == 0) return;
    if (narrow_) __builtin_prefetch(&row8_[op]);
    else if (!wide_) __builtin_prefetch(&row16_[op]);
    else __builtin_prefetch(&row32_[op]);
  }
  // f(j) for every entry j of every list, list by list (all of them at once: faster than each()
  // operation by operation where only the entries matter).
  template <class F>
  void each_entry(const std::vector<uint32_t>& first, F&& f) const {
    if (size_ == 0) return;
    if (!wide_) {
      for (size_t r = 0; r + 1 < base_.size(); ++r)
        for (uint32_t k = base_[r]; k < base_[r + 1]; ++k) f(first[r] + (narrow_ ? col8_[k] : col16_[k]));
    } else {
      for (uint32_t j : col32_) f(j);
    }
  }
  // The same lists, in whichever form each is kept.
  bool operator==(const DepLists& o) const;

 private:
  void widen();
  void to16();
  uint64_t size_ = 0;
  bool started_ = false, wide_ = false, narrow_ = false, narrow_first_ = false;
  uint32_t ops_ = 0;                          // operations appended
  std::vector<uint32_t> firsts_;              // each rank's first operation, while appending
  std::vector<uint32_t> base_;                // per rank, and one more
  std::vector<uint16_t> row16_, col16_;       // relative to the rank
  std::vector<uint8_t> row8_, col8_;          // the same, narrow()
  std::vector<uint32_t> row32_, col32_;       // else
};

// The whole schedule: operations of rank r are [first[r] .. first[r+1]); `done` lists the
// operations that require each, `start` those that irequire it (empty when no line irequires).
//
// An operation is kept as an Op (8 bytes), or, once compact() found that the schedule's operations
// come in few shapes (a shape: an operation's fields but its peer; a generator's schedules have a
// handful), in 4: its shape's index in `shapes` above its peer's `peer_bits` bits (`ranks` standing
// for loggp::kAny). The accessors below read either form.
struct Schedule {
  std::string name;  // the file, for messages
  uint32_t ranks = 0;
  int cpus = 1, nics = 1;
  std::vector<uint32_t> first;
  std::vector<Op, HugeAlloc<Op>> ops;  // (in huge pages where large: a fault per 2 MiB as it is read); empty once compact
  std::vector<WideOp> wide;            // the operations that do not fit Op's word
  std::vector<uint32_t, HugeAlloc<uint32_t>> narrow;  // the compact form (compact())
  std::vector<OpFields> shapes;                       // its shapes, each with peer 0
  uint32_t peer_bits = 0;
  bool compacted = false;
  DepLists done, start;
  // Every operation's label ("" for none) in operation order, '\0'-terminated; empty for a schedule
  // read from a file, whose labels are read back from the file when a message needs one.
  std::string labels;
  // Every operation's line where kept (a schedule parsed from text in memory, or built); empty for
  // one read from a file, whose lines are read back from the file when a message needs one (line()),
  // and for a binary one, where an operation's index in its rank stands for its line.
  mutable std::vector<uint32_t> lines;
  uint32_t quick_blocks = 0;  // rank blocks the quick reader read (the others were read token by token)
  uint32_t segments = 1;      // parts of the text read each on a thread of its own (1: read in order)
  bool binary = false;        // read from LogGOPSim's binary form
  uint64_t edges() const { return done.size() + start.size(); }
  uint32_t size() const { return uint32_t(compacted ? narrow.size() : ops.size()); }  // operations
  // Keeps the operations in 4 bytes each where they come in at most 2^(32 - peer_bits) shapes
  // (peer_bits: enough for every rank and one more), else leaves them as they are, and whether it
  // did; and the dependency lists in 8 bits where they fit (DepLists::narrow).
  bool compact();
  bool compact_operations();  // (the first part)
  void prefetch_op(uint32_t i) const { __builtin_prefetch(compacted ? static_cast<const void*>(&narrow[i]) : &ops[i]); }
  std::string label(uint32_t op) const;  // linear in the schedule: for messages only
  uint32_t line(uint32_t op) const;      // the file read again where not kept: for messages only

  uint8_t type(uint32_t i) const {
    if (compacted) return shapes[narrow[i] >> peer_bits].type;
    const Op& o = ops[i];
    return o.word >> 31 ? wide[o.word & kWideIndex].type : uint8_t(o.word & 3);
  }
  // A send's or receive's source or destination and tag (loggp::kAny: any), as op() gives them.
  std::pair<uint32_t, uint32_t> peer_tag(uint32_t i) const {
    if (compacted) {
      const uint32_t w = narrow[i];
      return {narrow_peer(w), shapes[w >> peer_bits].tag};
    }
    const Op& o = ops[i];
    if (o.word >> 31) return {o.peer, wide[o.word & kWideIndex].tag};
    const uint32_t tag = o.word >> 2 & 255;
    return {o.peer, tag == 255 ? loggp::kAny : tag};
  }
  OpFields op(uint32_t i) const {
    if (compacted) {
      const uint32_t w = narrow[i];
      OpFields f = shapes[w >> peer_bits];
      if (f.type != loggp::kCalc) f.peer = narrow_peer(w);
      return f;
    }
    return op_fields(ops[i], wide);
  }
  // The fields of a 4-byte word w of a schedule of `ranks` ranks, its peer in `bits` bits (`ranks`
  // for any source), its shape in `shape_list`.
  static OpFields word_fields(uint32_t w, const std::vector<OpFields>& shape_list, uint32_t bits, uint32_t ranks) {
    OpFields f = shape_list[w >> bits];
    if (f.type != loggp::kCalc) f.peer = word_peer(w, bits, ranks);
    return f;
  }
  static uint32_t word_peer(uint32_t w, uint32_t bits, uint32_t ranks) {
    const uint32_t peer = w & ((uint32_t(1) << bits) - 1);
    return peer == ranks ? loggp::kAny : peer;
  }
  // The fields of o, its wide part (if any) in `wide_ops`.
  static OpFields op_fields(const Op& o, const std::vector<WideOp>& wide_ops) {
    OpFields f;
    f.peer = o.peer;
    if (o.word >> 31) {
      const WideOp& w = wide_ops[o.word & kWideIndex];
      f.size = w.size, f.tag = w.tag, f.cpu = w.cpu, f.nic = w.nic, f.type = w.type;
    } else if ((f.type = uint8_t(o.word & 3)) == loggp::kCalc) {
      f.size = uint64_t(o.word >> 2) << 32 | o.peer;
      f.peer = 0;
    } else {
      const uint32_t tag = o.word >> 2 & 255;
      f.tag = tag == 255 ? loggp::kAny : tag;
      f.size = o.word >> 10;
    }
    return f;
  }
  // Op's form of `f`, any wide part appended to `wide_ops`.
  static Op pack(const OpFields& f, std::vector<WideOp>& wide_ops) {
    if (f.cpu == 0 && f.nic == 0) {
      if (f.type == loggp::kCalc && f.peer == 0 && f.tag == 0 && f.size >> 40 == 0)
        return Op{uint32_t(f.size), uint32_t(f.size >> 32) << 2 | loggp::kCalc};
      if (f.type != loggp::kCalc && f.size < kInlineSize && (f.tag < 255 || f.tag == loggp::kAny))
        return Op{f.peer, uint32_t(f.size) << 10 | (f.tag == loggp::kAny ? 255u : f.tag) << 2 | f.type};
    }
    if (wide_ops.size() > kWideIndex) throw std::length_error("more than 2^31 operations");
    wide_ops.push_back(WideOp{f.size, f.tag, f.cpu, f.nic, f.type});
    return Op{f.peer, uint32_t(wide_ops.size() - 1) | uint32_t(1) << 31};
  }
  void push(const OpFields& f) { ops.push_back(pack(f, wide)); }  // (not once compact)
  uint32_t narrow_peer(uint32_t w) const { return word_peer(w, peer_bits, ranks); }

  static constexpr uint32_t kWideIndex = (uint32_t(1) << 31) - 1;
  static constexpr uint64_t kInlineSize = uint64_t(1) << 21;
};

// Reads GOAL text; `name` is used in messages. Throws ParseError.
Schedule parse(std::string_view text, const std::string& name);
// Reads a file (ParseError also when it cannot be read). The file is mapped, not copied, and the
// pages already read are given back as the reader goes. With threads > 1 a large text file's rank
// blocks are read on that many threads where they come in rank order in schedgen's forms (else,
// or at anything wrong, it is read in order, which says what is wrong): the same schedule.
Schedule read_file(const std::string& path, int threads = 1);
// The text of a file, for read_file: as parse(), but the labels stay in the file (Schedule::label
// reads them back), and `consumed(n)` is told that the first n bytes will not be read again (when
// read in order; read on threads, `drop(from, to)` that bytes [from, to) will not). Threads are
// used where the text holds at least `least_share` bytes for each.
Schedule parse_file_text(std::string_view text, const std::string& path, std::function<void(size_t)> consumed, int threads = 1,
                         const std::function<void(size_t, size_t)>& drop = {}, size_t least_share = size_t(4) << 20);
// As parse_file_text, with every operation's line kept (for read_file_lines).
Schedule parse_file_lines(std::string_view text, const std::string& path, std::function<void(size_t)> consumed);
// Every operation's line in the GOAL text file `path`, read again (for messages: Schedule::line).
std::vector<uint32_t> read_file_lines(const std::string& path);

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
