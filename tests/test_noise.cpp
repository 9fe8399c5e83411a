// OS noise in the LogGP model (noise.h): the trace reader and generators, the detour rule against a
// plain restatement of it, LogGOPSim's times with seeded phases (tests/data/goal/noise), and the
// lockstep timing against the event engine with noise on.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "goal/goal.h"
#include "loggp/loggp_run.h"
#include "loggp/noise.h"
#include "loggp_configs.h"
#include "ppsim/run.h"
#include "cli_shell.h"
#include "test_helpers.h"

using namespace ppsim;
using ppsim::testing_support::Shell;
using ppsim::testing_support::accepting_config;
using ppsim::testing_support::make_config;

namespace {

const std::string kNoiseData = PPSIM_TEST_DATA "/goal/noise/";
const std::string kGoalData = PPSIM_TEST_DATA "/goal/";

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::filesystem::temp_directory_path() / ("ppsim_noise_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string error_of(const std::string& text, bool loggopsim = false) {
  const std::string path = write_temp("bad.trace", text);
  try {
    loggp::read_noise_trace(path, loggopsim);
  } catch (const NoiseError& e) {
    std::filesystem::remove(path);
    return e.what();
  }
  std::filesystem::remove(path);
  return "";
}

std::shared_ptr<const NoiseTrace> shared(NoiseTrace t) { return std::make_shared<const NoiseTrace>(std::move(t)); }

// The detour rule of noise.h restated over the trace repeated period after period (the entry at
// the period standing for the next period's first): the part of the last entry that starts at or
// before x (when x is past the first entry's start) still running at x, plus every entry that
// starts after x and before x + len.
uint64_t detour_by_definition(const NoiseTrace& t, uint64_t phase, uint64_t start, uint64_t len) {
  const uint64_t T = t.period();
  const uint64_t x = (start + phase) % (T - len), end = x + len;
  struct Entry {
    uint64_t at, len;
  };
  std::vector<Entry> all;
  for (size_t i = 0; i < t.start.size(); ++i) all.push_back({t.start[i], t.length[i]});
  for (uint64_t k = 1; k * T < end + T; ++k)
    for (size_t i = 1; i < t.start.size(); ++i) all.push_back({t.start[i] + k * T, t.length[i]});
  uint64_t noise = 0;
  if (x > t.start[0]) {
    const Entry* last = nullptr;
    for (const Entry& e : all)
      if (e.at <= x) last = &e;
    if (last->at + last->len > x) noise += last->at + last->len - x;
  }
  // Entries after x: each copy counted once in the order of the walk (the first period's entries
  // from the one after x, then the later periods' from entry 1).
  size_t first_after = 0;
  while (first_after < t.start.size() && t.start[first_after] <= x) ++first_after;
  if (x <= t.start[0]) first_after = 1;  // (the walk starts at entry 0 and looks at entry 1 first)
  for (size_t i = first_after; i < t.start.size(); ++i)
    if (t.start[i] < end) noise += t.length[i];
  for (uint64_t k = 1; k * T < end; ++k)
    for (size_t i = 1; i < t.start.size(); ++i)
      if (t.start[i] + k * T < end) noise += t.length[i];
  return noise;
}

nlohmann::json oracle() {
  std::ifstream f(kNoiseData + "loggopsim_noise_times.json");
  return nlohmann::json::parse(f);
}

LogGPParams params_of(const nlohmann::json& j) {
  LogGPParams p;
  p.L = j.at("L");
  p.o = j.at("o");
  p.g = j.at("g");
  p.G = j.at("G");
  p.O = j.at("O");
  p.S = j.at("S");
  return p;
}

}  // namespace

TEST(NoiseTrace, ReadsLogGOPSimsFormat) {
  const std::string path = write_temp("ok.trace", "# a comment\n0\t100\n\n250.4\t20.6\r\n  # indented comment\n1000 5\n");
  const NoiseTrace t = loggp::read_noise_trace(path, false);
  EXPECT_EQ(t.start, (std::vector<uint64_t>{0, 250, 1000}));
  EXPECT_EQ(t.length, (std::vector<uint64_t>{100, 21, 5}));
  EXPECT_EQ(t.period(), 1000u);
  // LogGOPSim's reader reads a blank line, and a comment that does not start its line, as the entry
  // before it again, and reads once more at the end of a file that ends with a newline; a file that
  // ends with a data line without one gives no extra entry (tests/data/goal/noise/README.md).
  const NoiseTrace l = loggp::read_noise_trace(path, true);
  EXPECT_EQ(l.start, (std::vector<uint64_t>{0, 0, 250, 250, 1000, 1000}));
  EXPECT_EQ(l.length, (std::vector<uint64_t>{100, 100, 21, 21, 5, 5}));
  const std::string bare = write_temp("bare.trace", "0\t100\n1000\t5");
  EXPECT_EQ(loggp::read_noise_trace(bare, true).start.size(), 2u);
  std::filesystem::remove(path);
  std::filesystem::remove(bare);
}

