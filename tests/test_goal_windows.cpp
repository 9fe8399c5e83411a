// The window timing of GOAL schedules (host/goal/goal_windows.h) against the event engine
// (loggp.h): the same times, events, detours and finishing times for every schedule of the
// LogGOPSim corpus and for random schedules with every kind of operation and dependency, under
// independent noise (where goal::simulate takes the windows), with and without stragglers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "goal/goal.h"
#include "goal/goal_windows.h"
#include "loggp/noise.h"

using namespace ppsim;

namespace {

const std::string kGoalData = PPSIM_TEST_DATA "/goal/";

std::shared_ptr<const NoiseTrace> trace(NoiseTrace t) { return std::make_shared<const NoiseTrace>(std::move(t)); }

// Both timings of s, compared field by field; whether the windows gave the times.
bool same_as_engine(const goal::Schedule& s, const LogGPParams& P, const loggp::Effects& fx, const std::string& what) {
  std::optional<loggp::Result> w;
  try {
    w = goal::detail::WindowTiming(s, P, fx).run();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": the windows threw " << e.what();
    return false;
  }
  loggp::Result e;
  try {
    e = goal::simulate_events(s, P, fx);
  } catch (const loggp::StuckError&) {
    EXPECT_FALSE(w) << what << ": the engine finds it stuck";
    return false;
  }
  if (!w) return false;
  EXPECT_EQ(w->finish, e.finish) << what;
  EXPECT_EQ(w->time, e.time) << what;
  EXPECT_EQ(w->last_host, e.last_host) << what;
  EXPECT_EQ(w->events, e.events) << what;
  EXPECT_EQ(w->messages, e.messages) << what;
  EXPECT_EQ(w->noise, e.noise) << what;
  EXPECT_EQ(w->noise_per_host, e.noise_per_host) << what;
  EXPECT_EQ(e.unfinished, "") << what;
  return true;
}

// A random schedule of `ranks` ranks: messages of random sizes and tags (some received with any
// tag, some to the sender itself), calcs, and dependencies (requires and irequires) of an
// operation on operations of its rank made before it, so that nothing waits in a cycle (a
// message's send and receive are made together).
std::string random_schedule(uint32_t ranks, int messages, std::mt19937& rng) {
  std::vector<std::vector<std::string>> ops(ranks);
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  for (int m = 0; m < messages; ++m) {
    const uint32_t from = pick(ranks), to = pick(5) == 0 ? from : pick(ranks);
    const uint64_t size = 1 + pick(3000);
    // (tags around 31 too: the window timing keeps a tag below it in the event and reads any other
    // from the schedule; and some far above it)
    const uint32_t tag = pick(8) == 0 ? 30 + pick(3) : pick(12) == 0 ? 0xFFFE + pick(3) : pick(3);
    ops[from].push_back("send " + std::to_string(size) + "b to " + std::to_string(to) + " tag " + std::to_string(tag));
    // (a receive of any tag may take another's message and leave one unmatched: the engine alone
    // reports it, and the test sees that the windows gave nothing)
    const bool any_tag = pick(40) == 0;
    ops[to].push_back("recv " + std::to_string(size) + "b from " + std::to_string(from) + " tag " + (any_tag ? "-1" : std::to_string(tag)));
    if (pick(3) == 0) ops[from].push_back("calc " + std::to_string(pick(5000)));
  }
  std::ostringstream out;
  out << "num_ranks " << ranks << "\n";
  for (uint32_t r = 0; r < ranks; ++r) {
    out << "rank " << r << " {\n";
    for (size_t i = 0; i < ops[r].size(); ++i) out << "l" << i << ": " << ops[r][i] << "\n";
    for (size_t i = 1; i < ops[r].size(); ++i)
      for (int d = 0; d < 2; ++d)
        if (pick(3) == 0) out << "l" << i << (pick(4) == 0 ? " irequires l" : " requires l") << pick(uint32_t(i)) << "\n";
    out << "}\n";
  }
  return out.str();
}

}  // namespace

