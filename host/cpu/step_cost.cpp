// The cost bookkeeping of a send step: pass 3 on routed topologies, and the step's figures.
#include "cpu/step_cost.h"

namespace ppsim::cpu {

namespace {
// A run split across ranks: the loads of the links other ranks own come from their owners.
// Not flattened: one inlined walk over every topology's routes is enough for this unit.
void routed_cost_split(const CpuRules& rules, const LinkLoads& loads, Chunk& ch, uint32_t stamp) {
  for (const StoredSend& x : ch.sends)
    if (x.combined >= 0)  // (a send to another rank's processor is costed there)
      add_message_cost(ch, rules::route_cost_with(rules.machine, rules.c.cost, x.from, x.to, rules::charged_words(rules.tokens, x.len),
                                                  x.hops, x.combined, x.route, [&](int64_t id) { return loads.load(id, stamp); }));
}
}  // namespace

// Flattened, as match_chunk: route_cost's walk over the links is inlined into the loop over the
// sends rather than called once per message.
[[gnu::flatten]] void routed_cost_chunk(const CpuRules& rules, const LinkLoads& loads, Chunk& ch, int64_t t) {
  const uint32_t stamp = uint32_t(t);
  if (loads.own_lo == 0 && loads.own_hi == link_space(rules.topo())) {  // one process: every counter is here
    for (const StoredSend& x : ch.sends)
      add_message_cost(ch, rules::route_cost(rules.machine, rules.c.cost, x.from, x.to, rules::charged_words(rules.tokens, x.len), x.hops,
                                             x.combined, x.route, loads.counts.data(), stamp));
    return;
  }
  routed_cost_split(rules, loads, ch, stamp);
}

StepStats step_totals(const StepStore& s, int64_t t) {
  StepStats st;
  st.step = t;
  for (const Chunk& ch : s.chunks) add_chunk_stats(st, ch.stats);
  return st;
}

}  // namespace ppsim::cpu
