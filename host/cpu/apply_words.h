// Applying a received slice to a slot with an operator fixed at compile time: the CPU backend's
// innermost loop, instantiated once per operator and chosen once per run.
#pragma once
#include <algorithm>
#include <cstring>

#include "ppsim/operators.h"
#include "ppsim/schedule.h"
#include "rules/step_rules.h"

namespace ppsim {

// Every word of the run as step_rules.h's received_word says, with operator and mode fixed.
template <OperatorKind K, RecvMode M>
inline void apply_run(uint64_t* dst, const uint64_t* src, int64_t len) {
  auto op = [](uint64_t x, uint64_t y) { return combine<K>(x, y); };
  for (int64_t w = 0; w < len; ++w) dst[w] = rules::received_word<M>(op, src[w], dst[w]);
}

template <OperatorKind K>
inline void apply_words(uint64_t* dst, const uint64_t* src, int64_t len, RecvMode mode) {
  switch (mode) {
    case RecvMode::copy: std::memcpy(dst, src, size_t(len) * sizeof(uint64_t)); return;
    case RecvMode::recv_op_slot: apply_run<K, RecvMode::recv_op_slot>(dst, src, len); return;
    case RecvMode::slot_op_recv: apply_run<K, RecvMode::slot_op_recv>(dst, src, len); return;
  }
}

// The same words written to another place: dst[w] is what old[w] becomes when src[w] arrives (the
// pull step's new generation of a buffer: old is the one the step began with, and stays as it was).
template <OperatorKind K, RecvMode M>
inline void apply_run_from(uint64_t* __restrict dst, const uint64_t* __restrict old, const uint64_t* __restrict src, int64_t len) {
  auto op = [](uint64_t x, uint64_t y) { return combine<K>(x, y); };
  for (int64_t w = 0; w < len; ++w) dst[w] = rules::received_word<M>(op, src[w], old[w]);
}

template <OperatorKind K>
inline void apply_words_from(uint64_t* dst, const uint64_t* old, const uint64_t* src, int64_t len, RecvMode mode) {
  switch (mode) {
    case RecvMode::copy: std::memcpy(dst, src, size_t(len) * sizeof(uint64_t)); return;
    case RecvMode::recv_op_slot: apply_run_from<K, RecvMode::recv_op_slot>(dst, old, src, len); return;
    case RecvMode::slot_op_recv: apply_run_from<K, RecvMode::slot_op_recv>(dst, old, src, len); return;
  }
}

using ApplyFn = void (*)(uint64_t*, const uint64_t*, int64_t, RecvMode);
using ApplyFromFn = void (*)(uint64_t*, const uint64_t*, const uint64_t*, int64_t, RecvMode);
inline ApplyFn apply_for(OperatorKind k) {
  switch (k) {
#define PPSIM_APPLY_CASE(kind, name, law) \
  case OperatorKind::kind: return apply_words<OperatorKind::kind>;
    PPSIM_OPERATORS(PPSIM_APPLY_CASE)
#undef PPSIM_APPLY_CASE
  }
  return nullptr;
}
inline ApplyFromFn apply_from_for(OperatorKind k) {
  switch (k) {
#define PPSIM_APPLY_CASE(kind, name, law) \
  case OperatorKind::kind: return apply_words_from<OperatorKind::kind>;
    PPSIM_OPERATORS(PPSIM_APPLY_CASE)
#undef PPSIM_APPLY_CASE
  }
  return nullptr;
}

// One receive action's words applied to the slots at dst (the action's first slot), from the
// message's words at src: a barrier's tokens (tokens, p processors), a single copied word, one
// contiguous run, or runs every span.stride words (the last may be short). Both CPU step paths
// apply their arrivals through this.
inline void apply_action_words(uint64_t* dst, const RecvAction& act, const uint64_t* src, int64_t len, bool tokens, int64_t p, ApplyFn apply) {
  const rules::ActionSpan span = rules::action_span(act, len);
  src += act.msg_off;
  if (tokens) {  // a barrier's knowledge tokens, whatever the run's operator
    for (int64_t w = 0; w < span.len; ++w) {
      uint64_t& slot = dst[span.slot_index(w)];
      slot = rules::received_token(act.mode, src[w], slot, p);
    }
    return;
  }
  if (span.len == 1 && act.mode == RecvMode::copy) {
    *dst = *src;
    return;
  }
  if (span.run == span.len) return apply(dst, src, span.len, act.mode);
  for (int64_t at = 0, k = 0; at < span.len; at += span.run, ++k)  // the last run may be short
    apply(dst + k * span.stride, src + at, std::min(span.run, span.len - at), act.mode);
}

}  // namespace ppsim
