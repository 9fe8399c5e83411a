// Which configurations the CPU backend runs on the pull step (pull_step_refusal, ppsim/engine.h),
// and which of a routed run's rounds it takes for rounds of one-hop messages: the choice of path,
// apart from the pass that runs it (pull_run.cpp).
#include <algorithm>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/pull_run.h"
#include "rules/pull_rules.h"
#include "rules/round_ops.h"

namespace ppsim::cpu {

// Algorithms that post more sends (and receives) a step than this keep the record path: each
// receive asks its sender for the sender's ops again, which costs more than a record once a
// processor hears from many.
constexpr int kMaxPullSends = 4;

// On routed topologies every processor's ops are asked for once more, to count the link loads
// before any message is costed, and the pull step gains only where messages are long enough for
// the payload copies it saves to outweigh that: on the 2^16-processor hypercube (all-reduce, one
// thread) the two paths took the same time at m = 16, the pull step 1.3 times less at m = 64 and
// 1.9 times less at m = 256, and 1.1 times more at m = 1. A round whose loads are guessed (its
// messages each cross one link, or one XOR distance on the hypercube) counts nothing
// (rules::one_hop_cost), so a run of such rounds takes the pull step at any m.
constexpr int64_t kMinRoutedPullWords = 16;

// Which rounds of a run on a routed topology guess their link loads (rules::RoundGuess: every
// message one hop, or one XOR distance on the hypercube) from the host's sample of processors, as
// the device rounds guess them (cuda/rounds.h). A guess is checked by its round (pull_run.cpp,
// PullChunk::multi). Empty where nothing is guessed: direct links, or failures, whose reroutes
// change routes.
std::vector<int64_t> sampled_round_guesses(const CpuRules& r) {
  const int rounds = r.c.algorithm->rounds(r.a);
  if (direct_links(r.topo()) || r.machine.failures || rounds <= 0) return {};
  std::vector<int64_t> guesses(size_t(rounds), rules::kCountLoads);
  const int64_t sample = rules::round_sample_size(r.p);
  StepOps ops;
  for (int k = 1; k <= rounds; ++k) {
    rules::RoundGuess g;
    for (int64_t j = 0; j < sample && g.guess() != rules::kCountLoads; ++j) {
      const int64_t i = rules::sampled_processor(0, r.p, sample, j);
      if (!rules::read_round_ops(r.c.algorithm->id, r.c.test_ops_override, r.a, i, k, ops)) continue;  // (the pass says so)
      g.add(r.machine, r.ports.p, i, ops);
    }
    guesses[size_t(k - 1)] = g.guess();
  }
  return guesses;
}
static bool every_round_guessed(const std::vector<int64_t>& guesses) {
  return !guesses.empty() && std::find(guesses.begin(), guesses.end(), rules::kCountLoads) == guesses.end();
}

}  // namespace ppsim::cpu

namespace ppsim {

const char* pull_step_refusal(const RunConfig& c, Backend backend) {
  if (c.trace) return "--trace shows every step's messages, which the record path keeps";
  if (c.ranks && c.ranks->size() > 1) return "a run split across ranks ships its crossing messages as records";
  if (c.algorithm->postal_native() && c.params.lambda > 1) return "its messages are in flight while later steps write the buffers";
  if (c.algorithm->sends_per_step > cpu::kMaxPullSends || c.ports.model == PortModel::all) return "its processors hear from many senders a step";
  if (backend == Backend::cpu && !direct_links(physical_topology(c)) && c.params.m < cpu::kMinRoutedPullWords &&
      !cpu::every_round_guessed(cpu::sampled_round_guesses(cpu::CpuRules(c))))
    return "its messages are too short, on a routed topology where they cross several links, for the pull step to gain";
  return nullptr;
}

}  // namespace ppsim