TEST(GoalWindows, EveryCorpusScheduleGivesTheEnginesTimes) {
  const auto noise_trace = trace(loggp::periodic_noise(1000, 25000));
  const auto dense = trace(loggp::random_noise(200000, 700, 3));
  int windowed = 0, schedules = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGoalData)) {
    if (entry.path().extension() != ".goal") continue;
    goal::Schedule s;
    try {
      s = goal::read_file(entry.path().string());
    } catch (const goal::ParseError&) {
      continue;  // (the corpus holds bad files too)
    }
    ++schedules;
    for (const auto& t : {noise_trace, dense})
      for (uint64_t seed : {1, 7})
        for (NoisePhases phases : {NoisePhases::ppsim, NoisePhases::loggopsim}) {
          const loggp::Noise noise(NoiseSpec{t, false, seed, phases}, s.ranks);
          Stragglers slow;
          slow.factor = 2.5;
          slow.listed = 1;
          slow.list[0] = 1;
          const std::string what = entry.path().filename().string() + " seed " + std::to_string(seed);
          windowed += same_as_engine(s, LogGPParams{}, loggp::Effects{&noise, nullptr}, what);
          same_as_engine(s, LogGPParams{}, loggp::Effects{&noise, &slow}, what + " with a straggler");
          same_as_engine(s, LogGPParams{100, 30, 50, 2, 1, 1000000}, loggp::Effects{&noise, nullptr}, what + " small o and L");
        }
  }
  EXPECT_GT(schedules, 20);
  EXPECT_GT(windowed, schedules * 8 / 2);  // most of them in windows (rendezvous sends are not)
}

TEST(GoalWindows, RandomSchedulesGiveTheEnginesTimes) {
  std::mt19937 rng(12345);
  const auto t = trace(loggp::random_noise(100000, 2000, 11));
  int windowed = 0;
  for (int i = 0; i < 60; ++i) {
    const uint32_t ranks = 2 + uint32_t(rng() % 40);
    const goal::Schedule s = goal::parse(random_schedule(ranks, int(ranks) * (2 + int(rng() % 12)), rng), "random");
    const loggp::Noise noise(NoiseSpec{t, false, uint64_t(i), NoisePhases::ppsim}, s.ranks);
    const LogGPParams P{uint64_t(rng() % 3000), 1 + uint64_t(rng() % 2000), uint64_t(rng() % 2000), rng() % 8, rng() % 3, 1u << 20};
    windowed += same_as_engine(s, P, loggp::Effects{&noise, nullptr}, "random schedule " + std::to_string(i));
  }
  EXPECT_GT(windowed, 30);
}

// Operations ready together run in the order of the engine's std::sort by type, which the window
// timing finds from the types alone and keeps for the next sequence of the same types: ranks
// whose operations are all ready at the start, 6 to 40 of them (past the 19 whose order is kept),
// sends to the next rank, receives from the one before and calcs in random order, each rank's
// order that of the rank before or a new one.
TEST(GoalWindows, OperationsReadyTogetherRunInTheEnginesOrder) {
  std::mt19937 rng(99);
  const auto t = trace(loggp::random_noise(100000, 2000, 5));
  int windowed = 0;
  for (int i = 0; i < 20; ++i) {
    const uint32_t ranks = 4 + uint32_t(rng() % 12), n = 6 + uint32_t(rng() % 35);
    std::vector<int> kinds(n, 2);  // (as many sends as receives: every message is received)
    for (uint32_t k = 0; k + 1 < n; k += 2)
      if (rng() % 3) kinds[k] = 0, kinds[k + 1] = 1;
    std::shuffle(kinds.begin(), kinds.end(), rng);
    std::string text = "num_ranks " + std::to_string(ranks) + "\n";
    for (uint32_t r = 0; r < ranks; ++r) {
      if (rng() % 2) std::shuffle(kinds.begin(), kinds.end(), rng);
      text += "rank " + std::to_string(r) + " {\n";
      for (const int k : kinds) {
        if (k == 0) text += "send 8b to " + std::to_string((r + 1) % ranks) + " tag 0\n";
        if (k == 1) text += "recv 8b from " + std::to_string((r + ranks - 1) % ranks) + " tag 0\n";
        if (k == 2) text += "calc " + std::to_string(100 + rng() % 900) + "\n";
      }
      text += "}\n";
    }
    const goal::Schedule s = goal::parse(text, "ready together");
    const loggp::Noise noise(NoiseSpec{t, false, uint64_t(i), NoisePhases::ppsim}, s.ranks);
    windowed += same_as_engine(s, LogGPParams{}, loggp::Effects{&noise, nullptr}, "schedule " + std::to_string(i));
  }
  EXPECT_EQ(windowed, 20);  // (every one timed window by window, and equal)
}

