// The processors' buffers on the CPU backend: their initial words and the algorithm's local work.
#include "cpu/processor_buffers.h"

#include "algorithms/dispatch.h"

namespace ppsim::cpu {

ProcessorBuffers::ProcessorBuffers(const CpuRules& rules, const ChunkPlan& plan) : lo_(plan.lo), hi_(plan.hi), shape_(rules.ports.shape) {
  const RunConfig& c = rules.c;
  const int64_t lo = lo_, n = hi_ - lo_;
  const int nchunks = plan.count;
  bufs_.resize(size_t(shape_.nbuf));
  for (int b = 0; b < shape_.nbuf; ++b) {
    bufs_[size_t(b)].assign(size_t(n * words(b)), 0);
    uint64_t* data = base_[b] = bufs_[size_t(b)].data();
    const int64_t w_per = words(b);
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks) if (nchunks > 1)
#endif
    for (int64_t x = 0; x < n; ++x)  // (the test of b stays in the loop: hoisted, it cost 5% more instructions)
      for (int64_t w = 0; w < w_per; ++w)
        data[x * w_per + w] = b < operation_buffer_count(rules.op) && lo + x < rules.a.p  // switch agents hold no input
                                  ? operation_initial_word(rules.op, c.combine, c.input, rules.a, b, lo + x, w)
                                  : operator_unset(c.combine);
  }
}

void ProcessorBuffers::local_phase(const CpuRules& rules, const ChunkPlan& plan, LocalPhase phase) {
  const int nchunks = plan.count;
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static) num_threads(nchunks) if (nchunks > 1)
#endif
  for (int64_t i = lo_; i < hi_; ++i) {
    if (phase == LocalPhase::after_last_step && rules::down_at_end(rules.machine.failures, i, rules.clock.total_steps())) continue;
    ProcBuffers view;
    for (int b = 0; b < shape_.nbuf; ++b) {
      view.buf[b] = slot(b, i);
      view.words[b] = words(b);
    }
    algorithm_local(rules.c.algorithm->id, rules.a, rules.c.combine, i, phase, view);
  }
}

}  // namespace ppsim::cpu
