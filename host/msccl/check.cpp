// Checking an MSCCL program before it runs (check.h), and the small tables of program.h.
#include "msccl/check.h"

#include <algorithm>
#include <map>
#include <utility>

namespace ppsim::msccl {

const StepTraits& step_traits(StepType t) {
  //                                name    receives sends  reduces reads_src writes_dst
  static const StepTraits table[] = {{"s", false, true, false, true, false},     {"r", true, false, false, false, true},
                                     {"rcs", true, true, false, false, true},    {"rrs", true, true, true, true, false},
                                     {"rrc", true, false, true, true, true},     {"rrcs", true, true, true, true, true},
                                     {"re", false, false, true, true, true},     {"cpy", false, false, false, true, true},
                                     {"nop", false, false, false, false, false}};
  return table[int(t)];
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::allgather: return "allgather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::alltoall: return "alltoall";
  }
  return "?";
}

int64_t Program::steps() const {
  int64_t n = 0;
  for (const Gpu& g : gpus)
    for (const Threadblock& tb : g.tbs) n += int64_t(tb.steps.size());
  return n;
}

Shape collective_shape(const Program& p) {
  const bool per_gpu = p.coll != Collective::allreduce;  // nchunksperloop counts ngpus·cf chunks
  const int64_t cf = per_gpu ? p.chunks_per_loop / p.ngpus : p.chunks_per_loop;
  const int64_t all = cf * p.ngpus;
  switch (p.coll) {
    case Collective::allreduce: return {cf, cf, cf};
    case Collective::allgather: return {cf, cf, all};
    case Collective::reduce_scatter: return {cf, all, cf};
    case Collective::alltoall: return {cf, all, all};
  }
  return {cf, cf, cf};
}

std::string operand_text(Buffer b, int64_t off, int64_t count) {
  const char* names[] = {"i", "o", "s"};
  return std::string(names[int(b)]) + "[" + std::to_string(off) + (count > 1 ? ".." + std::to_string(off + count - 1) : "") + "]";
}

Layout buffer_layout(const Program& p, int gpu) {
  const Gpu& g = p.gpus[size_t(gpu)];
  Layout l;
  for (int b = 0; b < kBuffers; ++b) {
    l.storage_chunks[b] = g.chunks[b];
    l.view[b] = View{b, 0, g.chunks[b]};
  }
  if (!p.inplace) return l;
  const int64_t cf = collective_shape(p).chunk_factor;
  if (p.coll == Collective::allgather) {
    l.view[0] = View{1, gpu * cf, cf};
  } else if (p.coll == Collective::reduce_scatter) {
    l.view[1] = View{0, gpu * cf, cf};
  } else {
    l.storage_chunks[0] = std::max(g.chunks[0], g.chunks[1]);
    l.storage_chunks[1] = 0;
    l.view[0] = l.view[1] = View{0, 0, l.storage_chunks[0]};
  }
  return l;
}

