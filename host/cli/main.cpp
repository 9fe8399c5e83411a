// ppsim command line: the subcommands (one file each, see cli/commands.h), parsed in one place
// (command_line.cpp), and the one that was given run. Every bad input ends with one line on
// stderr and exit code 2.
//
// Under mpirun (docs/DESIGN.md §8, "Past one process") every rank parses the same command line;
// `run`, `sweep` and `best` split their work across the ranks and rank 0 prints and writes; the
// other subcommands are rank 0's alone. A failure the ranks agree on (partition.h) is printed once,
// by rank 0, and every rank exits with 2; a failure one rank meets alone ends them all.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <vector>

#include "commands.h"
#include "dist/world.h"
#include "output_file.h"
#include "ppsim/errors.h"

using namespace ppsim;
using namespace ppsim::cli;

namespace {

bool distributes(const std::string& name) { return name == "run" || name == "sweep" || name == "best"; }

// A command line as a message quotes it: its words joined by spaces, at most 80 characters.
std::string command_text(const std::vector<uint64_t>& words) {
  std::string text = words_text_of(words);
  std::replace(text.begin(), text.end(), '\0', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return "`ppsim " + (text.size() > 80 ? text.substr(0, 77) + "..." : text) + "`";
}

// Every rank must run the same command line, checked before anything else is collective: ranks
// started with different ones (mpirun's ':' between two programs) would enter different collectives
// and wait for one another forever, or fail with a misleading schedule error. Rank 0's words go to
// every rank, each compares them with its own, and the lowest rank that differs shows its words.
void require_one_command_line(Collectives& ranks, int argc, char** argv) {
  std::string line;
  for (int i = 1; i < argc; ++i) line.append(argv[i]).push_back('\0');
  const std::vector<uint64_t> mine = text_words(line);
  std::vector<uint64_t> first = mine;
  ranks.broadcast(first, 0);
  int64_t differs[1] = {first == mine ? INT64_MAX : int64_t(ranks.rank())};
  ranks.min(differs, 1);
  if (differs[0] == INT64_MAX) return;
  std::vector<uint64_t> theirs = mine;
  ranks.broadcast(theirs, int(differs[0]));
  throw AgreedError(false, "rank " + std::to_string(differs[0]) + " runs " + command_text(theirs) + ", rank 0 " + command_text(first) +
                               ": every rank must run the same command line (one program after mpirun, no ':')");
}

int parse_and_run(int argc, char** argv) {
  std::vector<Command> commands = {list_command(), run_command(),    sweep_command(), best_command(),
                                   draw_command(), view_command(), bounds_command(), goal_command(), nccl_tests_command()};
  int help_exit = 0, chosen = -1;
  auto parse = [&] {
    // --help: printed once, by rank 0
    std::ostringstream silent;
    std::streambuf* out = dist::rank() == 0 ? nullptr : std::cout.rdbuf(silent.rdbuf());
    try {
      chosen = parse_command_line(argc, argv, commands, "ppsim: simulate collective communication on massively parallel processor arrays",
                                  &help_exit);
    } catch (...) {
      if (out) std::cout.rdbuf(out);
      throw;
    }
    if (out) std::cout.rdbuf(out);
  };
  if (Collectives* w = dist::world()) agreed_phase(*w, parse);
  else parse();
  if (chosen < 0) return help_exit;
  if (dist::rank() != 0 && !distributes(commands[size_t(chosen)].name())) return 0;
  const int code = commands[size_t(chosen)].run(commands[size_t(chosen)]);
  check_stdout();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  int code = 2;
  try {
    dist::start(&argc, &argv);
    if (Collectives* w = dist::world()) require_one_command_line(*w, argc, argv);
    code = parse_and_run(argc, argv);
  } catch (const AgreedError& e) {
    if (dist::rank() == 0) std::cerr << (e.schedule ? "ppsim: schedule error: " : "ppsim: error: ") << e.what() << "\n";
  } catch (const ScheduleError& e) {
    std::cerr << "ppsim: schedule error: " << e.what() << "\n";
    if (dist::world()) dist::abort_all(2);
  } catch (const std::exception& e) {  // UsageError, ConfigError and the rest
    std::cerr << "ppsim: error: " << e.what() << "\n";
    if (dist::world()) dist::abort_all(2);
  }
  dist::finish();
  return code;
}
