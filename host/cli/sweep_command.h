// `ppsim sweep`: its options and the command that writes a sweep's rows (the sweep itself:
// study/sweep.h).
#pragma once
#include "command_line.h"
#include "study/sweep.h"

namespace ppsim::cli {

// Registers the options of `sweep` on a subcommand (the CLI's and the Python module's).
void add_sweep_options(Command& sweep, SweepOptions& s);
// Runs the sweep and writes its rows: the exit code.
int run_sweep(const SweepOptions& s);

}  // namespace ppsim::cli
