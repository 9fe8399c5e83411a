// The closed forms and lower bounds a run is compared with (docs/DESIGN.md §3): the algorithm's
// formula, seed 000's step bound under the postal model, and the textbook's time bounds.
#include "ppsim/bounds.h"

#include <cmath>

#include "ppsim/postal.h"

namespace ppsim {

double formula_time(const RunConfig& c) {
  if (c.params.lambda > 1) return std::nan("");
  return c.algorithm->formula(c.params, c.cost);
}

int64_t postal_lower_bound_steps(const RunConfig& c) {
  if (c.algorithm->op == Operation::shift || c.ports.model == PortModel::all) return -1;
  int k = c.ports.model == PortModel::kport ? c.ports.k : 1;
  return postal_min_steps(c.params.p, k, c.params.lambda);
}

namespace {
// Links a processor can use at once under the run's port model: 1, k, or its degree (all-port).
double usable_ports(const RunConfig& c) {
  if (c.ports.model == PortModel::kport) return c.ports.k;
  if (c.ports.model != PortModel::all) return 1;
  return double(topology_degree(physical_topology(c)));
}
}  // namespace

double lower_bound_time(const RunConfig& c) {
  const double p = double(c.params.p), m = double(c.params.m);
  switch (c.algorithm->op) {
    case Operation::allgather:
    case Operation::reduce_scatter:
    case Operation::scatter:
    case Operation::gather:
      // (p - 1) m words through one processor's ports.
      return c.params.lambda > 1 ? std::nan("") : c.cost.tw * m * (p - 1) / usable_ports(c);
    case Operation::alltoall: {
      int64_t w = topology_metrics(c.topology).bisection_width;
      if (c.params.lambda > 1 || w == 0) return std::nan("");
      return c.cost.tw * m * std::floor(p / 2) * std::ceil(p / 2) / double(w);
    }
    case Operation::barrier:
      // Every processor must hear from every other: what one knows grows at most (ports + 1)-fold
      // per step (what it knew and what its partners knew), so ceil(log_{ports+1} p) steps carry
      // messages, each costing at least t_s + t_h (a barrier's messages are charged no words).
      if (c.params.lambda > 1) return std::nan("");
      return double(postal_min_steps(c.params.p, int(usable_ports(c)), 1)) * (c.cost.ts + c.cost.th);
    default: return std::nan("");
  }
}

}  // namespace ppsim
