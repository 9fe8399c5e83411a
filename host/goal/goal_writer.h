// A registered algorithm exported as a GOAL schedule (`ppsim goal`), read round by round as its
// LogGP timing reads it (loggp/loggp_run.h), so that LogGOPSim times the file as ppsim times the
// algorithm: processor i's operations of round r are its sends, then its receives, in the
// algorithm's order, a message of w words is 8w bytes with tag r, and they require the receives of
// i's latest earlier round that has receives.
#pragma once
#include <ostream>

#include "ppsim/config.h"

namespace ppsim {

// Writes c's algorithm as GOAL text (goal.h reads it back); a comment line names the run.
void write_goal(const RunConfig& c, std::ostream& out);

}  // namespace ppsim
