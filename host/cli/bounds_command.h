// `ppsim bounds`: Lin–Yeh Theorem 1 (the k-port postal lower bound), as options and a document.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "command_line.h"

namespace ppsim::cli {

struct BoundsOptions {
  int64_t n = 0;
  int k = 1, lambda = 1;
  bool json = false;
};

// Registers the options of `bounds` on a subcommand (the CLI's and the Python module's).
void add_bounds_options(Command& bounds, BoundsOptions& o);
// {n, k, lambda, G: [G(0) .. G(min_steps)], min_steps}, as `ppsim bounds --json` prints it. Throws UsageError.
nlohmann::json bounds_json(const BoundsOptions& o);

}  // namespace ppsim::cli
