// `ppsim bounds`: Lin–Yeh Theorem 1, the G sequence and the fewest steps.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bounds_command.h"
#include "commands.h"
#include "options.h"
#include "ppsim/postal.h"

namespace ppsim::cli {

namespace {

PostalTable bounds_table(const BoundsOptions& o) {
  if (o.n < 1 || o.n > kPostalGCap) throw UsageError("--n must be between 1 and 2^62");
  if (o.k < 1 || o.k > 1024) throw UsageError("--k must be between 1 and 1024");
  if (o.lambda < 1 || o.lambda > 1024) throw UsageError("--lambda must be between 1 and 1024");
  AlgoParams a;
  a.p = o.n;
  a.kports = o.k;
  a.lambda = o.lambda;
  return PostalTable(a);
}

int print_bounds(const BoundsOptions& o) {
  if (o.json) {
    std::cout << bounds_json(o).dump() << "\n";
    return 0;
  }
  const PostalTable table = bounds_table(o);
  const int steps = table.steps();
  std::cout << "k-port postal model, k = " << o.k << ", lambda = " << o.lambda
            << ": G(j) = 1 for j < lambda, G(j) = G(j-1) + k G(j-lambda)\n";
  for (int j = 0; j <= steps; ++j) {
    const int64_t v = table.values()[size_t(j)];
    std::cout << "  G(" << j << ") " << (v == kPostalGCap ? ">= " : "= ") << v << (v == kPostalGCap ? " (2^62: not tracked further)" : "")
              << "\n";
  }
  std::cout << "prefix (and broadcast, reduction) over n = " << o.n << " processors needs at least min{ i | G(i) >= n } = " << steps
            << " steps\n";
  return 0;
}

}  // namespace

nlohmann::json bounds_json(const BoundsOptions& o) {
  const PostalTable table = bounds_table(o);
  const int steps = table.steps();
  nlohmann::json g = nlohmann::json::array();
  for (int j = 0; j <= steps; ++j) g.push_back(table.values()[size_t(j)]);
  return {{"n", o.n}, {"k", o.k}, {"lambda", o.lambda}, {"G", g}, {"min_steps", steps}};
}

void add_bounds_options(Command& bounds, BoundsOptions& o) {
  bounds.integer("--n", o.n, "processors (or values)");
  bounds.require("--n");
  bounds.integer("--k", o.k, "ports", true);
  bounds.integer("--lambda", o.lambda, "postal latency", true);
  bounds.flag("--json", o.json, "print JSON");
}

Command bounds_command() {
  auto o = std::make_shared<BoundsOptions>();
  Command bounds("bounds", "the k-port postal lower bound (Lin–Yeh Theorem 1)");
  add_bounds_options(bounds, *o);
  bounds.run = [o](const Command&) { return print_bounds(*o); };
  return bounds;
}

}  // namespace ppsim::cli
