// Options shared by the subcommands that run configurations (run, sweep, best, draw), and turning
// them into a RunConfig with every check the CLI makes.
#pragma once
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ppsim/engine.h"

namespace ppsim::cli {

// A bad option or combination: one line on stderr, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "1024", "2^10"
int64_t parse_count(const std::string& text, const char* option);
InputSpec parse_input(const std::string& text);

struct RunOptions {
  std::string machine = "network", logical, logical_dims, map = "identity";
  std::string topology = "hypercube", p, dims, op = "allreduce", algo, m = "1", ports = "single",
              routing = "cut-through", combine = "sum", input = "iota", backend = "auto", json;
  int64_t root = 0, n = 0, shift = 1, group_stride = 1, group_size = 0, sources = 1;
  bool exclusive = false;
  int lambda = 1, threads = 0;
  double ts = 1.0, tw = 1.0, th = 0.0;
  bool trace = false;
};

// Registers the options of `run` on a subcommand.
void add_run_options(CLI::App* app, RunOptions& o);

// Builds and checks a network configuration (not --machine pram-*). Throws UsageError.
RunConfig build_config(const RunOptions& o, Backend& backend);

// Writes JSON to a file through a temporary name (no partial file), or to stdout for "-".
void write_json_atomically(const std::string& path, const nlohmann::json& doc);

// Refuses (UsageError naming `option`) an output path that could not be written, before any work
// is done: a directory, or a place where its temporary file cannot be made. "-" passes.
void require_writable(const std::string& path, const std::string& option);

}  // namespace ppsim::cli
