// `ppsim run --msccl FILE` (msccl_command.cpp): an MSCCL program run with data, verified and timed.
#pragma once
#include "options.h"

namespace ppsim::cli {

// Exit 0 when the program finishes and verifies; 1 (one line on stderr) when it cannot finish or
// its result is wrong; a UsageError (exit 2) for a malformed file or a machine that does not fit.
int run_msccl_file(const RunOptions& o, const Command& run);

}  // namespace ppsim::cli
