// A configuration's view through the step rules (step_rules.h): the shapes, clock, machine and
// port checks both backends build their runs from.
#pragma once
#include <algorithm>

#include "ppsim/engine.h"
#include "rules/step_rules.h"

namespace ppsim {

inline rules::Shape run_shape(const RunConfig& c) {
  rules::Shape s;
  s.nbuf = run_buffer_count(c);
  for (int b = 0; b < s.nbuf; ++b) s.words[b] = run_buffer_words(c, b);
  return s;
}

inline rules::Clock run_clock(const RunConfig& c) {
  return rules::Clock{c.algorithm->rounds(c.params), std::max(1, c.params.lambda), c.algorithm->postal_native()};
}

// The machine points at c's failures: c outlives it.
inline rules::Machine run_machine(const RunConfig& c) { return rules::Machine{physical_topology(c), c.mapped, c.mapping, c.failures.any() ? &c.failures : nullptr}; }

inline rules::PortRules run_port_rules(const RunConfig& c) {
  return rules::PortRules{run_shape(c), c.ports.model, rules::port_limit(c.ports.model, c.ports.k), run_processors(c)};
}

}  // namespace ppsim
