// The LogGP timing in windows of o + L, every processor on its own (loggp_windows.cpp), against the
// event engine (loggp.h), whose times are LogGOPSim's (test_loggp.cpp): every registered algorithm
// under the parameter sets of the lockstep tests, with independent and co-scheduled noise, with
// stragglers, and on several threads. Where the engine's order rests on more than it keeps, it must
// decline (the run then goes to the event engine), never give other times.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "loggp/loggp_run.h"
#include "loggp/noise.h"
#include "loggp_configs.h"
#include "ppsim/run.h"

using namespace ppsim;
using ppsim::testing_support::accepting_config;
using ppsim::testing_support::make_config;

namespace {

// The window times equal the event engine's, if it gives any. True if it did.
bool same_as_events(const RunConfig& c, int threads = 1) {
  const std::optional<loggp::Result> w = loggp_windows(c, threads);
  if (!w) return false;
  testing_support::expect_same_times(*w, loggp_run(c, true));
  return true;
}

using ppsim::testing_support::noise_spec;

}  // namespace

TEST(LogGPWindows, EqualsTheEventEngineWhereverItRuns) {
  int ran = 0, cases = 0;
  testing_support::for_each_loggp_case([&](const RunConfig& c) {
    ++cases;
    if (same_as_events(c)) ++ran;
  });
  // Every message here is eager and o + L > 0: every case runs in windows.
  std::printf("window timing ran in %d of %d cases\n", ran, cases);
  EXPECT_EQ(ran, cases);
}

// Noise: the detour is a function of the processor, the time and the length alone, so the windows
// meet the same detours as the engine. Independent phases are what the windows are for.
TEST(LogGPWindows, EqualsTheEventEngineUnderNoise) {
  const NoiseTrace dense = loggp::periodic_noise(200000, 700);  // a 5 us period: most operations meet one
  const NoiseTrace sparse = loggp::random_noise(20000, 3000, 3);  // a 50 us mean gap
  int ran = 0, checked = 0, independent_ran = 0, independent = 0;
  for (const AlgorithmInfo& a : algorithms()) {
    for (bool larger : {false, true}) {
      RunConfig c;
      if (!accepting_config(a, c, larger)) continue;
      for (const NoiseTrace* trace : {&dense, &sparse})
        for (bool cosched : {false, true}) {
          SCOPED_TRACE(std::string(a.name) + " p=" + std::to_string(c.params.p) + (cosched ? " cosched" : " independent"));
          c.noise = noise_spec(*trace, cosched, 9);
          try {
            const bool ok = same_as_events(c);
            ran += ok;
            ++checked;
            if (!cosched) {
              independent_ran += ok;
              ++independent;
            }
          } catch (const loggp::StuckError&) {
          }
        }
    }
  }
  std::printf("window timing ran in %d of %d noisy cases (%d of %d independent)\n", ran, checked, independent_ran, independent);
  EXPECT_GT(checked, 200);
  EXPECT_EQ(ran, checked);
}

// The benchmark's case (recursive doubling under a 1 kHz, 25 us detour with independent phases,
// which the lockstep timing declines) at sizes where a slip in the order would show, on 1 and 3
// threads; and stragglers beside the noise.
TEST(LogGPWindows, LargerMachinesAndThreads) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p, m;
  };
  const Case cases[] = {{"allreduce_hypercube", TopologyKind::full, 16384, 1},
                        {"allreduce_hypercube", TopologyKind::hypercube, 4096, 300},
                        {"broadcast_binomial_low_first", TopologyKind::full, 12289, 5},
                        {"barrier_dissemination", TopologyKind::full, 10001, 1},
                        {"allgather_ring", TopologyKind::ring, 96, 2}};
  for (const Case& k : cases)
    for (uint64_t seed : {1u, 42u}) {
      SCOPED_TRACE(std::string(k.algo) + " p=" + std::to_string(k.p) + " seed " + std::to_string(seed));
      RunConfig c = make_config(k.algo, k.kind, k.p, "", k.m);
      c.cost.model = CostModel::loggp;
      c.noise = noise_spec(loggp::periodic_noise(1000, 25000), false, seed);
      EXPECT_TRUE(same_as_events(c, 1));
      EXPECT_TRUE(same_as_events(c, 3));
      bool lockstep = true, windows = false;
      (void)loggp_run(c, false, &lockstep, 2, &windows);
      EXPECT_NE(lockstep, windows);
      if (std::string(k.algo) == "allreduce_hypercube" && k.kind == TopologyKind::full) {
        EXPECT_TRUE(windows) << "(the lockstep timing took the benchmark's case: this no longer tests the windows there)";
      }
    }
  // The makers' logs give back what no pending event reaches: at 2^16 processors under the
  // benchmark's noise, the window timing's events are over 2 million, its logs end holding under a
  // fifth of them, and its times are the event engine's; and without noise (every processor alike,
  // so ties between makers go further back) it either equals the engine or declines.
  for (const char* algo : {"barrier_dissemination", "allreduce_hypercube"}) {
    SCOPED_TRACE(algo);
    RunConfig big = make_config(algo, TopologyKind::full, 65536, "", 1);
    big.cost.model = CostModel::loggp;
    big.noise = noise_spec(loggp::periodic_noise(1000, 25000), false, 1);
    uint64_t held = 0;
    const std::optional<loggp::Result> noisy = loggp_windows(big, 1, &held);
    ASSERT_TRUE(noisy.has_value());
    EXPECT_GT(noisy->events, uint64_t(2) << 20);
    EXPECT_LT(held, noisy->events / 5);
    testing_support::expect_same_times(*noisy, loggp_run(big, true));
    big.noise = nullptr;
    const std::optional<loggp::Result> quiet = loggp_windows(big, 1, &held);
    std::printf("%s at 2^16: noisy %llu events; quiet %s\n", algo, (unsigned long long)noisy->events, quiet ? "timed" : "declined");
    if (quiet) testing_support::expect_same_times(*quiet, loggp_run(big, false));
  }
  // Stragglers: o and O a factor longer on a few processors.
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::full, 1024, "", 4);
  c.cost.model = CostModel::loggp;
  testing_support::two_stragglers(c);
  c.noise = noise_spec(loggp::random_noise(20000, 3000, 3), false, 7);
  EXPECT_TRUE(same_as_events(c, 2));
}

// Where the order rests on events further back than an event keeps, or on the other processor's
// clocks (a rendezvous), the window timing declines; the run then takes the event engine's times.
TEST(LogGPWindows, Declines) {
  // A rendezvous: allreduce with messages above S bytes.
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::full, 64, "", 1000);
  c.cost.model = CostModel::loggp;
  c.cost.loggp.S = 100;
  c.noise = noise_spec(loggp::periodic_noise(1000, 25000), false, 1);
  EXPECT_FALSE(loggp_windows(c).has_value());
  bool lockstep = true, windows = true;
  const loggp::Result r = loggp_run(c, false, &lockstep, 1, &windows);
  EXPECT_FALSE(lockstep);
  EXPECT_FALSE(windows);
  EXPECT_EQ(r.finish, loggp_run(c, true).finish);
  // o + L = 0: no window.
  c = make_config("allreduce_hypercube", TopologyKind::full, 64, "", 1);
  c.cost.model = CostModel::loggp;
  c.cost.loggp.L = 0;
  c.cost.loggp.o = 0;
  EXPECT_FALSE(loggp_windows(c).has_value());
}
