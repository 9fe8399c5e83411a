// Running the ppsim program from a test (PPSIM_EXE, which every test target defines): its exit
// code, stdout and stderr apart.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ppsim::testing_support {

struct Shell {
  int code;
  std::string out, err;
};

inline Shell run_cli(const std::string& args) {
  static std::atomic<int> calls{0};
  const std::string err_file = std::filesystem::temp_directory_path() /
                               ("ppsim_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(calls++));
  FILE* f = popen((std::string(PPSIM_EXE) + " " + args + " 2>" + err_file).c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int status = f ? pclose(f) : -1;
  std::ifstream e(err_file);
  std::stringstream es;
  es << e.rdbuf();
  std::filesystem::remove(err_file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, es.str()};
}

// A command line refused as bad input: exit 2, nothing on stdout, one line on stderr that says `says`.
inline ::testing::AssertionResult refused(const std::string& args, const std::string& says) {
  const Shell e = run_cli(args);
  if (e.code == 2 && e.out.empty() && e.err.find(says) != std::string::npos && std::count(e.err.begin(), e.err.end(), '\n') == 1)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "`ppsim " << args << "`: exit " << e.code << ", stdout '" << e.out << "', stderr '" << e.err
                                       << "' (want exit 2, no stdout, one line saying '" << says << "')";
}

}  // namespace ppsim::testing_support
