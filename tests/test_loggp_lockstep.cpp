// The LogGP timing round by round (loggp_lockstep.cpp) against the event engine (loggp.h), whose
// times are LogGOPSim's (test_loggp.cpp): every registered algorithm on small and larger machines,
// under parameters that make sends wait for the NIC, messages wait for the CPU, and events meet at
// one time. Where its conditions fail it must decline (the run then goes to the event engine),
// never give other times.
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

using ppsim::testing_support::loggp_text;

// The lockstep times equal the event engine's, if it gives any. True if it did.
bool same_as_events(const RunConfig& c) {
  const std::optional<loggp::Result> ls = loggp_lockstep(c);
  if (!ls) return false;
  testing_support::expect_same_times(*ls, loggp_run(c, true));
  return true;
}

}  // namespace

TEST(LogGPLockstep, EqualsTheEventEngineWhereverItRuns) {
  int ran = 0, cases = 0;
  testing_support::for_each_loggp_case([&](const RunConfig& c) {
    ++cases;
    if (same_as_events(c)) ++ran;
  });
  // Most algorithms run in lockstep most of the time (the count is printed to watch it).
  std::printf("lockstep timing ran in %d of %d cases\n", ran, cases);
  EXPECT_GT(ran, cases / 2);
}

// The algorithms of the benchmarks, at sizes where any slip in the order would show.
TEST(LogGPLockstep, LargerMachinesOfTheCommonAlgorithms) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p, m;
  };
  const Case cases[] = {{"allreduce_hypercube", TopologyKind::hypercube, 4096, 1},
                        {"allreduce_hypercube", TopologyKind::full, 1024, 300},
                        {"broadcast_binomial_low_first", TopologyKind::full, 1000, 5},
                        {"barrier_dissemination", TopologyKind::full, 777, 1},
                        {"allgather_ring", TopologyKind::ring, 96, 2},
                        {"reduce_scatter_pairwise", TopologyKind::full, 64, 128}};
  for (const Case& k : cases) {
    for (const LogGPParams& P : {LogGPParams{}, LogGPParams{700, 90, 40, 3, 5, 65535}}) {
      SCOPED_TRACE(std::string(k.algo) + " p=" + std::to_string(k.p) + " " + loggp_text(P));
      RunConfig c = make_config(k.algo, k.kind, k.p, "", k.m);
      c.cost.model = CostModel::loggp;
      c.cost.loggp = P;
      EXPECT_TRUE(same_as_events(c));
    }
  }
}

// The processors' batches of a round are timed on several threads: the same times on any number.
TEST(LogGPLockstep, ThreadsGiveTheSameTimes) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p;
  };
  for (const Case& k : {Case{"allreduce_hypercube", TopologyKind::hypercube, 16384}, Case{"broadcast_binomial_low_first", TopologyKind::full, 12289},
                        Case{"barrier_dissemination", TopologyKind::full, 10001}}) {
    SCOPED_TRACE(k.algo);
    RunConfig c = make_config(k.algo, k.kind, k.p, "", 2);
    c.cost.model = CostModel::loggp;
    const std::optional<loggp::Result> one = loggp_lockstep(c, 1), three = loggp_lockstep(c, 3);
    ASSERT_TRUE(one.has_value());
    ASSERT_TRUE(three.has_value());
    EXPECT_EQ(one->finish, three->finish);
    EXPECT_EQ(one->time, three->time);
    EXPECT_EQ(one->events, three->events);
    EXPECT_EQ(one->messages, three->messages);
  }
}

namespace {

// Processor 2 receives from 0 and from 1 in round 1; both send at time 0.
void two_at_once(const AlgoParams&, int64_t proc, int round, StepOps& out) {
  if (round != 1) return;
  if (proc < 2) out.add_send(2, 0, 0, 1);
  if (proc == 2) {
    out.add_recv(0, 0, 0, 1, RecvMode::copy);
    out.add_recv(1, 0, 0, 1, RecvMode::copy);
  }
}

// Round 1: 0 sends a message of `len` words to 1.
int64_t g_len = 1;
void one_message(const AlgoParams&, int64_t proc, int round, StepOps& out) {
  if (round != 1) return;
  if (proc == 0) out.add_send(1, 0, 0, g_len);
  if (proc == 1) out.add_recv(0, 0, 0, g_len, RecvMode::copy);
}

// Round 1: 2 sends to 0 and 3 to 1 (at time 0, from the start); round 2: 0 and 1 send to 4, at one
// time, their sends made at one time by the two messages' arrivals.
void tie_further_back(const AlgoParams&, int64_t proc, int round, StepOps& out) {
  if (round == 1 && (proc == 2 || proc == 3)) out.add_send(proc - 2, 0, 0, 1);
  if (round == 1 && proc < 2) out.add_recv(proc + 2, 0, 0, 1, RecvMode::copy);
  if (round == 2 && proc < 2) out.add_send(4, 0, 0, 1);
  if (round == 2 && proc == 4) {
    out.add_recv(0, 0, 0, 1, RecvMode::copy);
    out.add_recv(1, 0, 0, 1, RecvMode::copy);
  }
}

// Round 1: 0 sends to 1 more messages than a round holds.
void too_many(const AlgoParams&, int64_t proc, int round, StepOps& out) {
  if (round != 1) return;
  for (int k = 0; k <= kMaxOps; ++k) {
    if (proc == 0) out.add_send(1, 0, 0, 1);
    if (proc == 1) out.add_recv(0, 0, 0, 1, RecvMode::copy);
  }
}

RunConfig overridden(void (*ops)(const AlgoParams&, int64_t, int, StepOps&), const LogGPParams& P) {
  RunConfig c = make_config("broadcast_binomial", TopologyKind::full, 4, "", 1);
  c.test_ops_override = ops;
  c.cost.model = CostModel::loggp;
  c.cost.loggp = P;
  return c;
}

}  // namespace

