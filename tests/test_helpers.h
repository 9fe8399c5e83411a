// Building run configurations in tests.
#pragma once
#include <string>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"

namespace ppsim::testing_support {

inline RunConfig make_config(const std::string& algo, TopologyKind kind, int64_t p, const std::string& dims = "", int64_t m = 1,
                             OperatorKind k = OperatorKind::sum, int64_t root = 0) {
  RunConfig c;
  c.topology = make_topology(kind, p, dims);
  c.algorithm = find_algorithm(algo);
  if (!c.algorithm) throw std::invalid_argument("no algorithm " + algo);
  c.params = params_for(c.topology, m, root);
  c.combine = k;
  c.threads = 1;
  return c;
}

}  // namespace ppsim::testing_support
