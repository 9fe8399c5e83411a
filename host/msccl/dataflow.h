// The data of a running MSCCL program (docs/DESIGN.md §3d): every GPU's three storages of real
// words, and beside each chunk the lineage of its value, which verification uses to name the step
// where a wrong result first went wrong.
//
// A value's lineage node lists its contributions, the input chunks (gpu r, chunk j) folded into it,
// as a sorted multiset (a contribution counted twice shows twice), the nodes it was made from, the
// step that made it, the slot it was written to and the node that slot held before.
#pragma once
#include <cstdint>
#include <vector>

#include "msccl/check.h"
#include "msccl/execute.h"

namespace ppsim::msccl {

inline constexpr uint32_t kNoNode = UINT32_MAX;

struct Node {
  std::vector<uint32_t> contrib;  // contribution ids r·input_chunks + j, sorted
  uint32_t parent[2] = {kNoNode, kNoNode};
  uint32_t overwritten = kNoNode;  // the node the written slot held before
  StepRef writer;                  // gpu -1: the initial data
  int gpu = -1, storage = -1;      // the slot written (storage -1: a value only sent)
  int64_t chunk = -1;
  bool reduction = false;
};

// One chunk in flight or read: its words and its node.
struct ChunkValue {
  std::vector<uint64_t> words;
  uint32_t node = kNoNode;
};

class DataState {
 public:
  DataState(const Program& p, const Machine& m);

  // Step `s` of GPU g's threadblock: takes `in` (the received chunks, when the step receives),
  // updates the GPU's buffers and fills `out` with the chunks it sends. Returns the words combined.
  int64_t apply(const StepRef& at, const Step& s, const std::vector<ChunkValue>* in, std::vector<ChunkValue>* out);

  const Program& program() const { return p_; }
  const Layout& layout(int gpu) const { return layouts_[size_t(gpu)]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // Chunk `chunk` of GPU g's buffer b (a view index, as the program names it).
  ChunkValue read(int gpu, Buffer b, int64_t chunk) const;
  // The words the input chunk of contribution id c starts with.
  uint64_t input_word(uint32_t contribution, int64_t word) const;
  int64_t chunk_words() const { return w_; }
  OperatorKind combine() const { return op_; }

 private:
  uint32_t add_node(Node n);
  void write(const StepRef& at, int gpu, Buffer b, int64_t chunk, const ChunkValue& v, uint32_t made_from, bool reduction);
  ChunkValue reduce(const ChunkValue& a, const ChunkValue& b, const StepRef& at);

  const Program& p_;
  OperatorKind op_;
  InputSpec input_;
  int64_t w_, input_chunks_;
  std::vector<Layout> layouts_;
  std::vector<std::vector<uint64_t>> words_[kBuffers];  // [storage][gpu]: chunks × w words
  std::vector<std::vector<uint32_t>> slot_[kBuffers];   // [storage][gpu]: the node of each chunk
  std::vector<Node> nodes_;                             // node 0: never written
};

}  // namespace ppsim::msccl