namespace {

[[noreturn]] void fail(const Program& p, int line, const std::string& message) {
  throw ParseError(p.file + ":" + std::to_string(line) + ": " + message);
}

void check_shape(Program& p) {
  if (p.coll != Collective::allreduce && p.chunks_per_loop % p.ngpus != 0)
    fail(p, p.line,
         "nchunksperloop=" + std::to_string(p.chunks_per_loop) + " is not a multiple of ngpus=" + std::to_string(p.ngpus) + " (" +
             collective_name(p.coll) + " moves ngpus blocks)");
  const Shape s = collective_shape(p);
  for (const Gpu& g : p.gpus) {
    const Layout l = buffer_layout(p, g.id);
    if (l.view[0].offset + l.view[0].size > l.storage_chunks[l.view[0].storage] || l.view[0].size < s.input_chunks)
      fail(p, g.line, "gpu " + std::to_string(g.id) + ": its input holds fewer than the " + std::to_string(s.input_chunks) + " chunks of " +
                          (p.inplace ? "an in-place " : "an ") + collective_name(p.coll) + " of nchunksperloop " +
                          std::to_string(p.chunks_per_loop));
    if (l.view[1].offset + l.view[1].size > l.storage_chunks[l.view[1].storage] || l.view[1].size < s.output_chunks)
      fail(p, g.line, "gpu " + std::to_string(g.id) + ": its output holds fewer than the " + std::to_string(s.output_chunks) +
                          " chunks of " + (p.inplace ? "an in-place " : "an ") + collective_name(p.coll) + " of nchunksperloop " +
                          std::to_string(p.chunks_per_loop));
  }
}

void check_operand(const Program& p, const Layout& l, const Step& s, Buffer b, int64_t off, const char* what) {
  const View& v = l.view[int(b)];
  if (off < 0 || s.count < 1 || off + s.count > v.size)
    fail(p, s.line,
         std::string(step_traits(s.type).name) + " step's " + what + " " + operand_text(b, off, s.count) + " is outside its buffer of " +
             std::to_string(v.size) + " chunks" + (s.count < 1 ? " (cnt must be at least 1)" : ""));
}

void check_steps(const Program& p, const Gpu& g, const Threadblock& tb, const Layout& l) {
  for (const Step& s : tb.steps) {
    const StepTraits& t = step_traits(s.type);
    if (t.receives && tb.recv < 0) fail(p, s.line, std::string(t.name) + " step in a threadblock with recv=\"-1\" (no peer to receive from)");
    if (t.sends && tb.send < 0) fail(p, s.line, std::string(t.name) + " step in a threadblock with send=\"-1\" (no peer to send to)");
    if (t.reads_src) check_operand(p, l, s, s.src_buf, s.src_off, "source");
    if (t.writes_dst) check_operand(p, l, s, s.dst_buf, s.dst_off, "destination");
    if ((s.dep_tb < 0) != (s.dep_step < 0)) fail(p, s.line, "depid and deps must both be -1 or both name a step");
    if (s.dep_tb < 0) continue;
    if (s.dep_tb >= int(g.tbs.size()))
      fail(p, s.line, "depid=" + std::to_string(s.dep_tb) + ": gpu " + std::to_string(g.id) + " has no threadblock " + std::to_string(s.dep_tb));
    const Threadblock& other = g.tbs[size_t(s.dep_tb)];
    if (s.dep_step >= int(other.steps.size()))
      fail(p, s.line, "deps=" + std::to_string(s.dep_step) + ": threadblock " + std::to_string(s.dep_tb) + " of gpu " + std::to_string(g.id) +
                          " has " + std::to_string(other.steps.size()) + " steps");
    if (!other.steps[size_t(s.dep_step)].has_dep)
      fail(p, s.line, "waits for threadblock " + std::to_string(s.dep_tb) + " step " + std::to_string(s.dep_step) +
                          ", whose hasdep is 0 (it would never signal)");
  }
}

// One threadblock per (peer, channel) and direction: a connection's FIFO has one writer and one reader.
void check_connections(const Program& p, const Gpu& g) {
  std::map<std::pair<int, int>, int> sends, recvs;
  for (const Threadblock& tb : g.tbs) {
    if (tb.send == g.id || tb.recv == g.id) fail(p, tb.line, "threadblock " + std::to_string(tb.id) + " names its own gpu as a peer");
    if (p.nchannels > 0 && tb.chan >= p.nchannels)
      fail(p, tb.line, "chan=" + std::to_string(tb.chan) + " is not below nchannels=" + std::to_string(p.nchannels));
    for (auto [map, peer, dir] : {std::tuple{&sends, tb.send, "sends to"}, std::tuple{&recvs, tb.recv, "receives from"}}) {
      if (peer < 0) continue;
      auto [it, fresh] = map->emplace(std::pair{peer, tb.chan}, tb.id);
      if (!fresh)
        fail(p, tb.line, "threadblocks " + std::to_string(it->second) + " and " + std::to_string(tb.id) + " both " + dir + " gpu " +
                             std::to_string(peer) + " on channel " + std::to_string(tb.chan));
    }
  }
}

}  // namespace

void check_program(Program& p) {
  check_shape(p);
  int channels = 0;
  for (const Gpu& g : p.gpus) {
    check_connections(p, g);
    const Layout l = buffer_layout(p, g.id);
    for (const Threadblock& tb : g.tbs) {
      channels = std::max(channels, tb.chan + 1);
      check_steps(p, g, tb, l);
    }
  }
  if (p.nchannels == 0) p.nchannels = std::max(channels, 1);
}

}  // namespace ppsim::msccl
