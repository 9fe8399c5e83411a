// The processors' buffers on the CPU backend: one array per buffer, processor i's words of buffer
// b at i * words(b); their initial words, and the algorithm's local (non-communicating) work on
// them. The passes of a step read and write the words through slot().
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/step_store.h"

namespace ppsim::cpu {

class ProcessorBuffers {
 public:
  // Every processor's buffers, holding the operation's initial words (unset where it has none).
  ProcessorBuffers(const CpuRules& rules, const ChunkPlan& plan);
  ProcessorBuffers(const ProcessorBuffers&) = delete;  // base_ points into bufs_
  ProcessorBuffers& operator=(const ProcessorBuffers&) = delete;

  int64_t words(int32_t b) const { return shape_.words[b]; }
  // Processor proc's words of buffer b (proc in this process's block [lo, hi)).
  uint64_t* slot(int32_t b, int64_t proc) { return base_[b] + (proc - lo_) * words(b); }
  const uint64_t* slot(int32_t b, int64_t proc) const { return base_[b] + (proc - lo_) * words(b); }

  // Every processor's local work of `phase`, e.g. Lin–Yeh Algorithm B folding its own elements
  // before step 1 and expanding its prefixes after the last.
  void local_phase(const CpuRules& rules, const ChunkPlan& plan, LocalPhase phase);

  // The buffers of processors lo .. procs-1 (switch agents, after them, are left out).
  std::vector<std::vector<uint64_t>> copy(int64_t procs) const {
    std::vector<std::vector<uint64_t>> out;
    const int64_t n = std::max<int64_t>(0, std::min(procs, hi_) - lo_);
    for (int b = 0; b < shape_.nbuf; ++b) out.emplace_back(bufs_[size_t(b)].begin(), bufs_[size_t(b)].begin() + n * words(b));
    return out;
  }
  std::vector<std::vector<uint64_t>> release(int64_t procs) {
    const int64_t n = std::max<int64_t>(0, std::min(procs, hi_) - lo_);
    for (int b = 0; b < shape_.nbuf; ++b) bufs_[size_t(b)].resize(size_t(n * words(b)));
    return std::move(bufs_);
  }

 private:
  int64_t lo_ = 0, hi_ = 0;  // the processors held: this process's block
  rules::Shape shape_;
  std::vector<std::vector<uint64_t>> bufs_;
  uint64_t* base_[kMaxBuffers] = {};  // bufs_[b].data(): one load fewer per slot on the passes' hot paths
};

}  // namespace ppsim::cpu
