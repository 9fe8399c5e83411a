// Pass 1 of a send step: the round's sends and receives, checked by the rules, and their payloads
// copied.
#include "cpu/post_step.h"

#include <algorithm>

#include "cpu/schedule_errors.h"
#include "rules/round_ops.h"

namespace ppsim::cpu {

namespace {

// The record of send x of processor i, and its payload in the pool: runs of x.run words every
// x.stride words (the last run may be short).
void post_send(const ProcessorBuffers& bufs, Chunk& ch, const Send& x, int64_t i, int route) {
  const uint64_t* src = bufs.slot(x.buf, i) + x.src_off;
  ch.sends.push_back(StoredSend{int32_t(i), int32_t(x.to), int16_t(x.buf), int16_t(route), 0, x.src_off, x.len, int64_t(ch.pool.size()), 0});
  if (x.len <= 8 && x.run == x.len)
    for (int64_t w = 0; w < x.len; ++w) ch.pool.push_back(src[w]);
  else
    for (int64_t at = 0; at < x.len; at += x.run)  // the last run may be short
      ch.pool.insert(ch.pool.end(), src + (at / x.run) * x.stride, src + (at / x.run) * x.stride + std::min(x.run, x.len - at));
}

// The record of receive x of processor i: one contiguous action is kept in the record itself,
// anything else as a run of actions in ch.more_actions.
void post_recv(bool tokens, Chunk& ch, const Recv& x, int64_t i) {
  int32_t more = -1;
  const bool contiguous = (x.act[0].run == 0 || x.act[0].run == x.len) && x.act[0].msg_off == 0 && x.act[0].words == 0;
  if (x.nact > 1 || !contiguous) {
    more = int32_t(ch.more_actions.size());
    ch.more_actions.push_back(RecvAction{x.nact, 0, 0, 0, RecvMode::copy, 0, 0});  // run length in dst_off
    for (int q = 0; q < x.nact; ++q) ch.more_actions.push_back(x.act[q]);
  }
  ch.recvs.push_back(StoredRecv{int32_t(i), int32_t(x.from), -1, more, x.len, -1, x.act[0].dst_off,
                                rules::charged_combined_words(tokens, x.act, x.nact, x.len), x.act[0].buf, x.act[0].mode});
}

void clear_chunk(Chunk& ch) {
  ch.sends.clear();
  ch.recvs.clear();
  ch.pool.clear();
  ch.more_actions.clear();
  ch.stats = StepStats{};
  ch.matched = 0;
  ch.crossing.clear();
  ch.foreign_links.clear();
}

}  // namespace

void post_chunk(const CpuRules& rules, const ProcessorBuffers& bufs, StepStore& s, Chunk& ch, int round, int64_t t) {
  clear_chunk(ch);
  // Read once, not after every call of the algorithm (which, for all the compiler knows, could
  // change them).
  const AlgorithmId algorithm = rules.c.algorithm->id;
  const auto ops_override = rules.c.test_ops_override;
  const bool failures = rules.machine.failures != nullptr;
  const int64_t arrives = rules.clock.arrives(t);
  int8_t route[kMaxOps] = {};
  StepOps ops;
  for (int64_t i = ch.first; i < ch.last; ++i) {
    rules::read_round_ops(algorithm, ops_override, rules.a, i, round, ops);  // an overflow is check_ops's first rule
    if (const rules::Verdict v = rules::check_ops(rules.ports, rules.machine, ops, i); v.what != rules::Broken::none) {
      ch.fail(i, broken_rule_text(v, ops, i, t, rules.clock.arrives(t), rules.c.ports.model, rules.ports.limit));
      return;
    }
    if (failures) {  // lost messages leave the step here (rules/failure_rules.h)
      const rules::Losses lost = rules::drop_lost(rules.machine, ops, i, t, arrives, route);
      ch.stats.dropped += lost.dropped;
      ch.stats.rerouted += lost.rerouted;
    }
    s.send_begin[s.at(i)] = int32_t(ch.sends.size());
    s.send_count[s.at(i)] = ops.nsend;
    for (int n = 0; n < ops.nsend; ++n) post_send(bufs, ch, ops.send[n], i, route[n]);
    s.recv_begin[s.at(i)] = int32_t(ch.recvs.size());
    s.recv_count[s.at(i)] = ops.nrecv;
    for (int n = 0; n < ops.nrecv; ++n) post_recv(rules.tokens, ch, ops.recv[n], i);
  }
}

}  // namespace ppsim::cpu
