// An MSCCL program as a GOAL schedule (loggp_timing.h).
#include "msccl/loggp_timing.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "ppsim/cost.h"
#include "ppsim/errors.h"

namespace ppsim::msccl {

namespace {

struct Builder {
  goal::Schedule s;
  std::vector<std::vector<uint32_t>> required_by;  // op -> the ops that wait for it to finish
  std::map<std::tuple<int, int, int>, uint32_t> sent, received;  // messages per connection so far

  uint32_t add(int gpu, const Threadblock& tb, const Step& st, loggp::OpType type, uint32_t peer, uint32_t tag, uint64_t size) {
    goal::OpFields op;
    op.peer = peer, op.tag = tag, op.size = size;
    op.cpu = uint8_t(tb.id), op.nic = uint8_t(tb.id), op.type = type;
    s.push(op);
    s.lines.push_back(uint32_t(st.line));
    s.labels += "gpu" + std::to_string(gpu) + "_tb" + std::to_string(tb.id) + "_step" + std::to_string(&st - tb.steps.data()) + '\0';
    required_by.emplace_back();
    return uint32_t(s.ops.size() - 1);
  }
  void require(uint32_t before, uint32_t after) { required_by[before].push_back(after); }
};

// The operations of one step: [first, last] of them, after `waits` (kNoOp: nothing).
constexpr uint32_t kNoOp = UINT32_MAX;

std::pair<uint32_t, uint32_t> add_step(Builder& b, const Program& p, int g, const Threadblock& tb, const Step& st, int64_t bytes) {
  const StepTraits& t = step_traits(st.type);
  const uint32_t channels = uint32_t(p.nchannels);
  uint32_t first = kNoOp, last = kNoOp;
  if (t.receives) {
    const uint32_t k = b.received[{tb.recv, g, tb.chan}]++;
    first = last = b.add(g, tb, st, loggp::kRecv, uint32_t(tb.recv), k * channels + uint32_t(tb.chan), uint64_t(bytes));
  }
  if (t.sends) {
    const uint32_t k = b.sent[{g, tb.send, tb.chan}]++;
    const uint32_t op = b.add(g, tb, st, loggp::kSend, uint32_t(tb.send), k * channels + uint32_t(tb.chan), uint64_t(bytes));
    if (last != kNoOp) b.require(last, op);
    if (first == kNoOp) first = op;
    last = op;
  }
  if (first == kNoOp) first = last = b.add(g, tb, st, loggp::kCalc, 0, 0, 0);
  return {first, last};
}

}  // namespace

goal::Schedule loggp_schedule(const Program& p, int64_t chunk_words) {
  Builder b;
  b.s.name = p.file;
  b.s.ranks = uint32_t(p.ngpus);
  for (const Gpu& g : p.gpus) {
    if (g.tbs.size() > goal::kMaxCpus)
      throw ConfigError(p.file + ": gpu " + std::to_string(g.id) + " has " + std::to_string(g.tbs.size()) +
                        " threadblocks; the LogGP timing gives each a CPU and a NIC, at most 64");
    b.s.cpus = b.s.nics = std::max<int>(b.s.cpus, int(g.tbs.size()));
  }
  std::vector<std::vector<uint32_t>> last_of;  // [tb][step] of the current GPU: its last operation
  for (const Gpu& g : p.gpus) {
    b.s.first.push_back(uint32_t(b.s.ops.size()));
    last_of.assign(g.tbs.size(), {});
    // A step's dependency is on another threadblock of the GPU, maybe one listed later: two passes.
    std::vector<std::vector<uint32_t>> first_of(g.tbs.size());
    for (const Threadblock& tb : g.tbs)
      for (const Step& st : tb.steps) {
        const auto [first, last] = add_step(b, p, g.id, tb, st, st.count * chunk_words * kBytesPerWord);
        if (!last_of[size_t(tb.id)].empty()) b.require(last_of[size_t(tb.id)].back(), first);
        first_of[size_t(tb.id)].push_back(first);
        last_of[size_t(tb.id)].push_back(last);
      }
    for (const Threadblock& tb : g.tbs)
      for (size_t i = 0; i < tb.steps.size(); ++i)
        if (tb.steps[i].dep_tb >= 0) b.require(last_of[size_t(tb.steps[i].dep_tb)][size_t(tb.steps[i].dep_step)], first_of[size_t(tb.id)][i]);
  }
  b.s.first.push_back(uint32_t(b.s.ops.size()));
  std::vector<uint32_t> row{0}, col;
  for (const auto& after : b.required_by) {
    col.insert(col.end(), after.begin(), after.end());
    row.push_back(uint32_t(col.size()));
  }
  b.s.done.assign(b.s.first, std::move(row), std::move(col));
  return std::move(b.s);
}

}  // namespace ppsim::msccl
