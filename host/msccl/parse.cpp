// Reading an MSCCL program (program.h) with pugixml: first the XML into plain data, each element's
// line kept, then every reference checked against the declared sizes (check.cpp). Nothing here
// runs the program.
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>

#include "io/input_file.h"
#include "msccl/check.h"
#include "msccl/program.h"

namespace ppsim::msccl {

namespace {

// Turns pugixml's byte offsets into line numbers.
class Lines {
 public:
  explicit Lines(const std::string& text) {
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }
  int of(ptrdiff_t offset) const {
    return 1 + int(std::lower_bound(newlines_.begin(), newlines_.end(), size_t(std::max<ptrdiff_t>(offset, 0))) - newlines_.begin());
  }

 private:
  std::vector<size_t> newlines_;
};

struct Reader {
  const std::string& file;
  const Lines& lines;

  int line(const pugi::xml_node& n) const { return lines.of(n.offset_debug()); }
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& message) const {
    throw ParseError(file + ":" + std::to_string(line(n)) + ": " + message);
  }
  std::string text(const pugi::xml_node& n, const char* name) const {
    pugi::xml_attribute a = n.attribute(name);
    if (!a) fail(n, std::string("<") + n.name() + "> has no attribute " + name);
    return a.value();
  }
  // A decimal integer in [lo, hi].
  int64_t number(const pugi::xml_node& n, const char* name, int64_t lo, int64_t hi) const {
    const std::string t = text(n, name);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
      fail(n, std::string(name) + "=\"" + t + "\" is not a whole number");
    if (v < lo || v > hi)
      fail(n, std::string(name) + "=" + t + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  Buffer buffer(const pugi::xml_node& n, const char* name) const {
    const std::string t = text(n, name);
    if (t == "i") return Buffer::input;
    if (t == "o") return Buffer::output;
    if (t == "s") return Buffer::scratch;
    fail(n, std::string(name) + "=\"" + t + "\" is not a buffer (i, o or s)");
  }
};

// Limits that keep a hostile file from asking for absurd memory before anything is checked.
constexpr int64_t kMaxGpus = 1 << 16, kMaxChunks = int64_t(1) << 32, kMaxIds = 1 << 20;

Step read_step(const Reader& r, const pugi::xml_node& n, size_t index) {
  Step s;
  s.line = r.line(n);
  if (r.number(n, "s", 0, kMaxIds) != int64_t(index)) r.fail(n, "step s=" + r.text(n, "s") + " is not its position " + std::to_string(index));
  const std::string type = r.text(n, "type");
  bool known = false;
  for (int t = 0; t <= int(StepType::nop) && !known; ++t)
    if (type == step_traits(StepType(t)).name) s.type = StepType(t), known = true;
  if (!known) r.fail(n, "unknown step type \"" + type + "\" (s, r, rcs, rrs, rrc, rrcs, re, cpy, nop)");
  s.src_buf = r.buffer(n, "srcbuf");
  s.dst_buf = r.buffer(n, "dstbuf");
  s.src_off = r.number(n, "srcoff", -1, kMaxChunks);
  s.dst_off = r.number(n, "dstoff", -1, kMaxChunks);
  s.count = r.number(n, "cnt", 0, kMaxChunks);
  s.dep_tb = int(r.number(n, "depid", -1, kMaxIds));
  s.dep_step = int(r.number(n, "deps", -1, kMaxIds));
  s.has_dep = r.number(n, "hasdep", 0, 1) == 1;
  return s;
}

Threadblock read_tb(const Reader& r, const pugi::xml_node& n, int ngpus) {
  Threadblock tb;
  tb.line = r.line(n);
  tb.id = int(r.number(n, "id", 0, kMaxIds));
  tb.send = int(r.number(n, "send", -1, ngpus - 1));
  tb.recv = int(r.number(n, "recv", -1, ngpus - 1));
  tb.chan = int(r.number(n, "chan", 0, kMaxIds));
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    if (std::string(c.name()) != "step") r.fail(c, std::string("<") + c.name() + "> inside <tb> (expected <step>)");
    tb.steps.push_back(read_step(r, c, tb.steps.size()));
  }
  return tb;
}

Gpu read_gpu(const Reader& r, const pugi::xml_node& n, int ngpus) {
  Gpu g;
  g.line = r.line(n);
  g.id = int(r.number(n, "id", 0, ngpus - 1));
  g.chunks[0] = r.number(n, "i_chunks", 0, kMaxChunks);
  g.chunks[1] = r.number(n, "o_chunks", 0, kMaxChunks);
  g.chunks[2] = r.number(n, "s_chunks", 0, kMaxChunks);
  for (pugi::xml_node c : n.children()) {
    if (c.type() != pugi::node_element) continue;
    if (std::string(c.name()) != "tb") r.fail(c, std::string("<") + c.name() + "> inside <gpu> (expected <tb>)");
    g.tbs.push_back(read_tb(r, c, ngpus));
    if (g.tbs.back().id != int(g.tbs.size()) - 1)
      r.fail(c, "tb id=" + std::to_string(g.tbs.back().id) + " is not its position " + std::to_string(g.tbs.size() - 1));
  }
  return g;
}

Collective read_collective(const Reader& r, const pugi::xml_node& n) {
  const std::string c = r.text(n, "coll");
  for (Collective k : {Collective::allreduce, Collective::allgather, Collective::reduce_scatter, Collective::alltoall})
    if (c == collective_name(k)) return k;
  if (c == "reducescatter") return Collective::reduce_scatter;
  r.fail(n, "coll=\"" + c + "\" has no reference here (allreduce, allgather, reduce_scatter, alltoall)");
}

Program read_algo(const Reader& r, const pugi::xml_node& algo) {
  Program p;
  p.file = r.file;
  p.line = r.line(algo);
  p.name = algo.attribute("name").value();
  p.proto = algo.attribute("proto").value();
  p.ngpus = int(r.number(algo, "ngpus", 1, kMaxGpus));
  p.chunks_per_loop = r.number(algo, "nchunksperloop", 1, kMaxChunks);
  p.coll = read_collective(r, algo);
  p.inplace = r.number(algo, "inplace", 0, 1) == 1;
  p.nchannels = algo.attribute("nchannels") ? int(r.number(algo, "nchannels", 1, kMaxIds)) : 0;
  std::vector<bool> seen(size_t(p.ngpus), false);
  p.gpus.resize(size_t(p.ngpus));
  for (pugi::xml_node c : algo.children()) {
    if (c.type() != pugi::node_element) continue;
    if (std::string(c.name()) != "gpu") r.fail(c, std::string("<") + c.name() + "> inside <algo> (expected <gpu>)");
    Gpu g = read_gpu(r, c, p.ngpus);
    if (seen[size_t(g.id)]) r.fail(c, "gpu id=" + std::to_string(g.id) + " appears twice");
    seen[size_t(g.id)] = true;
    p.gpus[size_t(g.id)] = std::move(g);
  }
  for (int i = 0; i < p.ngpus; ++i)
    if (!seen[size_t(i)]) r.fail(algo, "no <gpu id=\"" + std::to_string(i) + "\"> (ngpus=" + std::to_string(p.ngpus) + ")");
  return p;
}

}  // namespace

Program parse(const std::string& text, const std::string& name) {
  pugi::xml_document doc;
  const Lines lines(text);
  const pugi::xml_parse_result ok = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!ok) throw ParseError(name + ":" + std::to_string(lines.of(ok.offset)) + ": not well-formed XML: " + ok.description());
  const Reader r{name, lines};
  pugi::xml_node algo = doc.document_element();
  if (!algo || std::string(algo.name()) != "algo")
    throw ParseError(name + ":" + std::to_string(algo ? r.line(algo) : 1) + ": the document is not an <algo> element");
  // pugixml reads a second root element without complaint; XML allows one, and a file of two
  // programs would run the first alone.
  for (pugi::xml_node n = algo.next_sibling(); n; n = n.next_sibling())
    if (n.type() == pugi::node_element)
      r.fail(n, "not well-formed XML: a second root element <" + std::string(n.name()) + "> (an MSCCL file holds one <algo>)");
  Program p = read_algo(r, algo);
  check_program(p);
  return p;
}

Program read_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw ParseError(e.what());
  }
  return parse(text, path);
}

}  // namespace ppsim::msccl
