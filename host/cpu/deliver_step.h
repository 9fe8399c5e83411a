// Pass R of the CPU backend: at the end of step t the messages sent in step t - lambda + 1 arrive
// and are applied to their receivers' buffers, in receive order, with the run's operator
// (apply_words.h) and what step_rules.h says an arriving word does to its slot. The port rules that
// combine a step's sends with its arrivals (half-duplex, telephone) are checked here, where both
// are known.
#pragma once
#include <cstdint>

#include "cpu/apply_words.h"
#include "cpu/cpu_rules.h"
#include "cpu/processor_buffers.h"
#include "cpu/step_store.h"

namespace ppsim::cpu {

class Delivery {
 public:
  Delivery(const CpuRules& rules, ProcessorBuffers& bufs) : rules_(rules), bufs_(bufs), apply_(apply_for(rules.c.combine)) {}

  // Applies the messages of chunk ch (chunk k of store `arrived`) that arrive at the end of step t;
  // `sending` holds what step t sent.
  void deliver_chunk(const StepStore& arrived, const StepStore& sending, Chunk& ch, int k, int64_t t) const;

 private:
  bool exchange_allowed(const StoredSend& out, const StoredRecv& rv, Chunk& ch, int64_t t) const;
  void apply_action(const RecvAction& act, int64_t proc, const uint64_t* src, int64_t len) const;

  const CpuRules& rules_;
  ProcessorBuffers& bufs_;
  const ApplyFn apply_;  // the run's operator, chosen once
};

}  // namespace ppsim::cpu
