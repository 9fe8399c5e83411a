// The CPU backend's pull step (docs/DESIGN.md §2, "Two ways to run a step"): each processor asks
// the algorithm for its ops once a step, and for each of its receives asks its sender for the
// sender's ops, pairs the two, costs the message and applies the sender's words straight from the
// sender's buffer. No record is written and no payload is copied into a pool. The record path
// (engine_cpu.cpp's passes) stays for what the pull step does not take (ppsim::pull_step_refusal)
// and for the words of a broken rule: it runs the configuration again and reports it.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ppsim/engine.h"

namespace ppsim::cpu {

struct CpuRules;

// Each round's guess of its link loads on a routed topology (rules::RoundGuess), from the host's
// sample of processors (pull_choice.cpp); empty where it guesses none.
std::vector<int64_t> sampled_round_guesses(const CpuRules& r);

// The run on the pull step, unverified and with the buffers in the result; nullopt where a rule
// broke or a message did not arrive as the pull step expected: the record path then runs the
// configuration and reports it.
std::optional<RunResult> run_pull(const RunConfig& c);

}  // namespace ppsim::cpu
