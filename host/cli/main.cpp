// ppsim command line: builds the app from its subcommands (one file each, see cli/commands.h) and
// runs the one given. Every bad input ends with one line on stderr and exit code 2.
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "options.h"
#include "ppsim/engine.h"

using namespace ppsim;
using namespace ppsim::cli;

int main(int argc, char** argv) {
  CLI::App app{"ppsim: simulate collective communication on massively parallel processor arrays"};
  app.require_subcommand(1);
  const std::vector<Subcommand> subcommands = {add_list_command(app), add_run_command(app),  add_sweep_command(app),
                                               add_best_command(app), add_draw_command(app), add_bounds_command(app),
                                               add_goal_command(app)};
  read_integers_in_decimal(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
    return 2;
  }
  try {
    for (const Subcommand& sub : subcommands)
      if (*sub.app) return sub.run();
  } catch (const ScheduleError& e) {
    std::cerr << "ppsim: schedule error: " << e.what() << "\n";
  } catch (const std::exception& e) {  // UsageError, ConfigError and the rest
    std::cerr << "ppsim: error: " << e.what() << "\n";
  }
  return 2;
}
