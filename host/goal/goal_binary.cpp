// LogGOPSim's binary schedules (goal.h, read_binary): the file its txt2bin writes, read as
// LogGOPSim's reader reads it (spcl/LogGOPSim at 76451de, src/LogGOPSim/Parser.hpp:
// Graph::serialize_mmap writes it, SerializedGraph reads it). Every number is read little-endian
// and checked before it is used: a truncated or foreign file is refused with its name and what is
// wrong, never read past its end.
//
//   uint64  magic cookie 4223 (2342: a file LogGOPSim marked invalid)
//   then, at offsets counted from here:
//   uint32  ranks;  uint8 the highest CPU used;  uint8 the highest NIC used
//   2 × ranks uint64: each rank's data [start, end)
//   a rank: uint32 operations n; uint32 roots k; k × uint32 (the operations without dependencies);
//           n × 39 bytes: uint32 dependencies, char type (1 send, 2 recv, 3 calc), uint32 peer,
//             uint64 size, uint32 tag, uint8 cpu, uint8 nic, uint32 d, uint32 first, uint32 s,
//             uint32 first_s (the operations that wait for its end, and for its start, as indices
//             into the rank's appendix);
//           the appendix: uint32 operation indices within the rank
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_op_store.h"

namespace ppsim::goal {

namespace {

constexpr uint64_t kMagic = 4223, kMagicInvalid = 2342;
constexpr size_t kNodeBytes = 39;

class BinaryReader {
 public:
  BinaryReader(std::string_view bytes, const std::string& name, std::function<void(size_t)> consumed)
      : b_(bytes), name_(name), consumed_(std::move(consumed)) {}

  Schedule run() {
    const uint64_t magic = u64(0, "the magic number");
    if (magic == kMagicInvalid) fail("LogGOPSim marked this binary schedule invalid (its magic number is 2342)");
    if (magic != kMagic) fail("not a binary schedule of LogGOPSim's txt2bin (magic number " + std::to_string(magic) + ", not 4223)");
    base_ = 8;
    Schedule s;
    s.name = name_;
    s.binary = true;
    const uint32_t ranks = u32(base_, "the number of ranks");
    if (ranks < 1 || ranks > kMaxRanks) fail("a number of ranks from 1 to " + std::to_string(kMaxRanks) + " expected, found " + std::to_string(ranks));
    s.ranks = ranks;
    s.cpus = int(u8(base_ + 4, "the highest CPU")) + 1;
    s.nics = int(u8(base_ + 5, "the highest NIC")) + 1;
    if (uint64_t(s.cpus) * ranks > kMaxRanks || s.cpus > int(kMaxCpus) || uint64_t(s.nics) * ranks > kMaxRanks || s.nics > int(kMaxNics))
      fail(std::to_string(s.cpus) + " CPUs and " + std::to_string(s.nics) + " NICs a rank are more than ppsim times (" +
           std::to_string(kMaxCpus) + " each, " + std::to_string(kMaxRanks) + " in all ranks)");
    // One pass, rank by rank (the pages of the ranks read are given back as it goes, `consumed_`);
    // room for as many operations as the file could hold, whose pages the schedule never touches
    // unless it fills them. Each rank's dependency lists go into the schedule's as it is read
    // (rows over the whole schedule, converted at the end, raised the peak by 4 bytes an operation).
    s.first.assign(size_t(ranks) + 1, 0);
    detail::OpStore ops(true);  // (in 4 bytes as they are read, where their shapes allow)
    ops.set_ranks(ranks);
    ops.reserve(b_.size() / kNodeBytes + 1);
    std::vector<uint32_t> counted;  // the dependencies of each operation of the rank, as listed
    std::vector<uint32_t> done_at, done_to, start_at, start_to;  // the rank's lists (DepLists::append_rank)
    for (uint32_t r = 0; r < ranks; ++r) {
      const Rank k = rank(r);
      const uint64_t first = ops.size();
      if (first + k.n >= (uint64_t(1) << 31)) fail("more than 2^31 operations");
      s.first[r + 1] = uint32_t(first + k.n);
      counted.assign(k.n, 0);
      done_at.assign(1, 0);
      start_at.assign(1, 0);
      done_to.clear();
      start_to.clear();
      for (uint32_t i = 0; i < k.n; ++i) {
        const size_t at = k.node(i);
        auto what = [&] { return "rank " + std::to_string(r) + ", operation " + std::to_string(i); };
        const OpFields op = operation(at, s, what);
        auto list = [&](size_t count_at, auto& col) {
          const uint32_t count = u32(count_at, ""), from = u32(count_at + 4, "");
          if (count == 0) return;
          if (uint64_t(from) + count > k.appendix_size) fail(what() + ": its dependents lie past the rank's appendix");
          for (uint32_t j = 0; j < count; ++j) {
            const uint32_t d = u32(k.appendix + 4 * (size_t(from) + j), "");
            if (d >= k.n) fail(what() + ": a dependent operation " + std::to_string(d) + " is past the rank's " + std::to_string(k.n));
            col.push_back(uint32_t(first + d));
            ++counted[d];
          }
        };
        list(at + 23, done_to);
        done_at.push_back(uint32_t(done_to.size()));
        list(at + 31, start_to);
        start_at.push_back(uint32_t(start_to.size()));
        ops.push(op);
      }
      for (uint32_t i = 0; i < k.n; ++i)
        if (const uint32_t written = u32(k.node(i), ""); written != counted[i])
          fail("rank " + std::to_string(r) + ", operation " + std::to_string(i) + ": the file counts " + std::to_string(written) +
               " dependencies and lists " + std::to_string(counted[i]));
      s.done.append_rank(uint32_t(first), k.n, done_at.data(), done_to.data());
      s.start.append_rank(uint32_t(first), k.n, start_at.data(), start_to.data());
      if (consumed_) consumed_(k.end);
    }
    s.done.finish();
    s.start.finish();
    ops.move_into(s);
    return s;
  }