// A posted receive taken from the middle is marked as taken, in 16 bits (a rank of fewer than
// 2^16 - 1 operations) or 32: rank 0 posts receives from ranks 1, 2 and 3, whose messages come in
// the opposite order (ranks 1 and 2 send after calcs), then a calc for each; with none or a chain
// of 70,000 calcs beside them, on both timings, under independent noise.
TEST(GoalWindows, ReceivesTakenOutOfTheirOrderOnRanksOfFewAndManyOperations) {
  for (const int before : {0, 70000}) {
    std::string text = "num_ranks 4\nrank 0 {\n";
    for (int k = 0; k < before; ++k)  // (a chain, one ready at a time)
      text += "c" + std::to_string(k) + ": calc 1\n" + (k ? "c" + std::to_string(k) + " requires c" + std::to_string(k - 1) + "\n" : "");
    text += "l1: recv 8b from 1 tag 0\nl2: recv 8b from 2 tag 0\nl3: recv 8b from 3 tag 0\n";
    text += "l4: calc 100\nl4 requires l1\nl5: calc 200\nl5 requires l2\nl6: calc 300\nl6 requires l3\n}\n";
    text += "rank 1 {\nl1: calc 20000\nl2: send 8b to 0 tag 0\nl2 requires l1\n}\n";
    text += "rank 2 {\nl1: calc 9000\nl2: send 8b to 0 tag 0\nl2 requires l1\n}\n";
    text += "rank 3 {\nl1: send 8b to 0 tag 0\n}\n";
    const goal::Schedule s = goal::parse(text, "out of order");
    const auto t = trace(loggp::periodic_noise(1000, 25000));
    for (uint64_t seed : {1, 2, 3}) {
      const loggp::Noise noise(NoiseSpec{t, false, seed, NoisePhases::ppsim}, s.ranks);
      const std::string what = std::to_string(before) + " calcs beside, seed " + std::to_string(seed);
      EXPECT_TRUE(same_as_engine(s, LogGPParams{}, loggp::Effects{&noise, nullptr}, what));
    }
  }
}

// A message passes over the posted receives that cannot be its sender's by their sources' low 16
// bits alone; sources that share them (1 and 65537) are told apart by the receives themselves.
// Rank 0 posts a receive from 65537, then one from 1, and a calc of 10000 ns after the second;
// rank 1's message (at o + L = 4000) takes the second receive, so the calc runs from 5542 (after
// its o + 7G) to 15542, and rank 65537's message, sent after a calc of 5000 and there at 9000,
// is handled at 15542: rank 0 finishes at 17084. Both timings give that, with noise the same.
TEST(GoalWindows, ReceivesFromSourcesThatShareTheirLowBitsAreToldApart) {
  std::string text = "num_ranks 65538\n";
  for (uint32_t r = 0; r < 65538; ++r) {
    text += "rank " + std::to_string(r) + " {\n";
    if (r == 0) text += "l1: recv 8b from 65537 tag 0\nl2: recv 8b from 1 tag 0\nl3: calc 10000\nl3 requires l2\n";
    if (r == 1) text += "l1: send 8b to 0 tag 0\n";
    if (r == 65537) text += "l1: calc 5000\nl2: send 8b to 0 tag 0\nl2 requires l1\n";
    text += "}\n";
  }
  const goal::Schedule s = goal::parse(text, "low bits");
  const LogGPParams P;  // LogGOPSim's defaults: L 2500, o 1500, g 1000, G 6, O 0
  const uint64_t handled = P.o + 7 * P.G, calc_end = P.o + P.L + handled + 10000;
  const loggp::Result r = goal::simulate_events(s, P);
  EXPECT_EQ(r.finish[0], calc_end + handled);
  EXPECT_EQ(r.time, calc_end + handled);
  EXPECT_EQ(r.last_host, 0u);
  const auto t = trace(loggp::periodic_noise(1000, 25000));
  for (uint64_t seed : {1, 2, 3}) {
    const loggp::Noise noise(NoiseSpec{t, false, seed, NoisePhases::ppsim}, s.ranks);
    EXPECT_TRUE(same_as_engine(s, P, loggp::Effects{&noise, nullptr}, "seed " + std::to_string(seed)));
  }
}

