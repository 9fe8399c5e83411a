// The exchanges of a send step across ranks (dist_step.h).
#include "cpu/dist_step.h"

#include <algorithm>

#include "rules/step_rules.h"

namespace ppsim::cpu {

namespace {

// A crossing message as it travels: its fields, then its payload.
constexpr size_t kRecordWords = 7;  // from, to, buf, len, src_off, occurrence, congestion

}  // namespace

Traffic exchange_crossing(Collectives& comm, const CpuRules& rules, const ChunkPlan& plan, StepStore& s) {
  Traffic traffic;
  const int ranks = comm.size();
  const int64_t n = rules.p;
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(ranks)), in;
  const bool direct = direct_links(rules.topo());
  for (int k = 0; k < plan.count; ++k) {
    const Chunk& ch = s.chunks[size_t(k)];
    for (const int32_t idx : ch.crossing) {
      const StoredSend& x = ch.sends[size_t(idx)];
      const int64_t first = s.send_begin[s.at(x.from)], end = first + s.send_count[s.at(x.from)];
      std::vector<uint64_t>& o = out[size_t(block_owner(n, x.to, ranks))];
      const long long congestion = direct ? rules::direct_congestion(ch.sends.data(), first, end, x.to) : 0;
      const uint64_t rec[kRecordWords] = {uint64_t(x.from), uint64_t(x.to), uint64_t(x.buf), uint64_t(x.len), uint64_t(x.src_off),
                                          uint64_t(rules::occurrence(ch.sends.data(), first, int64_t(idx))), uint64_t(congestion)};
      o.insert(o.end(), rec, rec + kRecordWords);
      o.insert(o.end(), ch.pool.begin() + x.pool_off, ch.pool.begin() + x.pool_off + x.len);
      traffic.messages += 1;
      traffic.payload += x.len;
    }
  }
  comm.alltoall(out, in);
  std::vector<std::vector<uint64_t>>().swap(out);
  // Each rank's words become its import chunk's pool as they came: a message's payload is where
  // it landed, after its record.
  for (int r = 0; r < ranks; ++r) {
    Chunk& ch = s.chunks[size_t(plan.count + r)];
    ch.sends.clear();
    ch.recvs.clear();
    ch.stats = StepStats{};
    ch.matched = 0;
    ch.crossing.clear();
    ch.foreign_links.clear();
    ch.import_occurrence.clear();
    ch.import_congestion.clear();
    ch.pool = std::move(in[size_t(r)]);
    const std::vector<uint64_t>& w = ch.pool;
    for (size_t at = 0; at < w.size();) {
      const int64_t len = int64_t(w[at + 3]);
      ch.sends.push_back(StoredSend{int32_t(w[at]), int32_t(w[at + 1]), int32_t(w[at + 2]), 0, int64_t(w[at + 4]), len,
                                    int64_t(at + kRecordWords), 0});
      ch.import_occurrence.push_back(int32_t(w[at + 5]));
      ch.import_congestion.push_back(int64_t(w[at + 6]));
      at += kRecordWords + size_t(len);
    }
  }
  return traffic;
}

int64_t combine_link_loads(Collectives& comm, LinkLoads& loads, StepStore& s, uint32_t stamp) {
  const int ranks = comm.size();
  // This rank's counts of other ranks' links, as (id, count) in id order.
  std::vector<int64_t> ids;
  for (Chunk& ch : s.chunks) {
    ids.insert(ids.end(), ch.foreign_links.begin(), ch.foreign_links.end());
    ch.foreign_links.clear();
  }
  std::sort(ids.begin(), ids.end());
  const int64_t space = loads.space;
  std::vector<std::vector<uint64_t>> ask(static_cast<size_t>(ranks)), got, answer(static_cast<size_t>(ranks)), totals;
  loads.foreign_ids.clear();
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j < ids.size() && ids[j] == ids[i]) ++j;
    std::vector<uint64_t>& a = ask[size_t(block_owner(space, ids[i], ranks))];
    a.push_back(uint64_t(ids[i]));
    a.push_back(uint64_t(j - i));
    loads.foreign_ids.push_back(ids[i]);  // in id order, so also in owner order
    i = j;
  }
  int64_t asked = 0;
  for (int r = 0; r < ranks; ++r)
    if (r != comm.rank()) asked += int64_t(ask[size_t(r)].size());
  comm.alltoall(ask, got);
  // Owners add every rank's counts to their own, then answer each with the totals it asked for.
  for (const auto& g : got)
    for (size_t i = 0; i < g.size(); i += 2) {
      unsigned long long& cell = loads.counts[size_t(int64_t(g[i]) - loads.own_lo)];
      const long long before = rules::link_load_at(cell, stamp);
      cell = (static_cast<unsigned long long>(stamp) << 32) | uint64_t(before + int64_t(g[i + 1]));
    }
  for (int r = 0; r < ranks; ++r) {
    const auto& g = got[size_t(r)];
    for (size_t i = 0; i < g.size(); i += 2)
      answer[size_t(r)].push_back(uint64_t(rules::link_load_at(loads.counts[size_t(int64_t(g[i]) - loads.own_lo)], stamp)));
  }
  comm.alltoall(answer, totals);
  loads.foreign_loads.assign(loads.foreign_ids.size(), 0);
  size_t at = 0;
  for (int r = 0; r < ranks; ++r)
    for (const uint64_t v : totals[size_t(r)]) loads.foreign_loads[at++] = int64_t(v);
  int64_t answered = 0;
  for (int r = 0; r < ranks; ++r)
    if (r != comm.rank()) answered += int64_t(answer[size_t(r)].size());
  return asked + answered;
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
