// Configurations every registered algorithm accepts under --model loggp (test_loggp.cpp,
// test_loggp_lockstep.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "ppsim/mapping.h"
#include "test_helpers.h"

namespace ppsim::testing_support {

// c under loggp into out, if the checks of a run accept it.
inline bool accepted(RunConfig c, RunConfig& out) {
  c.cost.model = CostModel::loggp;
  try {
    validate_config(c, false);
  } catch (const ConfigError&) {
    return false;
  }
  out = c;
  return true;
}

// The first of a few machines the algorithm runs on (`larger`: machines of 9 to 64 processors,
// else of 5 to 9), with m = 3 words (p·2 where the algorithm needs m divisible by p).
inline bool accepting_config(const AlgorithmInfo& a, RunConfig& out, bool larger = false) {
  struct Machine {
    TopologyKind kind;
    int64_t p;
    const char* dims;
  };
  const Machine small[] = {{TopologyKind::full, 6, ""},     {TopologyKind::hypercube, 8, ""}, {TopologyKind::ring, 7, ""},
                           {TopologyKind::mesh, 0, "2x3"},  {TopologyKind::torus, 0, "3x3"},  {TopologyKind::full, 8, ""},
                           {TopologyKind::linear, 5, ""},   {TopologyKind::star, 5, ""},      {TopologyKind::bintree, 7, ""},
                           {TopologyKind::binomial, 8, ""}, {TopologyKind::cluster, 0, "2x3"}};
  const Machine large[] = {{TopologyKind::full, 13, ""},     {TopologyKind::hypercube, 64, ""}, {TopologyKind::ring, 11, ""},
                           {TopologyKind::mesh, 0, "4x5"},   {TopologyKind::torus, 0, "4x4"},   {TopologyKind::full, 16, ""},
                           {TopologyKind::linear, 9, ""},    {TopologyKind::star, 9, ""},       {TopologyKind::bintree, 15, ""},
                           {TopologyKind::binomial, 16, ""}, {TopologyKind::cluster, 0, "3x4"}};
  for (const Machine& m : larger ? large : small) {
    if (!a.runs_on(m.kind)) continue;
    RunConfig c = make_config(a.name, m.kind, m.p, m.dims, 3);
    if (a.op == Operation::scan) c.params.n = 0;
    if (a.needs_m_divisible_by_p()) c.params.m = c.params.p * 2;
    if (a.needs_all_port()) {
      c.ports.model = PortModel::all;
      c.params.all_port = true;
    } else if (a.sends_per_step > 1) {
      c.ports.model = PortModel::kport;
      c.ports.k = a.sends_per_step;
      c.params.kports = a.sends_per_step;
    }
    if (accepted(c, out)) return true;
  }
  // Those written for a line or ring that runs on a hypercube in Gray-code order.
  const int64_t p = larger ? 16 : 8;
  for (TopologyKind logical : {TopologyKind::linear, TopologyKind::ring}) {
    if (!a.runs_on(logical)) continue;
    RunConfig c = make_config(a.name, logical, p, "", 3);
    c.mapped = true;
    c.mapping = Mapping{MapKind::gray, c.topology, make_topology(TopologyKind::hypercube, p, "")};
    if (accepted(c, out)) return true;
  }
  return false;
}

}  // namespace ppsim::testing_support
