// Pass 2 of a send step: every send finds its receive; the ones that do not are reported.
#include "cpu/match_step.h"

#include "cpu/schedule_errors.h"

namespace ppsim::cpu {

// Flattened: the route's dispatch (route_hops, count_link on each link) is inlined into the loop
// over the sends. Left to itself GCC calls it once per message here, which made a run of m = 1
// words take 9% more instructions than when the engine was one unit.
[[gnu::flatten]] void match_chunk(const ChunkPlan& plan, const MessageCounter& counter, StepStore& s, Chunk& ch, int k, int64_t t) {
  const size_t n_sends = ch.sends.size();
  for (size_t n = 0; n < n_sends; ++n) {
    StoredSend& x = ch.sends[n];
    const int64_t i = x.from, first = s.send_begin[s.at(i)];
    if (!plan.holds(x.to)) {  // to another rank's processor: counted here, matched and costed there (dist_step.cpp)
      x.combined = -1;
      ch.crossing.push_back(int32_t(n));
      counter.count_crossing(ch, x);
      continue;
    }
    int32_t nr;
    StoredRecv* rv = recvs_of(s, plan, x.to, nr);
    StoredRecv* match = rules::matching_receive(rv, nr, i, rules::occurrence(ch.sends.data(), first, int64_t(n)));
    if (!match) {
      ch.fail(i, unmatched_send_text(t, i, x.to, x.len));
      continue;
    }
    if (match->len != x.len) {
      ch.fail(i, length_mismatch_text(t, i, x.to, x.len, match->len));
      continue;
    }
    match->pool_chunk = k;
    match->pool_off = x.pool_off;
    x.combined = match->combined;
    ch.matched += 1;
    counter.count(ch, x, first, first + s.send_count[s.at(i)]);
  }
}

bool all_receives_matched(const StepStore& s) {
  int64_t posted = 0, matched = 0;
  for (const Chunk& ch : s.chunks) {
    posted += int64_t(ch.recvs.size());
    matched += ch.matched;
  }
  return posted == matched;
}

void report_unmatched_receives(const CpuRules& rules, Chunk& ch, int64_t t) {
  for (const StoredRecv& rv : ch.recvs)
    if (rv.pool_off < 0 && !rules::receive_lost(rules.machine, rv.from, rv.proc, t, rules.clock.arrives(t)))
      ch.fail(rv.proc, unmatched_receive_text(t, rv.proc, rv.from, rv.len));
}

}  // namespace ppsim::cpu
