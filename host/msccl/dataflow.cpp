// The data of a running MSCCL program (dataflow.h): initial words, what each step type does to
// them, and the lineage nodes beside them.
#include "msccl/dataflow.h"

#include <algorithm>
#include <iterator>

namespace ppsim::msccl {

DataState::DataState(const Program& p, const Machine& m)
    : p_(p), op_(m.combine), input_(m.input), w_(m.chunk_words), input_chunks_(collective_shape(p).input_chunks) {
  nodes_.push_back(Node{});  // node 0: a slot never written
  for (int b = 0; b < kBuffers; ++b) {
    words_[b].resize(size_t(p.ngpus));
    slot_[b].resize(size_t(p.ngpus));
  }
  for (int g = 0; g < p.ngpus; ++g) {
    layouts_.push_back(buffer_layout(p, g));
    const Layout& l = layouts_.back();
    for (int b = 0; b < kBuffers; ++b) {
      words_[b][size_t(g)].assign(size_t(l.storage_chunks[b] * w_), operator_unset(op_));
      slot_[b][size_t(g)].assign(size_t(l.storage_chunks[b]), 0);
    }
    // The collective's input: chunk j of GPU g is contribution g·input_chunks + j.
    const View& in = l.view[int(Buffer::input)];
    for (int64_t j = 0; j < input_chunks_; ++j) {
      Node n;
      n.contrib = {uint32_t(g * input_chunks_ + j)};
      n.gpu = g, n.storage = in.storage, n.chunk = in.offset + j;
      slot_[in.storage][size_t(g)][size_t(in.offset + j)] = add_node(std::move(n));
      for (int64_t t = 0; t < w_; ++t)
        words_[in.storage][size_t(g)][size_t((in.offset + j) * w_ + t)] = input_word(uint32_t(g * input_chunks_ + j), t);
    }
  }
}

uint64_t DataState::input_word(uint32_t contribution, int64_t word) const {
  const int64_t g = contribution / input_chunks_, j = contribution % input_chunks_;
  return ppsim::input_word(op_, input_, g, j * w_ + word, input_chunks_ * w_);
}

uint32_t DataState::add_node(Node n) {
  nodes_.push_back(std::move(n));
  return uint32_t(nodes_.size() - 1);
}

ChunkValue DataState::read(int gpu, Buffer b, int64_t chunk) const {
  const View& v = layouts_[size_t(gpu)].view[int(b)];
  const int64_t at = v.offset + chunk;
  const auto& words = words_[v.storage][size_t(gpu)];
  ChunkValue c;
  c.words.assign(words.begin() + at * w_, words.begin() + (at + 1) * w_);
  c.node = slot_[v.storage][size_t(gpu)][size_t(at)];
  return c;
}

// a ⊕ b word by word, and a node whose contributions are both operands'.
ChunkValue DataState::reduce(const ChunkValue& a, const ChunkValue& b, const StepRef& at) {
  ChunkValue r;
  r.words.resize(size_t(w_));
  for (int64_t t = 0; t < w_; ++t) r.words[size_t(t)] = combine_dyn(op_, a.words[size_t(t)], b.words[size_t(t)]);
  Node n;
  const auto &x = nodes_[a.node].contrib, &y = nodes_[b.node].contrib;
  std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(n.contrib));
  n.parent[0] = a.node, n.parent[1] = b.node;
  n.writer = at;
  n.reduction = true;
  r.node = add_node(std::move(n));
  return r;
}

// Stores v in a slot. A value made by this step (`fresh`, a reduction) is its own write; a copied
// value gets a node of its own, so that every write is a node that knows what it overwrote.
void DataState::write(const StepRef& at, int gpu, Buffer b, int64_t chunk, const ChunkValue& v, uint32_t made_from, bool fresh) {
  const View& view = layouts_[size_t(gpu)].view[int(b)];
  const int64_t slot = view.offset + chunk;
  uint32_t id = v.node;
  if (!fresh) {
    Node n;
    n.contrib = nodes_[made_from].contrib;
    n.parent[0] = made_from;
    n.writer = at;
    id = add_node(std::move(n));
  }
  Node& n = nodes_[id];
  n.gpu = gpu, n.storage = view.storage, n.chunk = slot;
  n.overwritten = slot_[view.storage][size_t(gpu)][size_t(slot)];
  slot_[view.storage][size_t(gpu)][size_t(slot)] = id;
  std::copy(v.words.begin(), v.words.end(), words_[view.storage][size_t(gpu)].begin() + slot * w_);
}

int64_t DataState::apply(const StepRef& at, const Step& s, const std::vector<ChunkValue>* in, std::vector<ChunkValue>* out) {
  const StepTraits& t = step_traits(s.type);
  if (s.type == StepType::nop) return 0;
  // Every chunk is read before any is written: a step whose operands overlap reads the old words.
  std::vector<ChunkValue> result(size_t(s.count));
  std::vector<bool> fresh(size_t(s.count), false);
  for (int64_t c = 0; c < s.count; ++c) {
    ChunkValue src = t.reads_src ? read(at.gpu, s.src_buf, s.src_off + c) : ChunkValue{};
    if (s.type == StepType::reduce) {
      result[size_t(c)] = reduce(read(at.gpu, s.dst_buf, s.dst_off + c), src, at);  // dst = dst ⊕ src
      fresh[size_t(c)] = true;
    } else if (t.receives && t.reduces) {
      result[size_t(c)] = reduce((*in)[size_t(c)], src, at);  // received ⊕ local
      fresh[size_t(c)] = true;
    } else {
      result[size_t(c)] = t.receives ? (*in)[size_t(c)] : std::move(src);  // r, rcs: received; s, cpy: src
    }
  }
  for (int64_t c = 0; c < s.count; ++c) {
    ChunkValue& v = result[size_t(c)];
    if (t.writes_dst) {
      const uint32_t from = v.node;
      write(at, at.gpu, s.dst_buf, s.dst_off + c, v, from, fresh[size_t(c)]);
      if (!fresh[size_t(c)]) v.node = uint32_t(nodes_.size() - 1);  // what is sent on is what was stored
    }
    if (t.sends) out->push_back(std::move(v));
  }
  return t.reduces ? s.count * w_ : 0;
}

}  // namespace ppsim::msccl
