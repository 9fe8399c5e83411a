// The cost bookkeeping of a send step on the CPU backend (docs/DESIGN.md §3): every matched
// message's figures (messages, words, link-hops), the load it puts on the links of its route, and
// its cost (congestion and time) by the rules of step_rules.h. On direct-link topologies a
// message's cost is known when it is matched; on routed ones only once every message of the step
// has loaded its links (pass 3, routed_cost_chunk).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/step_store.h"

namespace ppsim::cpu {

// The stamped link-load counters of a routed topology (rules::count_link): one per directed link,
// never cleared. A direct-link topology has none: a link there carries its sender's sends only.
struct LinkLoads {
  explicit LinkLoads(const Topology& t) {
    if (!direct_links(t)) counts.assign(size_t(link_space(t)), 0);
  }
  std::vector<unsigned long long> counts;  // (step << 32) | messages on the link in that step
};

inline void add_message_cost(Chunk& ch, const rules::MessageCost& cost) {
  ch.stats.max_link_load = std::max(ch.stats.max_link_load, int64_t(cost.congestion));
  ch.stats.time = std::max(ch.stats.time, cost.time);
}

// Counts the messages of step t as the match pass (match_step.cpp) finds them; inline, so that
// it stays in that pass's loop over the sends.
class MessageCounter {
 public:
  MessageCounter(const CpuRules& rules, LinkLoads& loads, int64_t t)
      : rules_(rules), loads_(loads.counts.data()), direct_(direct_links(rules.topo())), stamp_(uint32_t(t)) {}

  // Matched message x, whose sender's sends are ch.sends[first, end): its hops and figures, and its
  // cost (direct links) or its load on each link of its route (routed topologies).
  void count(Chunk& ch, StoredSend& x, int64_t first, int64_t end) const {
    const int64_t from_node = rules_.machine.node(x.from), to_node = rules_.machine.node(x.to);
    x.hops = int32_t(route_hops(rules_.topo(), from_node, to_node));
    const int64_t words = rules::charged_words(rules_.tokens, x.len);
    ch.stats.messages += 1;
    ch.stats.words += words;
    ch.stats.link_hops += x.hops;
    if (direct_)
      add_message_cost(ch, rules::direct_cost(rules_.c.cost, rules::direct_congestion(ch.sends.data(), first, end, x.to), words,
                                              x.hops, x.combined));
    else for_each_route_link(rules_.topo(), from_node, to_node, [&](int64_t id) { rules::count_link(&loads_[size_t(id)], stamp_); });
  }

 private:
  const CpuRules& rules_;
  unsigned long long* loads_;
  const bool direct_;
  const uint32_t stamp_;
};

// Pass 3 (routed topologies): every message of chunk ch, sent in step t, costs as the busiest link
// of its route says.
void routed_cost_chunk(const CpuRules& rules, const LinkLoads& loads, Chunk& ch, int64_t t);

// Step t's figures: the sums (messages, words, link-hops) and the maxima (link load, time) of its
// chunks' figures.
StepStats step_totals(const StepStore& s, int64_t t);

}  // namespace ppsim::cpu
