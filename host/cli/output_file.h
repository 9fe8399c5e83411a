// The one way a command writes its output (docs/DESIGN.md §8), for every command and the Python
// module:
//   "-"                       standard output, written in place;
//   a device, FIFO or socket  written in place: opened, written and closed, never replaced;
//   a symbolic link           followed: the file it names is written, the link stays;
//   a regular file, or a path that does not exist yet
//                             written to a temporary file in the same folder and renamed over
//                             the target once complete, so the old file stays whole until then.
// Every write, close and rename is checked: a failure is a UsageError naming the path and the
// system's reason (one line, exit 2).
#pragma once
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace ppsim::cli {

class OutputFile {
 public:
  // Resolves `path` and checks that it can be written, before any work: a folder, a missing
  // folder, or one where the temporary file cannot be made is a UsageError naming `option`.
  OutputFile(const std::string& path, std::string option);
  ~OutputFile();  // an output never committed: its temporary file is removed, the target untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes all of `bytes` (the first write opens the target or the temporary file).
  void write(std::string_view bytes);
  // Completes the output: closes it and, for a regular file, renames the temporary file over
  // the target.
  void commit();

  bool to_stdout() const { return mode_ == Mode::stdout_; }
  const std::string& path() const { return path_; }

 private:
  enum class Mode { stdout_, in_place, atomic };
  [[noreturn]] void fail(const std::string& what, int error) const;
  void open();
  void drop_temp();  // removes the temporary file, if there is one

  std::string path_, option_;
  std::string target_;  // the file written: `path` with links followed
  std::string temp_;    // atomic: the temporary file beside the target
  int temp_slot_ = -1;  // where the signal handler finds it
  Mode mode_ = Mode::atomic;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `content` to `path` as above, all at once.
void write_output(const std::string& path, const std::string& option, std::string_view content);
// Writes what `produce` streams to `path` as above (nothing is left of it when `produce` throws,
// but on standard output or a device, where it was written in place).
void write_output(const std::string& path, const std::string& option, const std::function<void(std::ostream&)>& produce);
// Runs a program that draws a picture (gnuplot, neato) and writes the picture to `path` as above.
// The program runs in a private temporary folder: `input(picture)` is the text of its input file,
// given the path it must draw into (that folder's "picture.EXT"); `command(input_file, picture)`
// is its shell command. A program that fails, or draws nothing, is a UsageError `failure`.
void write_rendered(const std::string& path, const std::string& option, const std::string& extension,
                    const std::function<std::string(const std::string& picture)>& input,
                    const std::function<std::string(const std::string& input_file, const std::string& picture)>& command,
                    const std::string& failure);
// A JSON document, indented by one space, and a newline, for `option` (--json, --timeline: the
// option a failure names).
void write_json(const std::string& path, const nlohmann::json& doc, const std::string& option = "--json");
// Checks, before any work, that `path` can be written (as the constructor above).
void require_writable(const std::string& path, const std::string& option);
// The outputs of one command, each an option and its path (empty: not given), must name different
// files: two that name the same path, or reach one regular file (by device and inode) or one new
// file through links and folders, would each replace the other and leave only the one written
// last. Standard output ("-") twice is refused too; a device is written in place by each and may
// be shared (--json /dev/null --timeline /dev/null). Throws UsageError naming both options.
struct NamedOutput {
  const char* option;
  const std::string& path;
};
void require_distinct_outputs(std::initializer_list<NamedOutput> outputs);
// Standard output, after everything was printed: a write that failed there (a full disk, a
// closed pipe) is a UsageError, not a success.
void check_stdout();

}  // namespace ppsim::cli
