// The subcommands of ppsim. Each describes its options on a Command and says what runs it once
// the command line is read; main only dispatches.
#pragma once
#include "command_line.h"

namespace ppsim::cli {

Command list_command();    // list_command.cpp
Command run_command();     // run_command.cpp (network) and pram_command.cpp (--machine pram-*)
Command sweep_command();   // sweep_command.cpp (study/sweep.h plans and runs the points, plot.cpp draws them)
Command best_command();    // best_command.cpp (study/ranking.h ranks, study/tuning.h makes MPI tuning files)
Command draw_command();    // draw_command.cpp
Command view_command();    // view_command.cpp (the page: view_page.html)
Command bounds_command();  // bounds_command.cpp
Command goal_command();    // goal_command.cpp (export; run --goal imports)
Command nccl_tests_command();  // nccl_tests_command.cpp (study/nccl_table.h reads measured outputs)

}  // namespace ppsim::cli