 private:
  // The record of an operation at `at`, checked: its type, size, peer, CPU and NIC. `what` names it
  // in a message.
  template <class What>
  OpFields operation(size_t at, const Schedule& s, const What& what) const {
    OpFields op;
    const uint8_t type = u8(at + 4, "");
    if (type != loggp::kSend && type != loggp::kRecv && type != loggp::kCalc)
      fail(what() + ": type " + std::to_string(int(type)) + " is none of 1 (send), 2 (recv), 3 (calc)");
    op.type = type;
    op.peer = u32(at + 5, "");
    const uint64_t size = u64(at + 9, "");
    if (size > loggp::kMaxSize) fail(what() + ": a size of " + std::to_string(size) + " is past 2^40 - 1");
    op.size = size;
    op.tag = u32(at + 17, "");
    op.cpu = u8(at + 21, "");
    op.nic = u8(at + 22, "");
    if (type != loggp::kCalc && op.peer >= s.ranks && !(type == loggp::kRecv && op.peer == loggp::kAny))
      fail(what() + ": peer " + std::to_string(op.peer) + " is no rank below " + std::to_string(s.ranks));
    if (op.cpu >= s.cpus || op.nic >= s.nics)
      fail(what() + ": CPU " + std::to_string(op.cpu) + " or NIC " + std::to_string(op.nic) + " is past the file's highest");
    return op;
  }

  struct Rank {
    size_t nodes = 0, appendix = 0, end = 0;
    uint64_t appendix_size = 0;
    uint32_t n = 0;
    size_t node(uint32_t i) const { return nodes + kNodeBytes * i; }
  };

  // Rank r's place: its operations, their records and its appendix, all within the file.
  Rank rank(uint32_t r) {
    const uint64_t table = base_ + 6 + 16 * uint64_t(r);
    const uint64_t start = u64(table, "the jump table"), end = u64(table + 8, "the jump table");
    if (start > end || base_ + end > b_.size()) fail("rank " + std::to_string(r) + "'s data lies outside the file");
    Rank k;
    const size_t at = size_t(base_ + start);
    k.n = u32(at, "a rank's operation count");
    const uint32_t roots = u32(at + 4, "a rank's root count");
    if (roots > k.n) fail("rank " + std::to_string(r) + ": " + std::to_string(roots) + " roots of " + std::to_string(k.n) + " operations");
    k.nodes = at + 8 + 4 * size_t(roots);
    k.appendix = k.nodes + kNodeBytes * size_t(k.n);
    if (k.appendix > base_ + end) fail("rank " + std::to_string(r) + ": its " + std::to_string(k.n) + " operations run past its data");
    k.appendix_size = (base_ + end - k.appendix) / 4;
    k.end = size_t(base_ + end);
    return k;
  }

  [[noreturn]] void fail(const std::string& what) const { throw ParseError(name_ + ": " + what); }
  void need(size_t at, size_t n, const char* what) const {
    if (at > b_.size() || b_.size() - at < n)
      fail(std::string("the file ends before ") + (*what ? what : "an operation's record") + " (byte " + std::to_string(at) + " of " +
           std::to_string(b_.size()) + ")");
  }
  uint8_t u8(size_t at, const char* what) const {
    need(at, 1, what);
    return uint8_t(b_[at]);
  }
  uint32_t u32(size_t at, const char* what) const {
    need(at, 4, what);
    uint32_t v;
    std::memcpy(&v, b_.data() + at, 4);
    return v;
  }
  uint64_t u64(size_t at, const char* what) const {
    need(at, 8, what);
    uint64_t v;
    std::memcpy(&v, b_.data() + at, 8);
    return v;
  }

  std::string_view b_;
  std::string name_;
  std::function<void(size_t)> consumed_;  // told how far the file has been read (its pages are given back)
  size_t base_ = 0;
};

}  // namespace

bool is_binary_schedule(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  uint64_t magic;
  std::memcpy(&magic, bytes.data(), 8);
  return magic == kMagic || magic == kMagicInvalid;
}

Schedule read_binary(std::string_view bytes, const std::string& name, std::function<void(size_t)> consumed) {
  return BinaryReader(bytes, name, std::move(consumed)).run();
}

}  // namespace ppsim::goal
