// The subcommands of ppsim. Each describes its options on a Command and says what runs it once
// the command line is read; main only dispatches.
#pragma once
#include "command_line.h"

namespace ppsim::cli {

Command list_command();    // list.cpp
Command run_command();     // run.cpp (network) and pram.cpp (--machine pram-*)
Command sweep_command();   // sweep.cpp
Command best_command();    // best.cpp
Command draw_command();    // draw.cpp
Command bounds_command();  // bounds.cpp
Command goal_command();    // goal.cpp (export; run --goal imports)

}  // namespace ppsim::cli
