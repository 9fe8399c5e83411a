// ppsim command line: the subcommands (one file each, see cli/commands.h), parsed in one place
// (command_line.cpp), and the one that was given run. Every bad input ends with one line on
// stderr and exit code 2.
#include <iostream>
#include <vector>

#include "commands.h"
#include "output_file.h"
#include "ppsim/errors.h"

using namespace ppsim;
using namespace ppsim::cli;

int main(int argc, char** argv) {
  std::vector<Command> commands = {list_command(), run_command(),    sweep_command(), best_command(),
                                   draw_command(), bounds_command(), goal_command()};
  try {
    int help_exit = 0;
    const int chosen = parse_command_line(argc, argv, commands, "ppsim: simulate collective communication on massively parallel processor arrays",
                                          &help_exit);
    if (chosen < 0) return help_exit;
    const int code = commands[size_t(chosen)].run(commands[size_t(chosen)]);
    check_stdout();
    return code;
  } catch (const ScheduleError& e) {
    std::cerr << "ppsim: schedule error: " << e.what() << "\n";
  } catch (const std::exception& e) {  // UsageError, ConfigError and the rest
    std::cerr << "ppsim: error: " << e.what() << "\n";
  }
  return 2;
}
