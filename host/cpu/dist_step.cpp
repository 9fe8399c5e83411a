// The exchanges of a send step across ranks (dist_step.h).
#include "cpu/dist_step.h"

#include <algorithm>
#include <cstring>

#include "cpu/schedule_errors.h"
#include "rules/crossing.h"
#include "rules/step_rules.h"

namespace ppsim::cpu {

Traffic exchange_crossing(Collectives& comm, const CpuRules& rules, const ChunkPlan& plan, const LinkLoads& loads, StepStore& s,
                          int64_t t) {
  Traffic traffic;
  const bool direct = direct_links(rules.topo());
  const uint32_t stamp = uint32_t(t);
  auto sizes = [&](auto&& fn) {
    for (int k = 0; k < plan.count; ++k)
      for (const int32_t idx : s.chunks[size_t(k)].crossing) {
        const StoredSend& x = s.chunks[size_t(k)].sends[size_t(idx)];
        fn(x.to, x.len);
      }
  };
  int k = 0;
  size_t next = 0;  // in chunk k's crossing sends
  auto next_message = [&](rules::Crossing& out, const uint64_t*& payload) {
    while (k < plan.count && next == s.chunks[size_t(k)].crossing.size()) {
      ++k;
      next = 0;
    }
    if (k == plan.count) return false;
    const Chunk& ch = s.chunks[size_t(k)];
    const int32_t idx = ch.crossing[next++];
    const StoredSend& x = ch.sends[size_t(idx)];
    const int64_t first = s.send_begin[s.at(x.from)], end = first + s.send_count[s.at(x.from)];
    out = rules::crossing_record(rules.machine, rules.c.cost, rules.tokens, direct, ch.sends.data(), first, end, int64_t(idx),
                                 [&](int64_t id) { return loads.load(id, stamp); });
    payload = ch.pool.data() + x.pool_off;
    return true;
  };
  std::vector<std::vector<uint64_t>> imports = rules::ship_crossing(comm, rules.p, sizes, next_message, traffic);
  // What each rank sent goes on its import chunk's pool as it came: a message's payload stays
  // there, after its record.
  for (int r = 0; r < comm.size(); ++r) {
    Chunk& ch = s.chunks[size_t(plan.count + r)];
    ch.sends.clear();
    ch.recvs.clear();
    ch.stats = StepStats{};
    ch.matched = 0;
    ch.crossing.clear();
    ch.foreign_links.clear();
    ch.pool = std::move(imports[size_t(r)]);
  }
  return traffic;
}

void match_imports(const CpuRules& rules, const ChunkPlan& plan, StepStore& s, int k, int64_t t) {
  Chunk& ch = s.chunks[size_t(k)];
  rules::for_each_crossing(ch.pool, [&](const rules::Crossing& x, size_t payload) {
    const int64_t from = x.from, to = x.to, len = x.len;
    int32_t nr;
    StoredRecv* rv = recvs_of(s, plan, to, nr);
    StoredRecv* match = rules::matching_receive(rv, nr, from, int(x.occurrence));
    if (!match) {
      ch.fail(from, unmatched_send_text(t, from, to, len));
      return;
    }
    if (match->len != len) {
      ch.fail(from, length_mismatch_text(t, from, to, len, match->len));
      return;
    }
    match->pool_chunk = k;
    match->pool_off = int64_t(payload);
    ch.matched += 1;
    add_message_cost(ch, rules::MessageCost{x.congestion, message_time_of(rules.c.cost, x.startup, x.word_time, x.hops, match->combined)});
  });
}

int64_t combine_link_loads(Collectives& comm, LinkLoads& loads, StepStore& s, uint32_t stamp) {
  // This rank's counts of other ranks' links, as (id, count) in id order.
  std::vector<int64_t> ids;
  for (Chunk& ch : s.chunks) {
    ids.insert(ids.end(), ch.foreign_links.begin(), ch.foreign_links.end());
    std::vector<int64_t>().swap(ch.foreign_links);
  }
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<int64_t, int64_t>> asked;
  loads.foreign_ids.clear();
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j < ids.size() && ids[j] == ids[i]) ++j;
    asked.emplace_back(ids[i], int64_t(j - i));
    loads.foreign_ids.push_back(ids[i]);
    i = j;
  }
  std::vector<int64_t>().swap(ids);
  int64_t words = 0;
  loads.foreign_loads = rules::sum_link_counts(
      comm, loads.space, asked, [&](int64_t id) -> unsigned long long& { return loads.counts[size_t(id - loads.own_lo)]; }, stamp, words);
  return words;
}

StepStats combine_step_totals(Collectives& comm, StepStats local) {
  int64_t sums[3] = {local.messages, local.words, local.link_hops};
  comm.sum(sums, 3);
  double maxima[2] = {double(local.max_link_load), local.time};
  comm.max(maxima, 2);
  local.messages = sums[0];
  local.words = sums[1];
  local.link_hops = sums[2];
  local.max_link_load = int64_t(maxima[0]);
  local.time = maxima[1];
  return local;
}

}  // namespace ppsim::cpu
