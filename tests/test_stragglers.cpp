// Stragglers (ppsim/stragglers.h) in both models: closed forms of a chain and a ring slowed by one
// straggler, the device rounds (on the host executor) equal to the CPU, the lockstep LogGP timing
// equal to the event engine, and the command line's options and errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "loggp/loggp_run.h"
#include "loggp_configs.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/run.h"
#include "cli_shell.h"
#include "test_helpers.h"

using namespace ppsim;
using ppsim::testing_support::Shell;
using ppsim::testing_support::accepting_config;
using ppsim::testing_support::make_config;

namespace {

Stragglers listed(std::vector<int64_t> procs, double factor) {
  Stragglers s;
  s.factor = factor;
  s.listed = int32_t(procs.size());
  for (size_t i = 0; i < procs.size(); ++i) s.list[i] = procs[i];
  return s;
}

Stragglers share(double fraction, uint64_t seed, double factor) {
  Stragglers s;
  s.factor = factor;
  s.threshold = uint64_t(fraction * 0x1p64);
  s.seed = seed;
  return s;
}


}  // namespace

TEST(Stragglers, ListedAndShared) {
  const Stragglers l = listed({3, 17, 42}, 2);
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(l.slow(i), i == 3 || i == 17 || i == 42) << i;
  EXPECT_EQ(l.factor_of(17), 2.0);
  EXPECT_EQ(l.factor_of(16), 1.0);
  EXPECT_EQ(l.scaled(3, 1500), 3000u);
  EXPECT_EQ(listed({3}, 2.5).scaled(3, 5), 13u);  // 12.5 rounds to 13
  EXPECT_FALSE(listed({3}, 1.0).any());
  // A share: about that fraction of the processors, the same ones for the same seed.
  const Stragglers s = share(0.1, 7, 3);
  int64_t count = 0;
  for (int64_t i = 0; i < 100000; ++i) count += s.slow(i);
  EXPECT_NEAR(double(count), 10000.0, 400.0);  // 4 standard deviations
  int64_t differ = 0;
  const Stragglers t = share(0.1, 8, 3);
  for (int64_t i = 0; i < 1000; ++i) differ += s.slow(i) != t.slow(i);
  EXPECT_GT(differ, 50);
}

// Linear model. The chain (broadcast_chain, one segment) sends one message a step, from processor
// j - 1 in step j: a straggler k < p - 1 makes its step F times longer, (p - 1 + F - 1)(t_s + t_w m);
// the last processor sends nothing and changes nothing. The ring all-gather has every processor
// send in every step: one straggler anywhere makes every step F times longer.
TEST(Stragglers, LinearChainAndRingClosedForms) {
  const int64_t p = 8, m = 4;
  const double ts = 2, tw = 0.5, F = 3, step = ts + tw * double(m);
  for (bool device : {false, true})
    for (int64_t k = 0; k < p; ++k) {
      SCOPED_TRACE(std::string(device ? "device rounds" : "cpu") + ", straggler " + std::to_string(k));
      RunConfig chain = make_config("broadcast_chain", TopologyKind::linear, p, "", m);
      chain.cost.ts = ts;
      chain.cost.tw = tw;
      chain.cost.stragglers = listed({k}, F);
      const RunResult c = device ? run_device_rounds_on_host(chain) : run_simulation(chain, Backend::cpu);
      ASSERT_TRUE(c.verified);
      EXPECT_DOUBLE_EQ(c.time, double(p - 1) * step + (k < p - 1 ? (F - 1) * step : 0.0));
      RunConfig ring = make_config("allgather_ring", TopologyKind::ring, p, "", m);
      ring.cost.ts = ts;
      ring.cost.tw = tw;
      ring.cost.stragglers = listed({k}, F);
      const RunResult r = device ? run_device_rounds_on_host(ring) : run_simulation(ring, Backend::cpu);
      ASSERT_TRUE(r.verified);
      EXPECT_DOUBLE_EQ(r.time, double(p - 1) * F * step);
    }
}

