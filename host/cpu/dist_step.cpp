// The exchanges of a send step across ranks (dist_step.h).
#include "cpu/dist_step.h"

#include <algorithm>
#include <cstring>

#include "cpu/schedule_errors.h"
#include "rules/step_rules.h"

namespace ppsim::cpu {

namespace {

// A crossing message as it travels: a record of kRecordWords words, then its payload.
//   0: sender | receiver << 32     1: buffer | occurrence << 32 (which of its sender's sends to
//   2: words                          that receiver it is: step_rules.h, occurrence)
//   3: hops | congestion << 32     4, 5: the startup and per-word parts of its cost (bits of doubles)
constexpr size_t kRecordWords = 6;

// Words a rank hands the all-to-all at once (32 MiB): a step's crossing messages go in batches.
constexpr size_t kBatchWords = size_t{1} << 22;

uint64_t pair_word(int64_t lo, int64_t hi) { return uint64_t(uint32_t(lo)) | (uint64_t(uint32_t(hi)) << 32); }
int64_t low_half(uint64_t w) { return int64_t(uint32_t(w)); }
int64_t high_half(uint64_t w) { return int64_t(uint32_t(w >> 32)); }
uint64_t double_word(double d) {
  uint64_t w;
  std::memcpy(&w, &d, sizeof w);
  return w;
}
double word_double(uint64_t w) {
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

}  // namespace

Traffic exchange_crossing(Collectives& comm, const CpuRules& rules, const ChunkPlan& plan, const LinkLoads& loads, StepStore& s,
                          int64_t t) {
  Traffic traffic;
  const int ranks = comm.size(), others = ranks - 1;
  const int64_t n = rules.p;
  const bool direct = direct_links(rules.topo());
  const uint32_t stamp = uint32_t(t);
  // The words each rank will receive, so that its import pools are taken once, at their size.
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(ranks), std::vector<uint64_t>(1, 0)), in;
  for (int k = 0; k < plan.count; ++k)
    for (const int32_t idx : s.chunks[size_t(k)].crossing) {
      const StoredSend& x = s.chunks[size_t(k)].sends[size_t(idx)];
      out[size_t(block_owner(n, x.to, ranks))][0] += kRecordWords + uint64_t(x.len);
    }
  comm.alltoall(out, in);
  traffic.control += 2 * others;  // a count and the size
  for (int r = 0; r < ranks; ++r) {
    Chunk& ch = s.chunks[size_t(plan.count + r)];
    ch.sends.clear();
    ch.recvs.clear();
    ch.stats = StepStats{};
    ch.matched = 0;
    ch.crossing.clear();
    ch.foreign_links.clear();
    std::vector<uint64_t>().swap(ch.pool);  // (not kept at an earlier step's size: another rank may send the most now)
    ch.pool.reserve(size_t(in[size_t(r)][0]));
  }
  // The messages in batches of about kBatchWords: a rank holds what it receives and one batch of
  // what it sends, not all of both. The batches go on until no rank has any left.
  int k = 0;
  size_t next = 0;  // in chunk k's crossing sends
  for (;;) {
    for (auto& o : out) o.clear();
    size_t batch = 0;
    while (k < plan.count && batch < kBatchWords) {
      const Chunk& ch = s.chunks[size_t(k)];
      if (next == ch.crossing.size()) {
        ++k;
        next = 0;
        continue;
      }
      const int32_t idx = ch.crossing[next++];
      const StoredSend& x = ch.sends[size_t(idx)];
      const int64_t first = s.send_begin[s.at(x.from)], end = first + s.send_count[s.at(x.from)];
      const int64_t words = rules::charged_words(rules.tokens, x.len);
      // Its cost but for the words its receive combines, which only the receiver's rank knows.
      const rules::CostParts cost =
          direct ? rules::direct_parts(rules.c.cost, rules::direct_congestion(ch.sends.data(), first, end, x.to), words)
                 : rules::route_parts_with(rules.machine, rules.c.cost, x.from, x.to, words, x.hops,
                                           [&](int64_t id) { return loads.load(id, stamp); });
      const uint64_t rec[kRecordWords] = {pair_word(x.from, x.to),
                                          pair_word(x.buf, rules::occurrence(ch.sends.data(), first, int64_t(idx))),
                                          uint64_t(x.len),
                                          pair_word(x.hops, cost.congestion),
                                          double_word(cost.startup),
                                          double_word(cost.word_time)};
      std::vector<uint64_t>& o = out[size_t(block_owner(n, x.to, ranks))];
      o.insert(o.end(), rec, rec + kRecordWords);
      o.insert(o.end(), ch.pool.begin() + x.pool_off, ch.pool.begin() + x.pool_off + x.len);
      batch += kRecordWords + size_t(x.len);
      traffic.messages += 1;
      traffic.payload += x.len;
    }
    comm.alltoall(out, in);
    traffic.control += others;
    // What each rank sent goes on its import chunk's pool as it came: a message's payload stays
    // there, after its record.
    for (int r = 0; r < ranks; ++r) {
      std::vector<uint64_t>& pool = s.chunks[size_t(plan.count + r)].pool;
      pool.insert(pool.end(), in[size_t(r)].begin(), in[size_t(r)].end());
    }
    int64_t more[1] = {k < plan.count ? 1 : 0};
    comm.sum(more, 1);
    if (more[0] == 0) break;
  }
  return traffic;
}

void match_imports(const CpuRules& rules, const ChunkPlan& plan, StepStore& s, int k, int64_t t) {
  Chunk& ch = s.chunks[size_t(k)];
  const std::vector<uint64_t>& w = ch.pool;
  for (size_t at = 0; at < w.size();) {
    const int64_t from = low_half(w[at]), to = high_half(w[at]), len = int64_t(w[at + 2]);
    const int64_t payload = int64_t(at + kRecordWords);
    at += kRecordWords + size_t(len);
    int32_t nr;
    StoredRecv* rv = recvs_of(s, plan, to, nr);
    StoredRecv* match = rules::matching_receive(rv, nr, from, int(high_half(w[payload - 5])));
    if (!match) {
      ch.fail(from, unmatched_send_text(t, from, to, len));
      continue;
    }
    if (match->len != len) {
      ch.fail(from, length_mismatch_text(t, from, to, len, match->len));
      continue;
    }
    match->pool_chunk = k;
    match->pool_off = payload;
    ch.matched += 1;
    const int64_t hops = low_half(w[payload - 3]);
    add_message_cost(ch, rules::MessageCost{high_half(w[payload - 3]), message_time_of(rules.c.cost, word_double(w[payload - 2]),
                                                                                       word_double(w[payload - 1]), hops, match->combined)});
  }
}

int64_t combine_link_loads(Collectives& comm, LinkLoads& loads, StepStore& s, uint32_t stamp) {
  const int ranks = comm.size();
  // This rank's counts of other ranks' links, as (id, count) in id order.
  std::vector<int64_t> ids;
  for (Chunk& ch : s.chunks) {
    ids.insert(ids.end(), ch.foreign_links.begin(), ch.foreign_links.end());
    std::vector<int64_t>().swap(ch.foreign_links);
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
  std::vector<int64_t>().swap(ids);
  int64_t asked = 0;
  for (int r = 0; r < ranks; ++r)
    if (r != comm.rank()) asked += int64_t(ask[size_t(r)].size());
  comm.alltoall(ask, got);
  std::vector<std::vector<uint64_t>>().swap(ask);
  // Owners add every rank's counts to their own, then answer each with the totals it asked for.
  for (const auto& g : got)
    for (size_t i = 0; i < g.size(); i += 2) {
      unsigned long long& cell = loads.counts[size_t(int64_t(g[i]) - loads.own_lo)];
      const long long before = rules::link_load_at(cell, stamp);
      cell = (static_cast<unsigned long long>(stamp) << 32) | uint64_t(before + int64_t(g[i + 1]));
    }
  int64_t answered = 0;
  for (int r = 0; r < ranks; ++r) {
    const auto& g = got[size_t(r)];
    for (size_t i = 0; i < g.size(); i += 2)
      answer[size_t(r)].push_back(uint64_t(rules::link_load_at(loads.counts[size_t(int64_t(g[i]) - loads.own_lo)], stamp)));
    if (r != comm.rank()) answered += int64_t(answer[size_t(r)].size());
  }
  std::vector<std::vector<uint64_t>>().swap(got);
  comm.alltoall(answer, totals);
  loads.foreign_loads.assign(loads.foreign_ids.size(), 0);
  size_t at = 0;
  for (int r = 0; r < ranks; ++r)
    for (const uint64_t v : totals[size_t(r)]) loads.foreign_loads[at++] = int64_t(v);
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
