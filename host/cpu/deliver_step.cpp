// Pass R: the messages that arrive at the end of a step, applied in receive order; the exchange
// rules checked against the step's sends.
#include "cpu/deliver_step.h"

#include <algorithm>

#include "cpu/schedule_errors.h"

namespace ppsim::cpu {

// How many receives ahead of the one applied deliver_chunk asks for its slot: a step's receives
// write words far apart (on C channels, C places in every receiver's buffer), and each waited for
// its cache line in turn.
constexpr size_t kPrefetchAhead = 16;

// The words of one receive action applied to processor proc's slots (apply_action_words). Inline:
// it is the pass's innermost call, made once per action.
inline void Delivery::apply_action(const RecvAction& act, int64_t proc, const uint64_t* src, int64_t len) const {
  apply_action_words(bufs_.slot(act.buf, proc) + act.dst_off, act, src, len, rules_.tokens, rules_.p, apply_);
}

void Delivery::deliver_chunk(const StepStore& arrived, const StepStore& sending, Chunk& ch, int k, int64_t t) const {
  const bool exchanges = sending.sent_in(t) && rules::checks_exchange(rules_.c.ports.model);
  const Chunk& out_chunk = sending.chunks[size_t(k)];
  int64_t last_checked = -1;
  const size_t n_recvs = ch.recvs.size();
  for (size_t n = 0; n < n_recvs; ++n) {
    const StoredRecv& rv = ch.recvs[n];
    if (rv.pool_off < 0) continue;  // a lost message's receive (rules/failure_rules.h): nothing arrives
    if (n + kPrefetchAhead < n_recvs) {
      const StoredRecv& later = ch.recvs[n + kPrefetchAhead];
      __builtin_prefetch(bufs_.slot(later.buf, later.proc) + later.dst_off, 1);
    }
    const int64_t i = rv.proc;
    if (exchanges && i != last_checked && sending.send_count[sending.at(i)] > 0) {  // once per processor: its first send
      last_checked = i;
      if (!exchange_allowed(out_chunk.sends[size_t(sending.send_begin[sending.at(i)])], rv, ch, t)) return;
    }
    const uint64_t* src = arrived.chunks[size_t(rv.pool_chunk)].pool.data() + rv.pool_off;
    if (rv.more < 0) {
      apply_action(RecvAction{rv.dst_off, 0, 0, rv.buf, rv.mode, 0, 0}, i, src, rv.len);
    } else {
      const RecvAction* run = ch.more_actions.data() + rv.more;
      for (int64_t x = 1; x <= run[0].dst_off; ++x) apply_action(run[x], i, src, rv.len);
    }
  }
}

// Whether the receiver of rv may send `out` in the step rv arrives (step_rules.h, exchange_rule);
// if not, the report goes to ch.
bool Delivery::exchange_allowed(const StoredSend& out, const StoredRecv& rv, Chunk& ch, int64_t t) const {
  const rules::Exchange e = rules::exchange_rule(rules_.c.ports.model, out.to, rv.from);
  if (e == rules::Exchange::ok) return true;
  ch.fail(rv.proc, exchange_text(e, t, rv.proc, out.to, rv.from));
  return false;
}

}  // namespace ppsim::cpu
