// `ppsim best`: its options and the command that prints a ranking, a crossover map or the tuning
// files (the ranking itself: study/ranking.h, the maps and files: study/tuning.h).
#pragma once
#include "command_line.h"
#include "study/ranking.h"

namespace ppsim::cli {

// Registers the options of `best` on a subcommand (the CLI's and the Python module's).
void add_best_options(Command& best, BestOptions& b);

}  // namespace ppsim::cli
