// Configurations every registered algorithm accepts under --model loggp (test_loggp.cpp,
// test_loggp_lockstep.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "loggp/loggp.h"
#include "ppsim/algorithm.h"
#include "ppsim/engine.h"
#include "ppsim/mapping.h"
#include "ppsim/noise.h"
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

inline std::string loggp_text(const LogGPParams& p) {
  return "L=" + std::to_string(p.L) + " o=" + std::to_string(p.o) + " g=" + std::to_string(p.g) + " G=" + std::to_string(p.G) +
         " O=" + std::to_string(p.O) + " S=" + std::to_string(p.S);
}

// Parameter sets under which sends wait for the NIC, messages wait for the CPU and events meet at
// one time, and a few drawn at random (fixed seed).
inline std::vector<LogGPParams> loggp_parameter_sets() {
  std::vector<LogGPParams> sets = {
      LogGPParams{},                               // LogGOPSim's defaults
      LogGPParams{700, 90, 40, 3, 5, 65535},       // per-byte CPU overhead above the gap's
      LogGPParams{0, 1000, 1000, 0, 0, 65535},     // L = 0 and o = g: arrivals meet sends
      LogGPParams{1000, 0, 500, 1, 0, 65535},      // o = 0
      LogGPParams{2500, 1500, 4000, 6, 0, 65535},  // g > o: sends wait for the NIC
      LogGPParams{10, 2000, 10, 0, 0, 65535},      // o >> L: messages wait for the CPU
  };
  std::mt19937_64 rng(15);
  for (int i = 0; i < 6; ++i) {
    auto draw = [&](uint64_t hi) { return uint64_t(rng() % (hi + 1)); };
    sets.push_back(LogGPParams{draw(3000), draw(2000), draw(2000), draw(8), draw(4), 65535});
  }
  return sets;
}

// f(c) for every registered algorithm on its small and its larger machine under every parameter
// set (c.cost.loggp set, the case traced).
template <class F>
void for_each_loggp_case(F&& f) {
  const std::vector<LogGPParams> sets = loggp_parameter_sets();
  for (const AlgorithmInfo& a : algorithms())
    for (bool larger : {false, true}) {
      RunConfig c;
      if (!accepting_config(a, c, larger)) continue;
      for (const LogGPParams& P : sets) {
        SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(c.params.p) + " " + loggp_text(P));
        c.cost.loggp = P;
        f(c);
      }
    }
}

// ppsim's noise over trace t, its phases drawn from `seed` (all one phase with `cosched`).
inline std::shared_ptr<const NoiseSpec> noise_spec(const NoiseTrace& t, bool cosched, uint64_t seed) {
  return std::make_shared<const NoiseSpec>(NoiseSpec{std::make_shared<const NoiseTrace>(t), cosched, seed, NoisePhases::ppsim});
}

// Processors 5 and 700 straggle: their o, O and calcs take three times as long.
inline void two_stragglers(RunConfig& c) {
  c.cost.stragglers.factor = 3.0;
  c.cost.stragglers.listed = 2;
  c.cost.stragglers.list[0] = 5;
  c.cost.stragglers.list[1] = 700;
}

// Two timings of one run agree on every processor, the events and the messages, and the detours.
inline void expect_same_times(const loggp::Result& a, const loggp::Result& b) {
  EXPECT_EQ(a.finish, b.finish);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.last_host, b.last_host);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_EQ(a.noise_per_host, b.noise_per_host);
  EXPECT_EQ(a.noise, b.noise);
}


}  // namespace ppsim::testing_support