TEST(NoiseTrace, BadFilesNameTheLine) {
  EXPECT_NE(error_of("0\t10\nabc\n").find("line 2: expected `start<TAB>duration`"), std::string::npos) << error_of("0\t10\nabc\n");
  EXPECT_NE(error_of("0\t10\n5\n").find("line 2"), std::string::npos);
  EXPECT_NE(error_of("0\t10\n5\t3 x\n").find("unexpected text"), std::string::npos);
  EXPECT_NE(error_of("0\t10\n-5\t3\n").find("from 0 to 2^62"), std::string::npos);
  EXPECT_NE(error_of("0\t10\n500\t3\n400\t1\n").find("line 3: starts must not decrease"), std::string::npos);
  EXPECT_NE(error_of("# nothing\n").find("at least 2 detours"), std::string::npos);
  EXPECT_NE(error_of("0\t10\n0\t10\n").find("no length"), std::string::npos);
  EXPECT_NE(error_of("0\tnan\n10\t1\n").find("from 0 to 2^62"), std::string::npos);
  try {
    loggp::read_noise_trace("/nonexistent/ppsim.trace", false);
    ADD_FAILURE() << "read";
  } catch (const NoiseError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be read"), std::string::npos);
  }
}

TEST(NoiseTrace, GeneratedTraces) {
  const NoiseTrace p = loggp::periodic_noise(1000, 25000);
  ASSERT_EQ(p.start.size(), 1001u);  // 1 s of 1 ms periods, and the entry that starts the next one
  for (size_t i = 0; i < p.start.size(); ++i) {
    EXPECT_EQ(p.start[i], i * 1000000u);
    EXPECT_EQ(p.length[i], 25000u);
  }
  EXPECT_DOUBLE_EQ(p.fraction(), 0.025);
  EXPECT_THROW(loggp::periodic_noise(1000, 1000000), NoiseError);  // a detour as long as its period
  EXPECT_THROW(loggp::periodic_noise(0, 1), NoiseError);
  EXPECT_THROW(loggp::periodic_noise(1e-9, 0), NoiseError);  // 64 periods would pass 2^62 ns
  EXPECT_THROW(loggp::random_noise(1e-9, 5, 1), NoiseError);
  const NoiseTrace r = loggp::random_noise(10000, 500, 7);
  ASSERT_GE(r.start.size(), 10000u);
  for (size_t i = 1; i < r.start.size(); ++i) ASSERT_GT(r.start[i], r.start[i - 1]);
  EXPECT_EQ(r.length.back(), r.length.front());
  // The mean gap and the mean detour are the asked ones within a few standard errors (10^4 draws).
  const double gaps = double(r.period()) / double(r.start.size() - 1);
  EXPECT_NEAR(gaps, 1e5, 4e3);
  double sum = 0;
  for (size_t i = 0; i + 1 < r.length.size(); ++i) sum += double(r.length[i]);
  EXPECT_NEAR(sum / double(r.length.size() - 1), 500, 20);
  EXPECT_EQ(loggp::random_noise(10000, 500, 7).start, r.start);  // the seed makes the trace
  EXPECT_NE(loggp::random_noise(10000, 500, 8).start, r.start);
}

