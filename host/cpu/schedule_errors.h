// The words of every schedule error a run can report (docs/DESIGN.md §2): the step, the processor
// and its partner, and the rule broken. The CPU backend is their one home: the device backend,
// on finding a broken rule, reruns the configuration here for the message (cuda/rounds.h).
#pragma once
#include <cstdint>
#include <string>

#include "ppsim/ports.h"
#include "ppsim/schedule.h"
#include "rules/step_rules.h"

namespace ppsim::cpu {

// "step 3: processor 7", the start of every report.
std::string at(int64_t step, int64_t proc);

// The first rule processor i's ops of the round sent in step t break (the port models, the
// slices), as check_ops found it; receives are named at the step their messages arrive in.
std::string broken_rule_text(const rules::Verdict& v, const StepOps& ops, int64_t i, int64_t t, int64_t arrives, PortModel model,
                             int limit);

// Processor i sends len words to `to`, which posts no receive from i for it.
std::string unmatched_send_text(int64_t t, int64_t i, int64_t to, int64_t len);
// Processor i sends len words to `to`, whose receive from i expects expected words.
std::string length_mismatch_text(int64_t t, int64_t i, int64_t to, int64_t len, int64_t expected);
// Processor proc expects len words from `from`, which sends it nothing in step t.
std::string unmatched_receive_text(int64_t t, int64_t proc, int64_t from, int64_t len);
// Processor i sends to send_to in step t while its message from recv_from arrives, against the
// exchange rule e (half-duplex, telephone).
std::string exchange_text(rules::Exchange e, int64_t t, int64_t i, int64_t send_to, int64_t recv_from);

}  // namespace ppsim::cpu
