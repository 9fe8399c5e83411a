// Running an MSCCL program with real data on a simulated machine, timing it, and checking every
// GPU's result against the collective's sequential reference (docs/DESIGN.md §3d).
//
// Each threadblock is a sequential worker. A step starts when the threadblock's previous step has
// finished, the step it depends on (depid, deps) has finished and, for a receive, the message has
// arrived: messages of one connection (sender GPU, receiver GPU, channel) meet receives in FIFO
// order. Time under the linear model (t in the run's units, w words a chunk, n = cnt·w):
//   a step that sends        busy until its message arrives: + t_s + l·t_h + t_w·n over its route
//                            (t_w the largest per-word time of the route's link classes; l links)
//   a step that combines     + γ·n  (rrs, rrc, rrcs, re)
//   r, cpy, nop              no time of their own (a receive ends when its message is there)
// with no congestion between transfers. The time of the program is the latest step's finish.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "msccl/program.h"
#include "ppsim/cost.h"
#include "ppsim/operators.h"
#include "ppsim/topology.h"

namespace ppsim::msccl {

// The machine and data of a run: GPU i is processor i of `topology` (which has exactly ngpus).
struct Machine {
  Topology topology;
  CostParams cost;
  OperatorKind combine = OperatorKind::sum;
  InputSpec input;
  int64_t chunk_words = 1;
};

struct StepRef {
  int gpu = -1, tb = -1, step = -1;  // gpu -1: none (initial data)
};
// "gpu 2 tb 0 step 3 (rrcs)"
std::string step_text(const Program& p, const StepRef& s);

// The first result chunk that is wrong, and the step where its data first went wrong.
struct Failure {
  int gpu = -1;
  int64_t chunk = -1;  // index in the GPU's output (the checked buffer)
  StepRef step;        // gpu -1: no step could be blamed
  std::string text;    // one line naming all three and why
};

struct Outcome {
  bool completed = false;  // false: the program cannot finish (stuck says where)
  StepRef stuck;
  std::string stuck_text;
  bool verified = false;
  int64_t wrong_words = 0, wrong_chunks = 0;
  Failure first;
  double time = 0;            // linear model: the latest finish
  std::vector<double> finish;  // per GPU
  int64_t steps_run = 0, messages = 0, words_sent = 0, words_combined = 0;
  double max_error_ulps = 0;  // fsum, fsum32: largest distance from the exactly rounded result
};

// Throws ConfigError when the operator cannot be checked for this collective (a non-commutative
// operator for a reducing collective: MSCCL reduces in whatever order its schedule takes) or the
// machine does not have ngpus processors.
Outcome execute(const Program& p, const Machine& m);

}  // namespace ppsim::msccl
