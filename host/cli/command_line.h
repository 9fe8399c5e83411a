// A subcommand's options as plain data, and the one way the command line reads a value.
//
// Every subcommand describes its options on a Command (each bound to a field of its own options
// struct); command_line.cpp, the only unit that includes CLI11, turns the Commands into a parser,
// parses, and converts each given value with the studies' number readers (study/usage.h). So every option error, a number
// that does not read included, is reported before any command runs, and no other file pays for
// CLI11's compile time.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "study/usage.h"

namespace ppsim::cli {

// The command line speaks the studies' vocabulary: their options, points and rankings, and their
// readers of numbers.
using namespace ppsim::study;

// One subcommand: its name, description and options, and what runs it once they are read.
class Command {
 public:
  Command(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {}

  // Options bound to fields. A value given on the command line replaces the field's value after
  // the readers above accept it; an option that is not given leaves the field as it is. With
  // `shows_default`, --help prints the field's value at registration. Integers take
  // [lo, hi]; an empty value is refused for every option.
  void text(const char* name, std::string& field, std::string description, bool shows_default = false);
  void integer(const char* name, int64_t& field, std::string description, bool shows_default = false, int64_t lo = INT64_MIN,
               int64_t hi = INT64_MAX);
  void integer(const char* name, int& field, std::string description, bool shows_default = false, int lo = INT32_MIN, int hi = INT32_MAX);
  void real(const char* name, double& field, std::string description, bool shows_default = false);
  void flag(const char* name, bool& field, std::string description);
  // An option that takes `count` words at once (--emit FORMAT FILE).
  void words(const char* name, std::vector<std::string>& field, int count, std::string description);
  // The option must be given.
  void require(const char* name);

  // After parsing: whether an option was given, and the names of those that were, in the order
  // they were registered.
  bool given(std::string_view name) const;
  std::vector<std::string> given_names() const;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }

  // What runs the subcommand once its options are read, given the parsed command (for given()):
  // its exit code (throws UsageError, ConfigError, ScheduleError).
  std::function<int(const Command&)> run;

  // One option as the parser sees it (command_line.cpp).
  enum class Kind { text, int64, int32, real, flag, words };
  struct Option {
    std::string name, description, default_text;
    Kind kind;
    void* field;
    int count = 1;  // words: how many
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    bool required = false, shows_default = false, given = false;
  };
  std::vector<Option>& options() { return options_; }
  const std::vector<Option>& options() const { return options_; }

 private:
  Option& add(const char* name, Kind kind, void* field, std::string description, bool shows_default);

  std::string name_, description_;
  std::vector<Option> options_;
};

// Parses a command line (argv[1] names the subcommand) into one of `commands`. Returns the index
// of the subcommand to run, or -1 after printing help (exit code in *help_exit). Throws UsageError
// for every option error: unknown options, missing values, values the readers refuse.
int parse_command_line(int argc, const char* const* argv, std::vector<Command>& commands, const std::string& description,
                       int* help_exit);
// Parses `args` (options only, no subcommand name) as `command`'s options (the Python module).
void parse_options(Command& command, const std::vector<std::string>& args);

}  // namespace ppsim::cli
