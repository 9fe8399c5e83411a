// Running one configuration on the CPU backend, and everything a run's caller reads: its
// configuration (config.h), result (result.h), port models, errors, buffers and verification.
#pragma once
#include "ppsim/buffers.h"
#include "ppsim/config.h"
#include "ppsim/errors.h"
#include "ppsim/ports.h"
#include "ppsim/result.h"
#include "ppsim/verify.h"

namespace ppsim {

RunResult run_cpu(const RunConfig& c);

// Why a backend runs this configuration on the record path rather than the pull step
// (RunConfig::step_path; docs/DESIGN.md §2); nullptr where the pull step takes it. The device
// rounds also keep the records where a processor would have to defer its writes (their sizing
// pass tells).
const char* pull_step_refusal(const RunConfig& c, Backend backend = Backend::cpu);

}  // namespace ppsim