// The detour of every operation equals the rule restated over the repeated trace, for phases and
// windows that cross entries, the first entry and the trace's end.
TEST(NoiseDetour, FollowsTheRuleOnEveryWindow) {
  NoiseTrace t;
  t.start = {0, 100, 230, 231, 500, 900};
  t.length = {10, 50, 5, 300, 0, 10};
  NoiseTrace offset = t;  // a first entry after 0: LogGOPSim never counts it (noise.h)
  offset.start[0] = 40;
  std::mt19937_64 draw(11);
  for (const NoiseTrace* trace : {&t, &offset}) {
    const auto sh = std::make_shared<const NoiseTrace>(*trace);
    for (bool cosched : {false, true})
      for (uint64_t seed : {1u, 2u, 3u}) {
        NoiseSpec spec{sh, cosched, seed, NoisePhases::ppsim};
        const loggp::Noise noise(spec, 4);
        for (int k = 0; k < 3000; ++k) {
          const uint32_t h = uint32_t(draw() % 4);
          const uint64_t start = draw() % 5000, len = draw() % 890;
          ASSERT_EQ(noise.detour(h, start, len), detour_by_definition(*trace, noise.phase(h), start, len))
              << "host " << h << " start " << start << " len " << len << " phase " << noise.phase(h);
        }
      }
  }
  // Longer traces, where a lookup searches only its time's bucket (noise.h): about one entry a
  // bucket (a random trace of about 2,000 detours), and clusters between long empty stretches.
  NoiseTrace clusters;
  clusters.start = {0, 5, 6, 7, 1000000, 1000001, 1000001, 3999999, 4000000};
  clusters.length = {3, 2, 900000, 1, 7, 2000000, 1, 1, 3};
  for (const NoiseTrace& trace : {loggp::random_noise(2000, 20000, 5), clusters}) {
    const auto sh = std::make_shared<const NoiseTrace>(trace);
    const loggp::Noise noise(NoiseSpec{sh, false, 9, NoisePhases::ppsim}, 3);
    const uint64_t T = trace.period();
    for (int k = 0; k < 1500; ++k) {
      const uint32_t h = uint32_t(draw() % 3);
      const uint64_t start = draw() % (3 * T), len = draw() % (k % 2 ? T / 2 : T / 1000 + 1);
      ASSERT_EQ(noise.detour(h, start, len), detour_by_definition(trace, noise.phase(h), start, len))
          << trace.source << " host " << h << " start " << start << " len " << len;
    }
  }
  // Operations a few buckets long (noise.h: a lookup that starts and ends in quiet buckets gives 0
  // at once) on traces of long periods: each starting at random, or just before, at, inside or
  // just after an entry; a first entry after 0, entries of length 0, and one that runs past the
  // period.
  NoiseTrace sparse;
  sparse.start = {3000, 5000000, 5000000, 9000000, 9999000, 12000000};
  sparse.length = {7000, 0, 2500, 1, 9000, 20};
  for (const NoiseTrace& trace : {loggp::periodic_noise(1000, 25000), loggp::random_noise(500, 3000, 2), sparse}) {
    const auto sh = std::make_shared<const NoiseTrace>(trace);
    const loggp::Noise noise(NoiseSpec{sh, false, 4, NoisePhases::ppsim}, 5);
    const uint64_t T = trace.period();
    for (int k = 0; k < 20000; ++k) {
      const uint32_t h = uint32_t(draw() % 5);
      const uint64_t len = draw() % 5000, near = trace.start[draw() % trace.start.size()] + draw() % 64 - 32;
      const uint64_t at = k % 2 ? draw() % T : (near + T - noise.phase(h) % T) % T;  // (at `near` in the trace, where len is short)
      const uint64_t start = at + (draw() % 3) * (T - len);
      ASSERT_EQ(noise.detour(h, start, len), detour_by_definition(trace, noise.phase(h), start, len))
          << trace.source << " host " << h << " start " << start << " len " << len;
    }
  }
  // A hand-worked case: phase 0 (co-scheduled, the entry at 0 means nothing), an operation of 20
  // at 95 meets entry 1 (at 100, 50 long) whole: 50; at 120 it meets its last 30.
  NoiseTrace h;
  h.start = {0, 100, 300};
  h.length = {0, 50, 0};
  const loggp::Noise n(NoiseSpec{shared(h), true, 1, NoisePhases::ppsim}, 1);
  const uint64_t ph = n.phase(0);
  EXPECT_EQ(n.detour(0, (95 + 280 - ph % 280) % 280, 20), 50u);
  EXPECT_EQ(n.detour(0, (120 + 280 - ph % 280) % 280, 20), 30u);
  EXPECT_THROW(n.detour(0, 0, 300), NoiseError);  // an operation as long as the trace
}

