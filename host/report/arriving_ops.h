// What the failures (--fail) leave of a processor's ops of one round, as the replay and the
// timelines draw them: the messages they lose are not drawn (rules::keep_arriving).
#pragma once
#include <cstdint>

#include "ppsim/schedule.h"
#include "rules/failure_rules.h"
#include "rules/step_rules.h"

namespace ppsim {

class ArrivingOps {
 public:
  // The machine points at the run's failures (null: none) and must outlive this.
  explicit ArrivingOps(const rules::Machine& machine) : machine_(machine) {}
  // Processor i's ops of the round sent in step `sent`, arriving in `arrives`, less what is lost;
  // valid until the next call.
  const StepOps& of(const StepOps& ops, int64_t i, int64_t sent, int64_t arrives) {
    if (!machine_.failures) return ops;
    left_ = ops;
    rules::keep_arriving(machine_, left_, i, sent, arrives, route_);
    return left_;
  }
  // The route of the k-th send of the ops `of` returned last (0: the topology's own).
  int route(int k) const { return machine_.failures ? route_[k] : 0; }

 private:
  const rules::Machine& machine_;
  StepOps left_;
  int8_t route_[kMaxOps] = {};
};

}  // namespace ppsim
