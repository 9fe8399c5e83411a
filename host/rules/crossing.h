// What crosses between the ranks of a run split across ranks (docs/DESIGN.md §8, "Past one
// process"), for every backend that splits a run (the CPU passes, the device rounds): a crossing
// message's record, the batched all-to-all that ships the step's crossing messages to their
// receivers' ranks, and the sum of the links' loads over the ranks. The rules a message's cost
// follows stay in step_rules.h; this file only carries what the sender's rank reckoned.
#pragma once
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ppsim/partition.h"
#include "rules/step_rules.h"

namespace ppsim::rules {

// A crossing message with what only its sender's rank knows: its occurrence among its sender's
// sends to that receiver (step_rules.h, occurrence), its congestion, and the startup and per-word
// parts of its cost (the receiver's rank adds the words its receive combines: message_time_of).
struct Crossing {
  int64_t from = 0, to = 0, buf = 0, occurrence = 0, len = 0, hops = 0, congestion = 0;
  double startup = 0, word_time = 0;
};

// As it travels: kCrossingWords words of record, then its payload.
//   0: sender | receiver << 32     1: buffer | occurrence << 32     2: words
//   3: hops | congestion << 32     4, 5: the startup and per-word parts (bits of doubles)
inline constexpr size_t kCrossingWords = 6;

// Words a rank hands the all-to-all at once (32 MiB): a step's crossing messages go in batches.
inline constexpr size_t kCrossingBatchWords = size_t{1} << 22;

inline uint64_t pair_word(int64_t lo, int64_t hi) { return uint64_t(uint32_t(lo)) | (uint64_t(uint32_t(hi)) << 32); }
inline int64_t low_half(uint64_t w) { return int64_t(uint32_t(w)); }
inline int64_t high_half(uint64_t w) { return int64_t(uint32_t(w >> 32)); }
inline uint64_t double_word(double d) {
  uint64_t w;
  std::memcpy(&w, &d, sizeof w);
  return w;
}
inline double word_double(uint64_t w) {
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

inline void append_crossing(std::vector<uint64_t>& out, const Crossing& x, const uint64_t* payload) {
  const uint64_t rec[kCrossingWords] = {pair_word(x.from, x.to),           pair_word(x.buf, x.occurrence), uint64_t(x.len),
                                        pair_word(x.hops, x.congestion), double_word(x.startup),         double_word(x.word_time)};
  out.insert(out.end(), rec, rec + kCrossingWords);
  out.insert(out.end(), payload, payload + x.len);
}

// The message whose record starts at w[0] (its payload at w + kCrossingWords).
inline Crossing read_crossing(const uint64_t* w) {
  Crossing x;
  x.from = low_half(w[0]);
  x.to = high_half(w[0]);
  x.buf = low_half(w[1]);
  x.occurrence = high_half(w[1]);
  x.len = int64_t(w[2]);
  x.hops = low_half(w[3]);
  x.congestion = high_half(w[3]);
  x.startup = word_double(w[4]);
  x.word_time = word_double(w[5]);
  return x;
}

// The record of send n of a sender whose sends of the step are sends[first, end) (the CPU's
// StoredSend, the device's DevSend), with the parts of its cost that its sender's rank knows: on a
// direct-link topology (direct: direct_links of the machine's topology, asked once a step) from its
// sender's sends, else from load(id), the step's load of link id summed over the ranks
// (sum_link_counts).
template <class S, class Load>
Crossing crossing_record(const Machine& m, const CostParams& c, bool tokens, bool direct, const S* sends, int64_t first, int64_t end,
                         int64_t n, const Load& load) {
  const S& x = sends[n];
  const int64_t words = charged_words(tokens, x.len);
  // Its cost but for the words its receive combines, which only the receiver's rank knows.
  const CostParts cost = direct ? direct_parts(c, x.from, direct_congestion(sends, first, end, x.to), words)
                                : route_parts_with(m, c, x.from, x.to, words, x.hops, x.route, load);
  return Crossing{x.from, x.to, x.buf, occurrence(sends, first, n), x.len, x.hops, cost.congestion, cost.startup, cost.word_time};
}

// Every message of what one rank shipped here (ship_crossing), in the order its sender gave them:
// f(x, at) with its record x and its payload at batch[at].
template <class F>
void for_each_crossing(const std::vector<uint64_t>& batch, F&& f) {
  for (size_t at = 0; at < batch.size();) {
    const Crossing x = read_crossing(batch.data() + at);
    at += kCrossingWords;
    f(x, at);
    at += size_t(x.len);
  }
}

// What a rank sent the others in one step: its crossing messages, their payload words, the words
// of the link loads it asked for and answered (ids and counts), and the counts and sizes of the
// all-to-alls.
struct SplitTraffic {
  int64_t messages = 0, payload = 0, link_words = 0, control = 0;
};

// Ships a step's crossing messages to their receivers' ranks (procs processors in blocks, one per
// rank). sizes(fn) calls fn(to, len) for every crossing message; next(x, payload) gives them one
// at a time, in the same order, and returns false after the last. Returns what each rank sent
// this one: records, each followed by its payload, in the order its sender gave them; each is
// taken once, at its size. A rank holds what it receives and one batch of what it sends.
template <class Sizes, class Next>
std::vector<std::vector<uint64_t>> ship_crossing(Collectives& comm, int64_t procs, const Sizes& sizes, Next&& next, SplitTraffic& traffic) {
  const int ranks = comm.size(), others = ranks - 1;
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(ranks), std::vector<uint64_t>(1, 0)), in;
  sizes([&](int64_t to, int64_t len) { out[size_t(block_owner(procs, to, ranks))][0] += kCrossingWords + uint64_t(len); });
  comm.alltoall(out, in);
  traffic.control += 2 * others;  // a count and the size
  std::vector<std::vector<uint64_t>> imports(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) imports[size_t(r)].reserve(size_t(in[size_t(r)][0]));
  bool more_here = true;
  for (;;) {
    for (auto& o : out) o.clear();
    size_t batch = 0;
    Crossing x;
    const uint64_t* payload = nullptr;
    while (more_here && batch < kCrossingBatchWords) {
      if (!next(x, payload)) {
        more_here = false;
        break;
      }
      append_crossing(out[size_t(block_owner(procs, x.to, ranks))], x, payload);
      batch += kCrossingWords + size_t(x.len);
      traffic.messages += 1;
      traffic.payload += x.len;
    }
    comm.alltoall(out, in);
    traffic.control += others;
    for (int r = 0; r < ranks; ++r) imports[size_t(r)].insert(imports[size_t(r)].end(), in[size_t(r)].begin(), in[size_t(r)].end());
    int64_t more[1] = {more_here ? 1 : 0};
    comm.sum(more, 1);
    if (more[0] == 0) break;
  }
  return imports;
}

// Sums the step's loads of links over the ranks. Each rank owns a contiguous share of the link
// ids [0, space) (block_begin/block_end); asked holds this rank's counts of links others own, as
// (id, count) in id order, each id once; own(id) is the stamped counter (step_rules.h,
// count_link) of a link this rank owns, holding its own count. Owners add every rank's counts
// to theirs and answer each with the totals it asked for. Returns those totals, in asked's order;
// words gets the words this rank sent the others (ids and counts, and its answers).
template <class Own>
std::vector<int64_t> sum_link_counts(Collectives& comm, int64_t space, const std::vector<std::pair<int64_t, int64_t>>& asked, Own&& own,
                                     uint32_t stamp, int64_t& words) {
  const int ranks = comm.size();
  std::vector<std::vector<uint64_t>> ask(static_cast<size_t>(ranks)), got, answer(static_cast<size_t>(ranks)), totals;
  for (const auto& [id, count] : asked) {
    std::vector<uint64_t>& a = ask[size_t(block_owner(space, id, ranks))];
    a.push_back(uint64_t(id));
    a.push_back(uint64_t(count));
  }
  words = 0;
  for (int r = 0; r < ranks; ++r)
    if (r != comm.rank()) words += int64_t(ask[size_t(r)].size());
  comm.alltoall(ask, got);
  std::vector<std::vector<uint64_t>>().swap(ask);
  for (const auto& g : got)
    for (size_t i = 0; i < g.size(); i += 2) {
      unsigned long long& cell = own(int64_t(g[i]));
      cell = (static_cast<unsigned long long>(stamp) << 32) | uint64_t(link_load_at(cell, stamp) + int64_t(g[i + 1]));
    }
  for (int r = 0; r < ranks; ++r) {
    const auto& g = got[size_t(r)];
    for (size_t i = 0; i < g.size(); i += 2) answer[size_t(r)].push_back(uint64_t(link_load_at(own(int64_t(g[i])), stamp)));
    if (r != comm.rank()) words += int64_t(answer[size_t(r)].size());
  }
  std::vector<std::vector<uint64_t>>().swap(got);
  comm.alltoall(answer, totals);
  std::vector<int64_t> out;
  out.reserve(asked.size());
  for (int r = 0; r < ranks; ++r)  // asked is in id order, so also in owner order
    for (const uint64_t v : totals[size_t(r)]) out.push_back(int64_t(v));
  return out;
}

}  // namespace ppsim::rules