// Where the engine's order would rest on more than the times, or on the other processor's clocks,
// the lockstep timing declines and the event engine's times stand.
TEST(LogGPLockstep, DeclinesWhereItsConditionsFail) {
  // Two messages made at time 0 on two processors arrive at one time: their sends were made at the
  // start, which the engine numbers processor by processor, so the lockstep timing orders them.
  RunConfig c = overridden(two_at_once, LogGPParams{});
  ASSERT_TRUE(same_as_events(c));
  const loggp::Result ev = loggp_run(c);
  // The first arrives at o + L; each costs the CPU o + (8 - 1)G, the second waiting for the first.
  EXPECT_EQ(ev.finish[2], 2500u + 1500 + 2 * (1500 + 7 * 6));
  // The same one level further on: the sends were made at one time by two arrivals, whose own order
  // lies further back still. Left to the engine.
  c = make_config("broadcast_binomial", TopologyKind::full, 5, "", 1);
  c.test_ops_override = tie_further_back;
  c.cost.model = CostModel::loggp;
  EXPECT_FALSE(loggp_lockstep(c).has_value());
  // Two hops of o + L, each receive o + 7G, and the second message at 4 waits for the first.
  EXPECT_EQ(loggp_run(c).finish[4], 2 * (1500u + 2500) + 3 * (1500 + 7 * 6));

  // A rendezvous (above S bytes) ties the sender's clocks to the receiver's.
  g_len = 10;
  c = overridden(one_message, LogGPParams{2500, 1500, 1000, 6, 0, 79});
  EXPECT_FALSE(loggp_lockstep(c).has_value());
  // Eager at S: the same message runs in lockstep, sender o + 79 O, receiver at o + L, then o + 79 G.
  c.cost.loggp.S = 80;
  ASSERT_TRUE(same_as_events(c));
  EXPECT_EQ(loggp_run(c).finish[1], 1500u + 2500 + 1500 + 79 * 6);

  // A 0-byte message wraps LogGOPSim's unsigned (s - 1): left to the event engine.
  g_len = 0;
  c = overridden(one_message, LogGPParams{});
  EXPECT_FALSE(loggp_lockstep(c).has_value());
  g_len = 1;

  // More operations in a round than a step holds: the event engine names them.
  c = overridden(too_many, LogGPParams{});
  EXPECT_FALSE(loggp_lockstep(c, 2).has_value());
  EXPECT_THROW(loggp_run(c), loggp::StuckError);
}

// The run reports which timing ran; `--model loggp` gives the same times either way.
TEST(LogGPLockstep, RunReportsTheTimingAndBothAgree) {
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::hypercube, 256, "", 4);
  c.cost.model = CostModel::loggp;
  bool lockstep = false;
  const loggp::Result r = loggp_run(c, false, &lockstep);
  EXPECT_TRUE(lockstep);
  const loggp::Result e = loggp_run(c, true, &lockstep);
  EXPECT_FALSE(lockstep);
  EXPECT_EQ(r.finish, e.finish);
  const RunResult run = run_simulation(c, Backend::cpu);
  EXPECT_TRUE(run.verified);
  EXPECT_EQ(run.finish, e.finish);
  EXPECT_EQ(run.loggp_timing, "rounds");
}

