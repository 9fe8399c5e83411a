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
#include "ppsim/partition.h"

namespace ppsim::cpu {

// The stamped link-load counters of a routed topology (rules::count_link): one per directed link,
// never cleared. A direct-link topology has none: a link there carries its sender's sends only.
// A run split across ranks holds the counters of its own share of the link ids [own_lo, own_hi)
// and, for the step, the loads of the other links its messages cross, as their owners summed them
// (dist_step.cpp).
struct LinkLoads {
  LinkLoads(const Topology& t, int rank = 0, int ranks = 1) {
    if (direct_links(t)) return;
    const int64_t n = space = link_space(t);
    own_lo = block_begin(n, rank, ranks);
    own_hi = block_end(n, rank, ranks);
    counts.assign(size_t(own_hi - own_lo), 0);
  }
  bool owns(int64_t id) const { return id >= own_lo && id < own_hi; }
  // The load of link id in step `stamp`.
  long long load(int64_t id, uint32_t stamp) const {
    if (owns(id)) return rules::link_load_at(atomic_load(&counts[size_t(id - own_lo)]), stamp);
    const auto it = std::lower_bound(foreign_ids.begin(), foreign_ids.end(), id);
    return it != foreign_ids.end() && *it == id ? foreign_loads[size_t(it - foreign_ids.begin())] : 0;
  }
  std::vector<unsigned long long> counts;  // (step << 32) | messages on the link in that step
  int64_t space = 0, own_lo = 0, own_hi = 0;  // link ids, and this rank's share of them
  std::vector<int64_t> foreign_ids, foreign_loads;  // sorted ids, and their loads in this step
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
      : rules_(rules), loads_(loads.counts.data()), own_lo_(loads.own_lo), own_hi_(loads.own_hi), all_(loads.own_lo == 0 && loads.own_hi == link_space_of(rules)),
        direct_(direct_links(rules.topo())), stamp_(uint32_t(t)) {}

  // Matched message x, whose sender's sends are ch.sends[first, end): its hops and figures, and its
  // cost (direct links) or its load on each link of its route (routed topologies).
  void count(Chunk& ch, StoredSend& x, int64_t first, int64_t end) const {
    const int64_t words = count_figures(ch, x);
    if (direct_)
      add_message_cost(ch, rules::direct_cost(rules_.c.cost, x.from, rules::direct_congestion(ch.sends.data(), first, end, x.to), words, x.hops,
                                              x.combined));
    else count_links(ch, x);
  }
  // A message to another rank's processor (a run split across ranks), counted by its sender's
  // rank: its figures and its load on its route's links; its receiver's rank costs it once the
  // sender's rank has sent it the parts of its cost (dist_step.cpp). Out of the match pass's loop,
  // as is the split run's link count: each inlined copy of a route walk is every topology's route
  // compiled once more (match_step.cpp), for messages only split runs have.
  [[gnu::noinline]] void count_crossing(Chunk& ch, StoredSend& x) const {
    count_figures(ch, x);
    if (!direct_) count_links(ch, x);
  }

 private:
  // Message x's hops, and its messages, words and link-hops added to the chunk's; its charged words.
  int64_t count_figures(Chunk& ch, StoredSend& x) const {
    x.hops = int32_t(rules::message_hops(rules_.machine, x.from, x.to, x.route));
    const int64_t words = rules::charged_words(rules_.tokens, x.len);
    ch.stats.messages += 1;
    ch.stats.words += words;
    ch.stats.link_hops += x.hops;
    return words;
  }
  void count_links(Chunk& ch, const StoredSend& x) const {
    if (all_) rules::for_each_message_link(rules_.machine, x.from, x.to, x.route, [&](int64_t id) { rules::count_link(&loads_[size_t(id)], stamp_); });
    else count_links_split(ch, x);
  }
  // A split run's count: the links this rank owns, and the others' ids for their owners.
  [[gnu::noinline]] void count_links_split(Chunk& ch, const StoredSend& x) const {
    rules::for_each_message_link(rules_.machine, x.from, x.to, x.route, [&](int64_t id) {
      if (id >= own_lo_ && id < own_hi_) rules::count_link(&loads_[size_t(id - own_lo_)], stamp_);
      else ch.foreign_links.push_back(id);  // its owner's rank sums it (dist_step.cpp)
    });
  }

  static int64_t link_space_of(const CpuRules& rules) { return direct_links(rules.topo()) ? 0 : link_space(rules.topo()); }

  const CpuRules& rules_;
  unsigned long long* loads_;
  const int64_t own_lo_, own_hi_;
  const bool all_;  // one process owns every link
  const bool direct_;
  const uint32_t stamp_;
};

// Pass 3 (routed topologies): every message of chunk ch, sent in step t, costs as the busiest link
// of its route says.
void routed_cost_chunk(const CpuRules& rules, const LinkLoads& loads, Chunk& ch, int64_t t);

// A chunk's figures added to its step's: the sums (messages, words, link-hops, losses) and the
// maxima (link load, time).
inline void add_chunk_stats(StepStats& st, const StepStats& ch) {
  st.messages += ch.messages;
  st.words += ch.words;
  st.link_hops += ch.link_hops;
  st.max_link_load = std::max(st.max_link_load, ch.max_link_load);
  st.time = std::max(st.time, ch.time);
  st.dropped += ch.dropped;
  st.rerouted += ch.rerouted;
}

// Step t's figures: the sums (messages, words, link-hops) and the maxima (link load, time) of its
// chunks' figures.
StepStats step_totals(const StepStore& s, int64_t t);

}  // namespace ppsim::cpu
