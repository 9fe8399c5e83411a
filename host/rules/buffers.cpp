// The buffers of a run (their count, sizes and names) and the bookkeeping of its per-step figures.
#include <algorithm>

#include "ppsim/engine.h"

namespace ppsim {

void add_step(RunResult& r, StepStats st, int lambda) {
  if (lambda > 1) st.time = 1.0;  // postal model: time is the number of steps
  r.per_step.push_back(st);
  r.messages += st.messages;
  r.words += st.words;
  r.link_hops += st.link_hops;
  r.max_link_load = std::max(r.max_link_load, st.max_link_load);
  r.time += st.time;
  r.dropped += st.dropped;
  r.rerouted += st.rerouted;
}

void add_local_folds(RunResult& r, double gamma, int64_t words, int lambda) {
  if (lambda == 1 && words > 0) r.time += gamma * double(words);
}

int run_buffer_count(const RunConfig& c) {
  return operation_buffer_count(c.algorithm->op) + (c.algorithm->scratch_words(c.params) > 0 ? 1 : 0);
}

int64_t run_buffer_words(const RunConfig& c, int32_t b) {
  const Operation op = c.algorithm->op;
  return b < operation_buffer_count(op) ? operation_buffer_words(op, b, c.params) : c.algorithm->scratch_words(c.params);
}

int64_t run_processors(const RunConfig& c) {
  return c.algorithm && c.algorithm->switch_agents() ? topology_nodes(physical_topology(c)) : c.params.p;
}

uint64_t run_total_words(const RunConfig& c) {
  uint64_t words = 0;
  for (int b = 0; b < run_buffer_count(c); ++b) words += uint64_t(run_processors(c)) * uint64_t(run_buffer_words(c, b));
  return words;
}

const char* buffer_name(Operation op, int32_t b) {
  if (b >= operation_buffer_count(op)) return "scratch";
  if (b == kData) return op == Operation::alltoall ? "send" : op == Operation::barrier ? "token" : "data";
  switch (op) {
    case Operation::scan: return b == kPartial ? "partial" : "prefix";
    case Operation::reduce_scatter: return "result";
    default: return "recv";
  }
}

}  // namespace ppsim