namespace {

using ppsim::testing_support::noise_spec;

// The noisy run and the same run without noise, timed in one lockstep pass: each lane is given
// exactly where the lockstep timing runs it alone (a lane whose conditions fail is dropped and the
// other goes on, unless that happens in the first quarter of the rounds: then the pass ends and
// leaves the other untimed), a lane said to be declined is one the lockstep timing declines alone,
// and a lane's times equal the event engine's with that lane's noise (none in the second). True if
// it gave both; `noiseless_alone` counts runs where it gave the noiseless lane only, `early` those
// it ended early.
bool both_lanes_as_events(const RunConfig& c, int threads = 1, int* noiseless_alone = nullptr, int* early = nullptr) {
  const NoisyAndNoiseless both = loggp_lockstep_noisy_and_noiseless(c, threads);
  RunConfig quiet = c;
  quiet.noise = nullptr;
  EXPECT_FALSE(both.noisy && both.noisy_declined);
  EXPECT_FALSE(both.noiseless && both.noiseless_declined);
  const bool noisy_known = both.noisy || both.noisy_declined, noiseless_known = both.noiseless || both.noiseless_declined;
  if (noisy_known) {
    EXPECT_EQ(both.noisy.has_value(), loggp_lockstep(c).has_value());
  }
  if (noiseless_known) {
    EXPECT_EQ(both.noiseless.has_value(), loggp_lockstep(quiet).has_value());
  }
  EXPECT_TRUE(noisy_known || noiseless_known);  // (an early end says which lane declined)
  if (early) *early += !noisy_known || !noiseless_known;
  if (both.noisy) testing_support::expect_same_times(*both.noisy, loggp_run(c, true));
  if (both.noiseless) {
    testing_support::expect_same_times(*both.noiseless, loggp_run(quiet, true));
    EXPECT_TRUE(both.noiseless->noise_per_host.empty());
  }
  if (noiseless_alone && both.noiseless && !both.noisy) ++*noiseless_alone;
  return both.noisy && both.noiseless;
}

}  // namespace

// Every algorithm and parameter set under dense and sparse noise, co-scheduled and independent.
// Co-scheduled noise delays every processor alike, so most of those runs keep the lockstep
// conditions; independent noise mostly breaks them, and then the pass must decline.
TEST(LogGPLockstep, NoisyAndNoiselessInOnePassEqualTheEventEngine) {
  const NoiseTrace dense = loggp::periodic_noise(200000, 700);    // a 5 us period: most operations meet one
  const NoiseTrace sparse = loggp::random_noise(20000, 3000, 3);  // a 50 us mean gap
  int ran = 0, cases = 0, cosched_ran = 0, cosched = 0, noisy_ran = 0, alone = 0, early = 0;
  testing_support::for_each_loggp_case([&](RunConfig c) {
    for (const NoiseTrace* trace : {&dense, &sparse})
      for (bool co : {false, true}) {
        SCOPED_TRACE(co ? "co-scheduled" : "independent");
        c.noise = noise_spec(*trace, co, 9);
        bool ok = false;
        try {
          ok = both_lanes_as_events(c, 1, &alone, &early);
        } catch (const loggp::StuckError&) {
          continue;  // (the engine refuses it too: test_loggp_windows)
        }
        ++cases;
        ran += ok;
        cosched += co;
        cosched_ran += ok && co;
        // A lane with noise that met a detour: the pass is more than the noiseless timing twice.
        if (ok) noisy_ran += loggp_run(c, true).noise > 0;
      }
  });
  std::printf("one pass ran in %d of %d noisy cases (%d of %d co-scheduled; %d met a detour); the noiseless lane alone in %d, "
              "ended early in %d\n", ran, cases, cosched_ran, cosched, noisy_ran, alone, early);
  EXPECT_GT(cosched_ran, cosched / 2);
  EXPECT_GT(noisy_ran, ran / 2);
  EXPECT_GT(alone, 0);  // independent noise dropped the noisy lane late, and the pass went on
  EXPECT_GT(early, 0);  // or early, and the pass ended
}

// The benchmark's case at a size where a slip would show, on 1 and 3 threads; with stragglers.
TEST(LogGPLockstep, NoisyAndNoiselessInOnePassAtScale) {
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::full, 16384, "", 1);
  c.cost.model = CostModel::loggp;
  for (uint64_t seed : {1u, 42u}) {
    c.noise = noise_spec(loggp::periodic_noise(1000, 25000), true, seed);
    EXPECT_TRUE(both_lanes_as_events(c, 1));
    EXPECT_TRUE(both_lanes_as_events(c, 3));
  }
  // Independent phases: a partner a round ahead breaks the lockstep conditions (the windows then
  // time the noisy run, test_loggp_windows).
  // The pass drops the noisy lane in its first rounds and ends, on 1 and 3 threads.
  c.noise = noise_spec(loggp::periodic_noise(1000, 25000), false, 1);
  for (int threads : {1, 3}) {
    int early = 0;
    EXPECT_FALSE(both_lanes_as_events(c, threads, nullptr, &early));
    EXPECT_EQ(early, 1);
    EXPECT_TRUE(loggp_lockstep_noisy_and_noiseless(c, threads).noisy_declined);
  }
  // Stragglers in both lanes, beside the noise in one.
  c = make_config("broadcast_binomial_low_first", TopologyKind::full, 1000, "", 4);
  c.cost.model = CostModel::loggp;
  testing_support::two_stragglers(c);
  c.noise = noise_spec(loggp::random_noise(20000, 3000, 3), true, 7);
  EXPECT_TRUE(both_lanes_as_events(c, 2));
}
