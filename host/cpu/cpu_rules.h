// A run's configuration as every pass of the CPU backend reads it: built once from the
// configuration through the shared rules (rules/run_rules.h), fixed for the run.
#pragma once
#include <cstdint>

#include "ppsim/engine.h"
#include "ppsim/postal.h"
#include "rules/run_rules.h"

namespace ppsim::cpu {

struct CpuRules {
  explicit CpuRules(const RunConfig& config)
      : c(config), machine(run_machine(config)), ports(run_port_rules(config)), clock(run_clock(config)), postal(config.params),
        a(postal.attached(config.params)), p(run_processors(config)), op(config.algorithm->op), tokens(rules::carries_tokens(op)) {}
  CpuRules(const CpuRules&) = delete;  // a points into postal
  CpuRules& operator=(const CpuRules&) = delete;

  const Topology& topo() const { return machine.topo; }
  int nbuf() const { return ports.shape.nbuf; }
  int64_t words(int32_t b) const { return ports.shape.words[b]; }

  const RunConfig& c;
  const rules::Machine machine;  // the topology messages travel on, and the mapping onto it
  const rules::PortRules ports;  // the port model and the buffers' shape
  const rules::Clock clock;      // rounds and steps
  const PostalTable postal;      // Lin–Yeh's G for the run, read by the postal algorithms' steps
  const AlgoParams a;            // the run's parameters, with postal attached
  const int64_t p;  // processors executed: the topology's p, and switch agents after them
  const Operation op;
  const bool tokens;  // a barrier: messages carry knowledge tokens (step_rules.h, carries_tokens)
};

}  // namespace ppsim::cpu