// The CPU and the device rounds give the same figures with stragglers on routed and direct machines.
TEST(Stragglers, DeviceRoundsEqualTheCpu) {
  int checked = 0;
  for (const AlgorithmInfo& a : algorithms()) {
    RunConfig c;
    if (!accepting_config(a, c)) continue;
    c.cost.model = CostModel::linear;
    c.cost.ts = 3;
    c.cost.tw = 0.25;
    c.cost.th = 0.5;
    c.cost.stragglers = share(0.3, 5, 1.75);
    SCOPED_TRACE(a.name);
    const RunResult cpu = run_simulation(c, Backend::cpu), dev = run_device_rounds_on_host(c);
    EXPECT_TRUE(cpu.verified);
    EXPECT_EQ(cpu.time, dev.time);
    ASSERT_EQ(cpu.per_step.size(), dev.per_step.size());
    for (size_t i = 0; i < cpu.per_step.size(); ++i) EXPECT_EQ(cpu.per_step[i].time, dev.per_step[i].time) << "step " << i + 1;
    // And the stragglers cost something somewhere, never less than without them.
    c.cost.stragglers = Stragglers{};
    EXPECT_LE(run_simulation(c, Backend::cpu).time, cpu.time);
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// LogGP. The chain: each hop costs the sender o + (s-1)O and the receiver o + (s-1)max(O, G), the
// message arriving o + L after its send started; a straggler's o and O are F times longer (rounded).
TEST(Stragglers, LogGPChainClosedForm) {
  const LogGPParams P{700, 90, 40, 3, 5, 65535};
  const double F = 2.5;
  const int64_t p = 6, m = 16;
  const uint64_t s = uint64_t(m) * 8;
  for (int64_t k = -1; k < p; ++k) {
    SCOPED_TRACE("straggler " + std::to_string(k));
    RunConfig c = make_config("broadcast_chain", TopologyKind::full, p, "", m);
    c.cost.model = CostModel::loggp;
    c.cost.loggp = P;
    if (k >= 0) c.cost.stragglers = listed({k}, F);
    auto o = [&](int64_t i) { return i == k ? uint64_t(std::llround(double(P.o) * F)) : P.o; };
    auto O = [&](int64_t i) { return i == k ? uint64_t(std::llround(double(P.O) * F)) : P.O; };
    std::vector<uint64_t> want(size_t(p), 0);
    uint64_t arrive = o(0) + P.L;  // at processor 1: processor 0's send started at 0
    want[0] = o(0) + (s - 1) * O(0);
    for (int64_t i = 1; i < p; ++i) {
      const uint64_t received = arrive + o(i) + (s - 1) * std::max(O(i), P.G);
      want[size_t(i)] = received + (i < p - 1 ? o(i) + (s - 1) * O(i) : 0);
      arrive = received + o(i) + P.L;  // its send starts when its receive is done
    }
    const RunResult r = run_simulation(c, Backend::cpu);
    ASSERT_TRUE(r.verified);
    EXPECT_EQ(r.finish, want);
  }
}

// The lockstep timing equals the event engine with stragglers, for every algorithm.
TEST(Stragglers, LogGPLockstepEqualsTheEventEngine) {
  int checked = 0, lockstep = 0;
  for (const AlgorithmInfo& a : algorithms()) {
    RunConfig c;
    if (!accepting_config(a, c, true)) continue;
    c.cost.model = CostModel::loggp;
    c.cost.stragglers = share(0.25, 3, 1.6);
    SCOPED_TRACE(a.name);
    bool rounds = false;
    loggp::Result quick, events;
    try {
      quick = loggp_run(c, false, &rounds);
      events = loggp_run(c, true);
    } catch (const loggp::StuckError&) {
      continue;
    }
    EXPECT_EQ(quick.finish, events.finish);
    EXPECT_EQ(quick.events, events.events);
    lockstep += rounds;
    ++checked;
  }
  EXPECT_GT(checked, 50);
  EXPECT_GT(lockstep, checked / 2);
}

TEST(StragglersCli, ReportAndErrors) {
  Shell r = testing_support::run_cli("run --topology linear --p 8 --op broadcast --algo broadcast_chain --m 4 --ts 2 --tw 0.5 --stragglers 2,5 --straggler-factor 3 --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["time"].get<double>(), 7 * 4 + 2 * 2 * 4);  // two stragglers that send: each step 3 times longer
  EXPECT_EQ(j["config"]["stragglers"]["count"], 2);
  EXPECT_EQ(j["config"]["stragglers"]["processors"], nlohmann::json({2, 5}));
  Shell text = testing_support::run_cli("run --topology linear --p 8 --op broadcast --algo broadcast_chain --stragglers 12.5% --seed 4");
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("stragglers: "), std::string::npos) << text.out;
  struct Bad {
    const char* args;
    const char* says;
  };
  for (const Bad& b : {Bad{"--stragglers 8", "processor 8 is not on the machine"}, Bad{"--stragglers 1,x", "is not a list of processors"},
                       Bad{"--stragglers 0% ", "a share is a percentage"}, Bad{"--stragglers 150%", "a share is a percentage"},
                       Bad{"--stragglers 1 --straggler-factor 0.5", "--straggler-factor must be from 1"},
                       Bad{"--straggler-factor 2.5", "--straggler-factor needs --stragglers"}}) {
    EXPECT_TRUE(testing_support::refused(std::string("run --topology ring --p 8 --op allgather ") + b.args, b.says));
  }
}