TEST(NoisePhases, SeededAndLogGOPSims) {
  const auto t = shared(loggp::periodic_noise(1000, 100));
  const loggp::Noise a(NoiseSpec{t, false, 5, NoisePhases::ppsim}, 1000), b(NoiseSpec{t, false, 5, NoisePhases::ppsim}, 10);
  for (uint32_t h = 0; h < 10; ++h) EXPECT_EQ(a.phase(h), b.phase(h));  // a processor's phase needs no other's
  std::set<uint64_t> distinct;
  for (uint32_t h = 0; h < 1000; ++h) {
    EXPECT_LT(a.phase(h), t->period());
    distinct.insert(a.phase(h));
  }
  EXPECT_GT(distinct.size(), 990u);
  const loggp::Noise c(NoiseSpec{t, true, 5, NoisePhases::ppsim}, 1000);
  for (uint32_t h = 1; h < 1000; ++h) EXPECT_EQ(c.phase(h), c.phase(0));
  // LogGOPSim's: std::mt19937 from the seed, the co-scheduled phase drawn first, then one per rank.
  std::mt19937 mt(42);
  const double T = double(t->period());
  const uint64_t first = uint64_t(double(mt()) / 4294967295.0 * T);
  const loggp::Noise li(NoiseSpec{t, false, 42, NoisePhases::loggopsim}, 3), lc(NoiseSpec{t, true, 42, NoisePhases::loggopsim}, 3);
  for (uint32_t h = 0; h < 3; ++h) {
    EXPECT_EQ(li.phase(h), uint64_t(double(mt()) / 4294967295.0 * T));
    EXPECT_EQ(lc.phase(h), first);
  }
  // Phases are kept in 32 bits where the period is below 2^32 ns, else in 64: a trace of 2^33 ns
  // (a detour every 16 s or so) gives LogGOPSim's phases past 2^32 whole.
  const auto longer = shared(loggp::periodic_noise(1.0 / 16, 1000));
  ASSERT_GT(longer->period(), uint64_t(1) << 32);
  std::mt19937 draws(42);
  const double L = double(longer->period());
  draws();  // (the co-scheduled phase)
  const loggp::Noise ll(NoiseSpec{longer, false, 42, NoisePhases::loggopsim}, 50);
  int past = 0;
  for (uint32_t h = 0; h < 50; ++h) {
    const uint64_t want = uint64_t(double(draws()) / 4294967295.0 * L);
    EXPECT_EQ(ll.phase(h), want) << h;
    past += want >> 32 != 0;
  }
  EXPECT_GT(past, 25);
}

// LogGOPSim seeded (tests/data/goal/noise/README.md): every host's time, the noise it injected into
// each rank, and the time without noise.
TEST(NoiseOracle, LogGOPSimWithASeedGivesTheSameTimes) {
  const nlohmann::json j = oracle();
  int checked = 0;
  for (const auto& [key, v] : j.items()) {
    SCOPED_TRACE(key);
    const goal::Schedule s = goal::read_file(kGoalData + v.at("file").get<std::string>());
    const LogGPParams P = params_of(v.at("params"));
    const auto trace = shared(loggp::read_noise_trace(kNoiseData + v.at("trace").get<std::string>(), true));
    EXPECT_EQ(trace->start.size(), v.at("noise_events_read").get<size_t>());  // LogGOPSim's reader's entries
    const NoiseSpec spec{trace, v.at("cosched").get<bool>(), v.at("seed").get<uint64_t>(), NoisePhases::loggopsim};
    const loggp::Noise noise(spec, s.ranks);
    for (uint32_t h = 0; h < s.ranks; ++h) EXPECT_EQ(noise.phase(h), v.at("phases")[h].get<uint64_t>()) << "rank " << h;
    const loggp::Result r = goal::simulate(s, P, loggp::Effects{&noise, nullptr});
    EXPECT_EQ(r.time, v.at("max").get<uint64_t>());
    EXPECT_EQ(r.last_host, v.at("max_host").get<uint32_t>());
    ASSERT_EQ(r.finish.size(), v.at("hosts").size());
    for (size_t h = 0; h < r.finish.size(); ++h) EXPECT_EQ(r.finish[h], v.at("hosts")[h].get<uint64_t>()) << "rank " << h;
    ASSERT_EQ(r.noise_per_host.size(), v.at("noise_per_rank").size());
    for (size_t h = 0; h < r.finish.size(); ++h) EXPECT_EQ(r.noise_per_host[h], v.at("noise_per_rank")[h].get<uint64_t>()) << "rank " << h;
    EXPECT_EQ(goal::simulate(s, P).time, v.at("noiseless_max").get<uint64_t>());
    ++checked;
  }
  EXPECT_GE(checked, 3 * 2 * 2);  // schedules x traces x independent and co-scheduled
}