TEST(GoalWindows, TheEngineTimesWhatTheWindowsLeave) {
  const goal::Schedule s = goal::parse("num_ranks 2\nrank 0 {\nl1: send 100b to 1\n}\nrank 1 {\nl1: recv 100b from 0\n}\n", "f");
  const auto t = trace(loggp::periodic_noise(1000, 25000));
  const loggp::Noise independent(NoiseSpec{t, false, 1, NoisePhases::ppsim}, 2), cosched(NoiseSpec{t, true, 1, NoisePhases::ppsim}, 2);
  EXPECT_TRUE(goal::detail::WindowTiming(s, LogGPParams{}, loggp::Effects{&independent, nullptr}).run());
  // No noise, noise in phase, a rendezvous, o + L = 0: the engine's.
  EXPECT_FALSE(goal::detail::WindowTiming(s, LogGPParams{}, loggp::Effects{}).run());
  EXPECT_FALSE(goal::detail::WindowTiming(s, LogGPParams{}, loggp::Effects{&cosched, nullptr}).run());
  EXPECT_FALSE(goal::detail::WindowTiming(s, LogGPParams{2500, 1500, 1000, 6, 0, 10}, loggp::Effects{&independent, nullptr}).run());
  EXPECT_FALSE(goal::detail::WindowTiming(s, LogGPParams{0, 0, 1000, 6, 0, 65535}, loggp::Effects{&independent, nullptr}).run());
  // A receive never matched: the engine names it.
  const goal::Schedule stuck = goal::parse("num_ranks 2\nrank 0 {\n}\nrank 1 {\nl1: recv 8b from 0\n}\n", "f");
  EXPECT_FALSE(goal::detail::WindowTiming(stuck, LogGPParams{}, loggp::Effects{&independent, nullptr}).run());
  EXPECT_THROW(goal::simulate(stuck, LogGPParams{}, loggp::Effects{&independent, nullptr}), loggp::StuckError);
}

// The log of makers gives back every entry as written, also from the blocks it has packed: runs of
// close entries (a window's makers, rank after rank), roots among them, and far jumps in every
// field (the widest a packed group must hold).
TEST(GoalWindows, TheMakersLogGivesBackWhatWasWritten) {
  using goal::detail::PackedMade;
  // (blocks of 2^12 entries, a small machine's; and of 2^17, 2^18 ranks' and more)
  EXPECT_EQ(goal::detail::RecentMakers::bits_for(4096), 12u);
  EXPECT_EQ(goal::detail::RecentMakers::bits_for(65536), 15u);
  EXPECT_EQ(goal::detail::RecentMakers::bits_for(1u << 20), 17u);
  for (const uint32_t bits : {12u, 17u}) {
    std::mt19937_64 rng(7);
    std::vector<PackedMade> written;
    goal::detail::RecentMakers log(bits);
    const uint32_t n = 5u << bits;  // (the first blocks packed)
    uint64_t time = 1000;
    uint32_t host = 0;
    for (uint32_t i = 0; i < n; ++i) {
      PackedMade m;
      if (rng() % 1000 == 0) {
        m = PackedMade::root(uint16_t(rng()));
      } else {
        const bool far = rng() % 500 == 0;
        time = far ? rng() % (uint64_t(1) << 47) : time + rng() % 50;
        host = far ? uint32_t(rng()) : host + uint32_t(rng() % 3);
        m.time_idx = time << 16 | (far ? rng() % 65536 : rng() % 4);
        m.host = host;
        m.ref = far || i == 0 ? uint32_t(rng() % (uint64_t(PackedMade::kRoot))) : i - 1 - uint32_t(rng() % std::min<uint32_t>(i, 200000));
      }
      uint32_t at = 0;
      ASSERT_TRUE(log.push(m, at));
      ASSERT_EQ(at, i);
      written.push_back(m);
    }
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(log.entry(i), written[i]) << bits << ": entry " << i;
    // A given-back block's entries are gone; the kept ones read as before.
    log.forget_before(uint64_t(2) << bits);
    EXPECT_THROW(log.entry(0), goal::detail::RecentMakers::Gone);
    EXPECT_THROW(log.entry((2u << bits) - 1), goal::detail::RecentMakers::Gone);
    for (uint32_t i = 2u << bits; i < n; i += 97) ASSERT_EQ(log.entry(i), written[i]) << bits << ": entry " << i;
  }
}

