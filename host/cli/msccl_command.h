// `ppsim run --msccl FILE` (msccl_command.cpp): an MSCCL program run with data, verified and timed.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "options.h"

namespace ppsim::cli {

// Exit 0 when the program finishes and verifies; 1 (one line on stderr) when it cannot finish or
// its result is wrong; a UsageError (exit 2) for a malformed file or a machine that does not fit.
int run_msccl_file(const RunOptions& o, const Command& run);

// What `run --msccl` and the Python module's run(msccl=...) share: the options checked (those of
// `run` that do not apply are a UsageError), the program read, run with data and timed, and
// either why it cannot finish, or the document --json writes and the text `run` prints (with the
// first wrong result, when there is one). Throws UsageError, ScheduleError.
struct MscclReport {
  std::string cannot_finish;  // "FILE: the program cannot finish: ..."; nothing else is set then
  nlohmann::json json;
  std::string text;
  std::string wrong;  // "FILE: wrong result: ...", or empty when every GPU's result verified
};
MscclReport run_msccl(const RunOptions& o, const Command& run);

}  // namespace ppsim::cli