// With noise the lockstep timing and the event engine still agree on every processor, for every
// algorithm (the detour is a function of the processor, the time and the length alone).
TEST(NoiseLockstep, EqualsTheEventEngineForEveryAlgorithm) {
  const auto dense = shared(loggp::periodic_noise(200000, 700));       // a 5 us period: most operations meet one
  const auto sparse = shared(loggp::random_noise(20000, 3000, 3));     // a 50 us mean gap
  int lockstep = 0, checked = 0;
  for (const AlgorithmInfo& a : algorithms()) {
    RunConfig c;
    if (!accepting_config(a, c, true)) continue;
    c.cost.model = CostModel::loggp;
    for (const auto& trace : {dense, sparse})
      for (bool cosched : {false, true}) {
        SCOPED_TRACE(std::string(a.name) + (cosched ? " cosched" : " independent"));
        c.noise = std::make_shared<const NoiseSpec>(NoiseSpec{trace, cosched, 9, NoisePhases::ppsim});
        bool rounds = false;
        loggp::Result quick, events;
        try {
          quick = loggp_run(c, false, &rounds);
          events = loggp_run(c, true);
        } catch (const loggp::StuckError& e) {
          continue;  // (algorithms the LogGP timing refuses without noise too: test_loggp)
        }
        EXPECT_EQ(quick.finish, events.finish);
        EXPECT_EQ(quick.noise_per_host, events.noise_per_host);
        EXPECT_EQ(quick.noise, events.noise);
        EXPECT_EQ(quick.events, events.events);
        lockstep += rounds;
        ++checked;
      }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(lockstep, checked / 2);
}

// The command line: a GOAL schedule with LogGOPSim's phases gives the oracle's time; an algorithm's
// report holds the noiseless time, the detours and the spread; bad input is one line and exit 2.
TEST(NoiseCli, ReportsAndErrors) {
  const nlohmann::json j = oracle();
  const std::string key = "allreduce_recdoub-p16-d1024.goal random.trace indep seed=42 default";
  ASSERT_TRUE(j.contains(key));
  const auto& v = j[key];
  // (on one thread when asked, and on two: there the noiseless time is timed beside the noisy one;
  // on one thread unasked it is not timed, as LogGOPSim does not time it)
  for (const char* threads : {"1 --noise-slowdown", "2", "1"}) {
    Shell g = testing_support::run_cli("run --goal " + kGoalData + "allreduce_recdoub-p16-d1024.goal --noise-trace " + kNoiseData +
                                       "random.trace --noise-phases loggopsim --seed 42 --threads " + threads + " --json -");
    ASSERT_EQ(g.code, 0) << g.err;
    const auto gj = nlohmann::json::parse(g.out);
    EXPECT_EQ(gj["time"], v["max"]) << threads;
    if (std::string(threads) == "1") {
      EXPECT_TRUE(gj["noise_outcome"]["noiseless_time"].is_null());
      EXPECT_TRUE(gj["noise_outcome"]["slowdown"].is_null());
    } else {
      EXPECT_EQ(gj["noise_outcome"]["noiseless_time"], v["noiseless_max"]) << threads;
      EXPECT_EQ(gj["noise_outcome"]["slowdown"].get<double>(), v["max"].get<double>() / v["noiseless_max"].get<double>()) << threads;
    }
    uint64_t injected = 0;
    for (const auto& n : v["noise_per_rank"]) injected += n.get<uint64_t>();
    EXPECT_EQ(gj["noise_outcome"]["injected_ns"], injected) << threads;
  }
  Shell said = testing_support::run_cli("run --goal " + kGoalData + "allreduce_recdoub-p16-d1024.goal --noise-trace " + kNoiseData +
                                        "random.trace --threads 1");
  ASSERT_EQ(said.code, 0) << said.err;
  EXPECT_NE(said.out.find("noiseless time not timed (one thread: --noise-slowdown times it)"), std::string::npos) << said.out;

  Shell a = testing_support::run_cli("run --topology full --p 64 --op allreduce --algo allreduce_hypercube --model loggp --noise periodic:1000:25000 --json -");
  ASSERT_EQ(a.code, 0) << a.err;
  const auto aj = nlohmann::json::parse(a.out);
  const auto& noise = aj["loggp"]["noise"];
  EXPECT_GE(aj["time"].get<double>(), noise["noiseless_time"].get<double>());
  EXPECT_EQ(noise["injected_per_processor"].size(), 64u);
  uint64_t sum = 0;
  for (const auto& n : noise["injected_per_processor"]) sum += n.get<uint64_t>();
  EXPECT_EQ(noise["injected_ns"].get<uint64_t>(), sum);
  const auto finish = aj["loggp"]["finish"].get<std::vector<uint64_t>>();
  EXPECT_EQ(aj["loggp"]["finish_spread"].get<uint64_t>(), *std::max_element(finish.begin(), finish.end()) -
                                                              *std::min_element(finish.begin(), finish.end()));
  EXPECT_EQ(aj["config"]["noise"]["source"], "periodic 1000 Hz x 25000 ns");
  // An algorithm on one thread: its noiseless time where asked for is the run's without noise; not
  // asked for, it is given only where the noisy timing's pass gave it (the same time), else null.
  const std::string algo = "run --topology full --p 4096 --op barrier --algo barrier_dissemination --model loggp --threads 1 --json - ";
  Shell quiet = testing_support::run_cli(algo);
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  const auto quiet_time = nlohmann::json::parse(quiet.out)["time"];
  int given = 0;
  for (const char* phases : {"", "--noise-cosched"}) {
    const std::string noisy = algo + "--noise periodic:1000:25000 --noise-phases loggopsim " + phases;
    Shell asked = testing_support::run_cli(noisy + " --noise-slowdown"), unasked = testing_support::run_cli(noisy);
    ASSERT_EQ(asked.code, 0) << asked.err;
    ASSERT_EQ(unasked.code, 0) << unasked.err;
    const auto aj1 = nlohmann::json::parse(asked.out), uj1 = nlohmann::json::parse(unasked.out);
    EXPECT_EQ(aj1["loggp"]["noise"]["noiseless_time"].get<double>(), quiet_time.get<double>()) << phases;
    EXPECT_EQ(uj1["time"], aj1["time"]) << phases;
    const auto& u = uj1["loggp"]["noise"]["noiseless_time"];
    if (!u.is_null()) {
      ++given;
      EXPECT_EQ(u.get<double>(), quiet_time.get<double>()) << phases;
    }
  }
  EXPECT_LT(given, 2);  // (independent phases at 4096 are timed in windows, which give only the noisy time)

  const std::string bad = write_temp("cli_bad.trace", "0\t10\n5\n");
  const std::string brief = write_temp("cli_brief.trace", "0\t1\n10\t1\n");  // a period of 10 ns, shorter than o
  struct Bad {
    std::string args, says;
  };
  const std::string run = "run --topology full --p 8 --op allreduce --model loggp ";
  for (const Bad& b : {Bad{run + "--noise-trace /nonexistent/x.trace", "cannot be read"}, Bad{run + "--noise-trace " + bad, "line 2"},
                       Bad{run + "--noise periodic:1000", "is not periodic:HZ:NS"}, Bad{run + "--noise periodic:1000:2000000", "does not fit"},
                       Bad{run + "--noise-cosched", "need --noise-trace or --noise"}, Bad{run + "--noise random:0:5", "rate must be from 1e-6"},
                       Bad{run + "--noise-trace /tmp", "is a directory"},
                       // (co-scheduled on 2 threads: the noisy timing beside the noiseless one, its error kept)
                       Bad{run + "--noise-trace " + brief + " --threads 1", "not shorter than the noise trace's period"},
                       Bad{run + "--noise-trace " + brief + " --noise-cosched --threads 2", "not shorter than the noise trace's period"},
                       Bad{run + "--noise periodic:1000:5 --noise-phases x", "is not ppsim or loggopsim"},
                       Bad{"run --topology full --p 8 --op allreduce --noise periodic:1000:5", "applies to --model loggp"},
                       Bad{"run --goal " + kGoalData + "hw_calc_cpu.goal --noise-trace " + bad, "line 2"}}) {
    EXPECT_TRUE(testing_support::refused(b.args, b.says));
  }
  std::filesystem::remove(bad);
  std::filesystem::remove(brief);
}