// An event keeps how long before it its maker ran in 32 bits: a calc of 2^32 ns or more, whose
// send is made ready when it ends, is left to the engine, and one a little shorter is not; the
// times are the engine's either way.
TEST(GoalWindows, AMakerRunLongBeforeItsEventLeavesTheScheduleToTheEngine) {
  const auto t = trace(loggp::random_noise(10, 1000, 3));  // (a period of seconds: longer than the calc)
  for (const uint64_t ns : {uint64_t(4000000000), uint64_t(5000000000)}) {
    const std::string text = "num_ranks 2\nrank 0 {\nl1: calc " + std::to_string(ns) +
                             "\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n";
    const goal::Schedule s = goal::parse(text, "long.goal");
    const loggp::Noise noise(NoiseSpec{t, false, 1, NoisePhases::ppsim}, s.ranks);
    EXPECT_EQ(same_as_engine(s, LogGPParams{}, loggp::Effects{&noise, nullptr}, std::to_string(ns) + " ns"), ns < (uint64_t(1) << 32)) << ns;
    EXPECT_GT(goal::simulate(s, LogGPParams{}, loggp::Effects{&noise, nullptr}).time, ns);
  }
}

// The window timing adds a rank's detours up in 32 bits until a total passes 2^32 ns, and in 64
// from then on: ten calcs of 0.9 s under a detour of 0.6 s every second come to more than 4.3 s of
// detours, each calc made ready less than 2^32 ns after the one before (the windows time it), and
// the totals are the engine's.
TEST(GoalWindows, DetoursPastFourSecondsAreAddedUpInFull) {
  const auto t = trace(loggp::periodic_noise(1, 600000000));
  std::string text = "num_ranks 2\nrank 0 {\n";
  for (int k = 1; k <= 10; ++k) text += "l" + std::to_string(k) + ": calc 900000000\n";
  for (int k = 2; k <= 10; ++k) text += "l" + std::to_string(k) + " requires l" + std::to_string(k - 1) + "\n";
  text += "l11: send 8b to 1 tag 0\nl11 requires l10\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n";
  const goal::Schedule s = goal::parse(text, "detours.goal");
  const loggp::Noise noise(NoiseSpec{t, false, 1, NoisePhases::ppsim}, s.ranks);
  const loggp::Effects fx{&noise, nullptr};
  EXPECT_TRUE(same_as_engine(s, LogGPParams{}, fx, "ten long calcs"));
  const std::optional<loggp::Result> w = goal::detail::WindowTiming(s, LogGPParams{}, fx).run();
  ASSERT_TRUE(w);
  EXPECT_GT(w->noise_per_host[0], uint64_t(1) << 32);
  EXPECT_EQ(w->noise_per_host, goal::simulate_events(s, LogGPParams{}, fx).noise_per_host);
  EXPECT_EQ(w->noise, w->noise_per_host[0] + w->noise_per_host[1]);
}
