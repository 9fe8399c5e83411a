// The closed forms and lower bounds a run is compared with (docs/DESIGN.md §3): the algorithm's
// formula, Lin–Yeh's step bound under the postal model, and the textbook's time bounds.
#include "ppsim/bounds.h"

#include <algorithm>
#include <cmath>

#include "ppsim/postal.h"

namespace ppsim {

double formula_time(const RunConfig& c) {
  if (c.params.lambda > 1 || c.cost.model == CostModel::loggp) return std::nan("");
  return c.algorithm->formula(c.params, c.cost) + c.base_latency;  // NCCL's protocol: its base latency once
}

int64_t postal_lower_bound_steps(const RunConfig& c) {
  if (c.algorithm->op == Operation::shift || c.ports.model == PortModel::all) return -1;
  // Switches that combine (kSwitchAgents) let knowledge of all p processors reach one in two
  // steps: up to a switch and back.
  if (c.algorithm->switch_agents()) return c.params.p > 1 ? 2 * c.params.lambda : 0;
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

// The per-word time no link undercuts: t_w, or the cheapest link class's where --tw-class gives
// classes their own (a word crossing only NVLink pays NVLink's).
double cheapest_tw(const RunConfig& c) {
  if (c.cost.tw_class_set == 0) return c.cost.tw;
  const Topology& machine = physical_topology(c);
  double least = c.cost.tw_of_class(0);
  for (int k = 1; k < topology_link_class_count(machine); ++k) least = std::min(least, c.cost.tw_of_class(k));
  return least;
}

// Steps in which knowledge can reach every processor when each step multiplies the processors
// that know by at most k + 1: ceil(log_{k+1} p) (Lin–Yeh Theorem 1 at lambda = 1).
double knowledge_steps(double p, double k) {
  double steps = 0;
  for (double reached = 1; reached < p; reached *= k + 1) ++steps;
  return steps;
}
}  // namespace

double lower_bound_time(const RunConfig& c) {
  const Operation op = c.algorithm->op;
  if (c.params.lambda > 1 || c.cost.model == CostModel::loggp || op == Operation::shift || op == Operation::multicast || op == Operation::kbroadcast ||
      op == Operation::kscatter)
    return std::nan("");
  const double p = double(c.params.p), m = double(c.params.m), k = usable_ports(c);
  if (p <= 1) return 0;
  // With switches that combine (kSwitchAgents) the fold need not pass any processor's ports: each
  // still sends its m words and takes the m-word result in, one step up and one down at least.
  if (c.algorithm->switch_agents()) return c.base_latency + 2 * c.cost.ts + cheapest_tw(c) * m / k;
  // Every step costs at least t_s; the busiest processor's words (received or sent) and combined
  // words pass its k ports, so the steps cost at least t_w words / k + gamma combined / k more.
  double words = 0, combined = 0;
  switch (op) {
    case Operation::broadcast:
    case Operation::scan: words = m; break;
    case Operation::reduce:  // the root receives m words; the (p - 1) m combines fall on p processors
      words = m;
      combined = m * (p - 1) / p;
      break;
    case Operation::allreduce:  // Chan, Heimlich, Purkayastha, van de Geijn (2007)
      words = 2 * m * (p - 1) / p;
      combined = m * (p - 1) / p;
      break;
    case Operation::reduce_scatter:  // each processor sends its p - 1 foreign blocks and folds p - 1 into its own
      words = m * (p - 1);
      combined = m * (p - 1);
      break;
    case Operation::allgather:
    case Operation::scatter:
    case Operation::gather: words = m * (p - 1); break;
    case Operation::barrier: break;  // messages charged no words: the steps alone
    case Operation::alltoall: {
      words = m * (p - 1);
      // p^2/4 messages of m words cross the bisection each way over its w links.
      const int64_t w = topology_metrics(physical_topology(c)).bisection_width;
      if (w > 0) words = std::max(words * 1.0, m * std::floor(p / 2) * std::ceil(p / 2) / double(w) * k);
      break;
    }
    default: break;
  }
  return c.base_latency + c.cost.ts * knowledge_steps(p, k) + (cheapest_tw(c) * words + c.cost.gamma * combined) / k;
}

Bandwidth bandwidth(const RunConfig& c, double time) {
  const double p = double(c.params.p), m = double(c.params.m);
  double n = m, factor = 1;
  switch (c.algorithm->op) {
    case Operation::allreduce: factor = 2 * (p - 1) / p; break;
    case Operation::allgather:
    case Operation::reduce_scatter:
    case Operation::alltoall:
    case Operation::scatter:
    case Operation::gather:
      n = p * m;
      factor = (p - 1) / p;
      break;
    case Operation::kscatter:
      n = double(c.params.sources) * p * m;
      factor = (p - 1) / p;
      break;
    case Operation::kbroadcast: n = double(c.params.sources) * m; break;
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::scan:
    case Operation::shift:
    case Operation::multicast: break;
    case Operation::barrier: n = 0; break;
  }
  if (!(time > 0) || n == 0) return {n, std::nan(""), std::nan("")};
  return {n, n / time, n / time * factor};
}

}  // namespace ppsim
