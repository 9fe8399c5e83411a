// Where the CPU's pull step (pull_run.cpp) reads a processor's ops from, and what of their checks
// it can skip: the dispatch over every algorithm, or one unit of rules/pull_units.h's list called
// directly into ops of its own size; the slices that check_ops passed last in a chunk; and what a
// chunk of processors keeps from step to step.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "ppsim/result.h"

#include "ppsim/schedule.h"
#include "rules/pull_rules.h"
#include "rules/pull_units.h"
#include "rules/round_ops.h"

namespace ppsim::cpu {

// Where the pull asks for a processor's ops: the dispatch over every algorithm (or a test's
// schedule), or one unit of rules/pull_units.h's list called directly, so that its ops are
// compiled into the pass, in ops of its own size (Type).
struct DispatchedOps {
  using Type = StepOps;
  AlgorithmId id;
  rules::OpsOverride override_ops;
  bool operator()(const AlgoParams& a, int64_t proc, int round, StepOps& ops) const {
    return rules::read_round_ops(id, override_ops, a, proc, round, ops);
  }
};
template <class Unit>
struct UnitOps {
  using Type = typename rules::OneUnit<Unit>::Ops;
  // (flattened: the unit's ops, a few dozen instructions, inlined into the pass with what they call,
  // where GCC called them, 20 % of an all-reduce's time at m = 1)
  [[gnu::flatten]] bool operator()(const AlgoParams& a, int64_t proc, int round, Type& ops) const {
    return rules::read_ops<rules::OneUnit<Unit>>(AlgorithmId::count, nullptr, a, proc, round, ops);
  }
};

// The slices of a processor's ops of one send and one receive (of one action) that check_ops passed
// last: those of its checks that look at the slices alone (against the buffers' shape) hold again
// for ops with the same slices, whatever the processor, and only the ends are left to check. A
// round's processors mostly post alike. An action's mode is no part of it: check_ops does not look
// at it (a combining algorithm's folds alternate modes from processor to processor, by rank).
struct CheckedSlices {
  bool valid = false;
  Send send{};
  int64_t recv_len = 0;
  RecvAction act{};
  // The words a receive of these slices is charged for combining (rules::charged_combined_words),
  // by its action's mode: [0] a copy, [1] a fold (either side).
  int64_t combined[2] = {0, 0};
  rules::StepWrites writes;  // how ops of these slices write their buffers when their message arrives

  template <class Ops>
  static bool one_each(const Ops& ops) {
    return ops.nsend == 1 && ops.nrecv == 1 && ops.recv[0].nact == 1;
  }
  template <class Ops>
  [[gnu::always_inline]] bool same(const Ops& ops) const {  // (in the pass's loop: a call there cost a fifth of its time)
    const Send& x = ops.send[0];
    const RecvAction& a = ops.recv[0].act[0];
    return valid && one_each(ops) && x.buf == send.buf && x.src_off == send.src_off && x.len == send.len && x.run == send.run &&
           x.stride == send.stride && ops.recv[0].len == recv_len && a.dst_off == act.dst_off && a.run == act.run && a.stride == act.stride &&
           a.buf == act.buf && a.msg_off == act.msg_off && a.words == act.words;
  }
  // A send with the slices of the one remembered (send_ok's checks of them hold).
  [[gnu::always_inline]] bool same_send(const Send& x) const {
    return valid && x.buf == send.buf && x.src_off == send.src_off && x.len == send.len && x.run == send.run && x.stride == send.stride;
  }
  template <class Ops>
  void remember(const Ops& ops, bool tokens, const rules::Shape& shape) {
    valid = one_each(ops);
    if (!valid) return;
    send = ops.send[0];
    recv_len = ops.recv[0].len;
    act = ops.recv[0].act[0];
    RecvAction a = act;
    a.mode = RecvMode::copy;
    combined[0] = rules::charged_combined_words(tokens, &a, 1, recv_len);
    a.mode = RecvMode::recv_op_slot;
    combined[1] = rules::charged_combined_words(tokens, &a, 1, recv_len);
    const bool arrives[1] = {true};
    writes = rules::step_writes(shape, ops, arrives);
  }
  // What a receive of processor ops that same() passed is charged for combining.
  [[gnu::always_inline]] int64_t combined_of(RecvMode mode) const { return combined[mode != RecvMode::copy]; }
};

// A chunk's figures of a step. The pass keeps them in a local copy while it runs: in the chunk, to
// the compiler, they could be any of the buffers' words that it writes, and would be stored again
// after every message.
struct PullTally {
  StepStats stats;
  int64_t sent = 0, matched = 0;  // sends posted (after the failures), receives that met theirs
  int64_t multi = 0;              // messages matched that break their round's guess of its loads (routed topologies)
  // The last message costed where the time depends on its figures alone (direct links or a round of
  // one-hop messages, no stragglers, one link class): a round's messages are mostly alike.
  int64_t last_words = -1, last_hops = -1, last_combined = -1;
  long long last_congestion = -1;
  double last_time = 0;
};

// One chunk's share of a step.
struct alignas(64) PullChunk {  // (a cache line of its own: threads write their chunks' figures)
  int64_t first = 0, last = 0;  // processors [first, last)
  PullTally tally;
  bool broken = false;            // a rule broke, or a message did not arrive as expected
  std::vector<uint64_t> scratch;  // a strided message's words, gathered
  // Processors that defer their writes (rules::StepWrites): their messages' words kept aside, one
  // entry of staged_at per receive (the words' place in staged, -1: lost), and each processor with
  // its first entry.
  std::vector<uint64_t> staged;
  std::vector<int64_t> staged_at;
  std::vector<std::pair<int64_t, size_t>> deferred;
  CheckedSlices checked;  // (kept from step to step: the run's buffers and port rules do not change)

  void start_step() {
    tally.stats = StepStats{};
    tally.sent = tally.matched = tally.multi = 0;
    broken = false;
    staged.clear();
    staged_at.clear();
    deferred.clear();
  }
};

}  // namespace ppsim::cpu
