// LogGP timing (--model loggp), GOAL export (`ppsim goal`) and import (`ppsim run --goal`):
//   - every schedule of tests/data/goal gives the per-rank times LogGOPSim printed for it, for every
//     parameter set recorded (tests/data/goal/README.md says how they were made);
//   - ppsim's algorithms with the same pattern give the same times;
//   - an algorithm's time equals the time of its exported schedule, for every registered algorithm;
//   - closed forms of LogGP for a message and a chain;
//   - schedules that cannot finish are reported with the rank and the label; bad files with the
//     file, the line and what was expected (a stray byte as \xHH); a leading byte-order mark is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "goal/goal.h"
#include "goal/goal_writer.h"
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

const std::string kGoalData = PPSIM_TEST_DATA "/goal/";

nlohmann::json oracle() {
  std::ifstream f(kGoalData + "loggopsim_times.json");
  return nlohmann::json::parse(f);
}

LogGPParams params_of(const nlohmann::json& j) {
  LogGPParams p;
  if (j.contains("L")) p.L = j["L"];
  if (j.contains("o")) p.o = j["o"];
  if (j.contains("g")) p.g = j["g"];
  if (j.contains("G")) p.G = j["G"];
  if (j.contains("O")) p.O = j["O"];
  if (j.contains("S")) p.S = j["S"];
  return p;
}

std::string params_text(const LogGPParams& p) {
  std::ostringstream s;
  s << "L=" << p.L << " o=" << p.o << " g=" << p.g << " G=" << p.G << " O=" << p.O << " S=" << p.S;
  return s.str();
}


RunConfig loggp_config(const std::string& algo, TopologyKind kind, int64_t p, int64_t m, const LogGPParams& g = {}) {
  RunConfig c = make_config(algo, kind, p, "", m);
  c.cost.model = CostModel::loggp;
  c.cost.loggp = g;
  return c;
}

}  // namespace

// Every recorded schedule and parameter set: LogGOPSim's per-rank times, to the nanosecond.
TEST(GoalOracle, EveryScheduleGivesLogGOPSimsTimes) {
  const nlohmann::json j = oracle();
  int timed = 0, stuck = 0;
  for (const auto& [key, v] : j.items()) {
    SCOPED_TRACE(key);
    const std::string file = v.contains("file") ? v["file"].get<std::string>() : key.substr(0, key.find(' '));
    const LogGPParams P = params_of(v.value("params", nlohmann::json::object()));
    if (v.value("does_not_finish", false) || v.value("crashed", false)) {
      // LogGOPSim loops or crashes on messages to ranks that do not exist; ppsim names the line.
      try {
        goal::read_file(kGoalData + file);
        ADD_FAILURE() << "read";
      } catch (const goal::ParseError& e) {
        EXPECT_NE(std::string(e.what()).find(": expected a rank below num_ranks"), std::string::npos) << e.what();
      }
      ++stuck;
      continue;
    }
    const goal::Schedule s = goal::read_file(kGoalData + file);
    if (v.contains("error")) {  // LogGOPSim ended with operations left in its queues
      EXPECT_THROW(goal::simulate(s, P), loggp::StuckError);
      ++stuck;
      continue;
    }
    if (v["max"].get<uint64_t>() >= loggp::kTimeLimit) {
      // A 0-byte message with o or g below G: LogGOPSim's unsigned (s-1)*G wraps to a time near
      // 2^64; ppsim refuses to report such a time.
      EXPECT_THROW(goal::simulate(s, P), loggp::StuckError);
      ++stuck;
      continue;
    }
    const loggp::Result r = goal::simulate(s, P);
    // LogGOPSim times a schedule whose operations do not all run (hw_rndv_mismatch under the
    // default S: a send is never completed); ppsim gives the same times and names what never ran.
    if (file == "hw_rndv_mismatch.goal" && P.S == 65535) {
      EXPECT_NE(r.unfinished, "");
    } else if (file != "hw_rndv_mismatch.goal") {
      EXPECT_EQ(r.unfinished, "");
    }
    EXPECT_EQ(r.time, v["max"].get<uint64_t>()) << params_text(P);
    EXPECT_EQ(r.last_host, v["max_host"].get<uint32_t>());
    if (v.contains("hosts")) {
      ASSERT_EQ(r.finish.size(), v["hosts"].size());
      for (size_t h = 0; h < r.finish.size(); ++h) EXPECT_EQ(r.finish[h], v["hosts"][h].get<uint64_t>()) << "rank " << h;
    }
    ++timed;
  }
  EXPECT_GE(timed, 11 * 4);  // the 11 schedules of ../shared/goal under several parameter sets, and more
  EXPECT_GE(stuck, 1);
}

// ppsim's algorithms whose pattern is the generator's: the same per-processor times, on the CPU
// backend and on the device rounds executed on the host, for every parameter set recorded.
TEST(LogGP, AlgorithmsWithTheGeneratorsPatternsGiveItsTimes) {
  struct Pair {
    const char* file;
    const char* algo;
    int64_t p, m;
  };
  const Pair pairs[] = {{"binomialtreebcast-p8-d8.goal", "broadcast_binomial_low_first", 8, 1},
                        {"binomialtreebcast-p13-d1024.goal", "broadcast_binomial_low_first", 13, 128},
                        {"dissemination-p16-d8.goal", "barrier_dissemination", 16, 1},
                        {"allreduce_recdoub-p16-d1024.goal", "allreduce_rabenseifner", 16, 128},
                        {"allreduce_recdoub-p16-d1024.goal", "allreduce_rs_ag", 16, 128}};
  const nlohmann::json j = oracle();
  int compared = 0;
  for (const Pair& pr : pairs) {
    for (const auto& [key, v] : j.items()) {
      if (key.rfind(std::string(pr.file) + " ", 0) != 0 || !v.contains("hosts")) continue;
      SCOPED_TRACE(key + " vs " + pr.algo);
      RunConfig c = loggp_config(pr.algo, TopologyKind::full, pr.p, pr.m, params_of(v.value("params", nlohmann::json::object())));
      RunResult cpu = run_simulation(c, Backend::cpu);
      ASSERT_TRUE(cpu.verified);
      RunResult dev = run_device_rounds_on_host(c);
      add_loggp_times(c, dev);
      ASSERT_TRUE(dev.verified);
      ASSERT_EQ(cpu.finish.size(), v["hosts"].size());
      for (size_t h = 0; h < cpu.finish.size(); ++h) EXPECT_EQ(cpu.finish[h], v["hosts"][h].get<uint64_t>()) << "processor " << h;
      EXPECT_EQ(cpu.finish, dev.finish);
      EXPECT_EQ(cpu.time, double(v["max"].get<uint64_t>()));
      EXPECT_EQ(cpu.time, dev.time);
      ++compared;
    }
  }
  EXPECT_GE(compared, 5 * 3);
}

// The round trip: an algorithm's LogGP times equal those of its exported GOAL schedule read back,
// for every registered algorithm, eager and rendezvous, with and without per-byte overhead.
TEST(LogGP, ExportThenImportGivesTheSameTimesForEveryAlgorithm) {
  const LogGPParams sets[] = {LogGPParams{}, LogGPParams{100, 30, 70, 2, 1, 16}, LogGPParams{0, 0, 0, 0, 0, 0}};
  int checked = 0;
  std::string missing;
  for (const AlgorithmInfo& a : algorithms()) {
    RunConfig c;
    if (!accepting_config(a, c)) {
      missing += std::string(" ") + a.name;
      continue;
    }
    std::ostringstream text;
    write_goal(c, text);
    const goal::Schedule s = goal::parse(text.str(), a.name);
    ASSERT_EQ(s.ranks, uint32_t(run_processors(c)));  // the switch agents after the processors
    for (const LogGPParams& P : sets) {
      SCOPED_TRACE(std::string(a.name) + " " + params_text(P));
      c.cost.loggp = P;
      const loggp::Result direct = loggp_run(c), imported = goal::simulate(s, P);
      EXPECT_EQ(direct.finish, imported.finish);
      EXPECT_EQ(direct.time, imported.time);
      if (P.o > 0) {
        EXPECT_GT(direct.time, 0u);
      }
      ++checked;
    }
  }
  EXPECT_EQ(missing, "") << "algorithms without a test configuration";
  EXPECT_EQ(checked, 3 * int(algorithms().size()));
}

// LogGP's closed forms. One message of s bytes (eager): the sender's CPU is busy o + (s-1)O; the
// receiver's from o + L, for o + max((s-1)O, (s-1)G). A chain (broadcast_chain, one segment): each
// hop adds 2o + L + (s-1) max(O, G), and a processor that forwards is busy o + (s-1)O more.
TEST(LogGP, ClosedFormsOfAMessageAndAChain) {
  for (const LogGPParams& P : {LogGPParams{}, LogGPParams{700, 90, 40, 3, 5, 65535}}) {
    for (int64_t m : {1, 16, 100}) {
      SCOPED_TRACE(params_text(P) + " m=" + std::to_string(m));
      const uint64_t s = uint64_t(m) * 8, recv = P.o + (s - 1) * std::max(P.O, P.G), send = P.o + (s - 1) * P.O;
      RunResult two = run_simulation(loggp_config("broadcast_binomial", TopologyKind::full, 2, m, P), Backend::cpu);
      ASSERT_TRUE(two.verified);
      EXPECT_EQ(two.finish, (std::vector<uint64_t>{send, P.o + P.L + recv}));
      for (int64_t p : {3, 5, 9}) {
        RunResult chain = run_simulation(loggp_config("broadcast_chain", TopologyKind::full, p, m, P), Backend::cpu);
        ASSERT_TRUE(chain.verified);
        std::vector<uint64_t> want(static_cast<size_t>(p));
        want[0] = send;
        uint64_t arrive = P.o + P.L;  // at processor 1
        for (int64_t i = 1; i < p; ++i) {
          want[size_t(i)] = arrive + recv + (i < p - 1 ? send : 0);
          arrive += recv + P.o + P.L;
        }
        EXPECT_EQ(chain.finish, want) << "p=" << p;
      }
    }
  }
}

TEST(GoalReader, ReadsEveryFormAndKeepsTheFilesOrder) {
  const char* text =
      "// a comment\n"
      "num_ranks 3 /* three */\n"
      "rank 1 {\n"
      "a: recv 8B from -1 tag -1 cpu 1 nic 1\n"
      "b: calc 100 cpu 1\n"
      "b irequires a\n"
      "send 0b to 2\n"
      "}\n"
      "rank 0 {\n"
      "x requires y\n"
      "y: send 8b to 1 tag 7\n"
      "x: calc 5\n"
      "}\n"
      "rank 2 {\n"
      "recv 0b from 1 tag 0\n"
      "}\n";
  const goal::Schedule s = goal::parse(text, "t.goal");
  ASSERT_EQ(s.ranks, 3u);
  EXPECT_EQ(s.cpus, 2);
  EXPECT_EQ(s.nics, 2);
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s.first, (std::vector<uint32_t>{0, 2, 5, 6}));  // rank 0's ops first, in the order written
  EXPECT_EQ(s.label(0), "y");
  EXPECT_EQ(s.op(0).tag, 7u);
  int waits_for_y = 0;  // x requires y
  for (uint32_t h = 0; h < s.ranks; ++h)
    for (uint32_t i = s.first[h]; i < s.first[h + 1]; ++i) s.done.each(s.first, h, i, [&](uint32_t j) { waits_for_y += j == 1; });
  EXPECT_EQ(waits_for_y, 1);
  EXPECT_EQ(s.op(2).peer, loggp::kAny);                               // from -1
  EXPECT_EQ(s.op(2).tag, loggp::kAny);                                // tag -1
  EXPECT_EQ(s.op(3).type, loggp::kCalc);                              // b
  EXPECT_EQ(s.op(4).size, 0u);
  EXPECT_EQ(goal::parse("num_ranks 1\nrank 0 {\ncalc 1099511627775\n}\n", "f").op(0).size, (uint64_t(1) << 40) - 1);
  EXPECT_EQ(s.edges(), 2u);
  const loggp::Result r = goal::simulate(s, LogGPParams{});
  EXPECT_EQ(r.finish.size(), 3u);
}

TEST(GoalReader, BadFilesNameTheLineAndWhatWasExpected) {
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"rank 0 {\n}\n", "f:1: expected num_ranks before the first rank block, found rank"},
      {"num_ranks 2\nrank 2 {\n}\n", "f:2: expected a rank below num_ranks (2), found 2"},
      {"num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n", "f:3: expected 'b' after the size, found 'to'"},
      {"num_ranks 2\nrank 0 {\nl1: send 8b from 1\n}\n", "f:3: expected 'to', found 'from'"},
      {"num_ranks 2\nrank 0 {\nl1: send 8b to 5\n}\n", "f:3: expected a rank below num_ranks (2), found 5"},
      {"num_ranks 2\nrank 0 {\nl1: recv 8b from 1 cpu 1 tag 3\n}\n",
       "f:3: expected the end of the line (or the fields tag, cpu, nic, in that order), found 'tag'"},
      {"num_ranks 2\nrank 0 {\nl1 requires l2\n}\n", "f:3: expected a label defined in rank 0, found 'l1'"},
      {"num_ranks 2\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n", "f:4: expected a label defined once in rank 0, found 'l1' again"},
      {"num_ranks 2\nrank 0 {\nl1: calc 1\n", "f:4: expected '}' closing rank 0, found the end of the file"},
      {"num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "f:4: expected each rank once, found rank 0 again"},
      {"num_ranks 99999999999\n", "f:1: expected a number of ranks from 1 to 67108864, found 99999999999"},
      {"num_ranks 2\n/* open\n", "f:2: expected '*/' closing the comment, found the end of the file"},
      {"num_ranks 2\nrank 0 {\nl1: jump 3\n}\n", "f:3: expected send, recv or calc, found 'jump'"},
      {"", "f:1: expected 'num_ranks N', found the end of the file"},
      {"num_ranks 3\nrank 0 {\n}\nrank 2 {\n}\n", "f:6: expected a block for every rank below num_ranks (3), found none for rank 1"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    try {
      goal::parse(b.text, "f");
      ADD_FAILURE() << "parsed";
    } catch (const goal::ParseError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, std::strlen(b.message)), b.message);
    }
  }
}

// A file that starts with UTF-8's byte-order mark reads as without it: the same schedule, the
// same times, the same lines in messages.
TEST(GoalReader, SkipsAByteOrderMark) {
  const std::string bom = "\xEF\xBB\xBF", file = kGoalData + "binomialtreebcast-p13-d1024.goal";
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  const std::string marked = std::filesystem::temp_directory_path() / ("ppsim_goal_bom_" + std::to_string(::getpid()) + ".goal");
  std::ofstream(marked) << bom << text.str();
  const LogGPParams P{};
  const loggp::Result plain = goal::simulate(goal::read_file(file), P);
  const loggp::Result with_mark = goal::simulate(goal::read_file(marked), P);
  std::filesystem::remove(marked);
  EXPECT_EQ(with_mark.finish, plain.finish);
  EXPECT_EQ(with_mark.time, plain.time);
  EXPECT_EQ(with_mark.events, plain.events);
  EXPECT_EQ(goal::simulate(goal::parse(bom + text.str(), "f"), P).finish, plain.finish);
  try {
    goal::parse(bom + "rank 0 {\n}\n", "f");
    ADD_FAILURE() << "parsed";
  } catch (const goal::ParseError& e) {
    EXPECT_STREQ(e.what(), "f:1: expected num_ranks before the first rank block, found rank");
  }
}

// A stray byte is quoted as \xHH: a message is one line of printable ASCII whatever the file holds
// (a non-ASCII byte, a control character, a byte-order mark that is not at the start).
TEST(GoalReader, QuotesStrayBytesAsHex) {
  const std::pair<std::string, std::string> strays[] = {
      {"\xC3\xA9", "\\xC3"}, {"\x01", "\\x01"}, {"\x7F", "\\x7F"}, {"\xEF\xBB\xBF", "\\xEF"}};
  for (const auto& [stray, hex] : strays) {
    SCOPED_TRACE(hex);
    try {
      goal::parse("num_ranks 2\nrank 0 {\nl1: send 8b to 1 " + stray + "\n}\nrank 1 {\n}\n", "f");
      ADD_FAILURE() << "parsed";
    } catch (const goal::ParseError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m, "f:3: expected the end of the line (or the fields tag, cpu, nic, in that order), found '" + hex + "'");
      EXPECT_TRUE(std::all_of(m.begin(), m.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) << m;
    }
  }
  // Through the command line: exit 2 and one line on stderr.
  const std::string bad = std::filesystem::temp_directory_path() / ("ppsim_goal_stray_" + std::to_string(::getpid()) + ".goal");
  std::ofstream(bad) << "num_ranks 1\nrank 0 {\nl\xC3\xA9: calc 5\n}\n";
  Shell run = testing_support::run_cli("run --goal " + bad);
  std::filesystem::remove(bad);
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "ppsim: error: " + bad + ":3: expected ':', 'requires' or 'irequires' after the label, found '\\xC3'\n");
}

TEST(GoalEngine, ASchedulThatCannotFinishNamesTheRankAndTheLabel) {
  auto stuck = [](const char* text) -> std::string {
    try {
      const loggp::Result r = goal::simulate(goal::parse(text, "f"), LogGPParams{});
      return r.unfinished.empty() ? "finished" : r.unfinished;
    } catch (const loggp::StuckError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(stuck("num_ranks 2\nrank 0 {\n}\nrank 1 {\nr: recv 8b from 0 tag 3\n}\n"),
            "rank 1: receive r (line 5) from rank 0 (tag 3) is never matched by a send");
  EXPECT_EQ(stuck("num_ranks 2\nrank 0 {\ns: send 8b to 1 tag 2\n}\nrank 1 {\n}\n"),
            "rank 0: send s (line 3) to rank 1 (tag 2) is never received");
  EXPECT_EQ(
      stuck("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb requires a\n}\n"),
      "rank 0: operation a (line 3) never runs: it requires b (line 4), which never finishes (a dependency cycle, or a send that is never completed)");
  // A rendezvous send is done only when its receive matches: two ranks that both send a large
  // message before receiving wait for each other (an eager message would not).
  const char* exchange =
      "num_ranks 2\nrank 0 {\ns: send 100000b to 1\nr: recv 100000b from 1\nr requires s\n}\n"
      "rank 1 {\ns: send 100000b to 0\nr: recv 100000b from 0\nr requires s\n}\n";
  EXPECT_EQ(stuck(exchange), "rank 1: send s (line 8) to rank 0 (tag 0) is never received");
  const goal::Schedule eager = goal::parse(exchange, "f");
  EXPECT_EQ(goal::simulate(eager, LogGPParams{2500, 1500, 1000, 6, 0, 100000}).unfinished, "");
}

TEST(GoalCli, ImportExportAndErrors) {
  const std::string dir = std::filesystem::temp_directory_path() / ("ppsim_goal_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Export, then import: the times of the run and of the file agree.
  Shell ex = testing_support::run_cli("goal --topology full --p 9 --op broadcast --algo broadcast_binomial --m 100 --out " + dir + "/b.goal");
  ASSERT_EQ(ex.code, 0) << ex.err;
  Shell im = testing_support::run_cli("run --goal " + dir + "/b.goal --S 512 --json -");
  ASSERT_EQ(im.code, 0) << im.err;
  Shell direct = testing_support::run_cli("run --topology full --p 9 --op broadcast --algo broadcast_binomial --m 100 --model loggp --S 512 --json -");
  ASSERT_EQ(direct.code, 0) << direct.err;
  const auto a = nlohmann::json::parse(im.out), b = nlohmann::json::parse(direct.out);
  EXPECT_EQ(a["finish"], b["loggp"]["finish"]);
  EXPECT_EQ(a["time"].get<double>(), b["time"].get<double>());
  EXPECT_EQ(b["config"]["model"], "loggp");
  // A bad file: exit 2, one line naming file and line, no JSON written.
  std::ofstream(dir + "/bad.goal") << "num_ranks 2\nrank 0 {\nl1: send 8b too 1\n}\n";
  Shell bad = testing_support::run_cli("run --goal " + dir + "/bad.goal --json " + dir + "/out.json");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "ppsim: error: " + dir + "/bad.goal:3: expected 'to', found 'too'\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json"));
  // A schedule that cannot finish: exit 1, the rank and the label.
  std::ofstream(dir + "/stuck.goal") << "num_ranks 2\nrank 0 {\n}\nrank 1 {\nwait: recv 8b from 0\n}\n";
  Shell st = testing_support::run_cli("run --goal " + dir + "/stuck.goal");
  EXPECT_EQ(st.code, 1);
  EXPECT_NE(st.err.find("rank 1: receive wait (line 5)"), std::string::npos) << st.err;
  // Options the file decides are refused, and so are the linear model's under loggp.
  EXPECT_EQ(testing_support::run_cli("run --goal " + dir + "/b.goal --p 4").code, 2);
  Shell mixed = testing_support::run_cli("run --topology full --p 4 --model loggp --ts 3");
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("apply to --model linear"), std::string::npos);
  EXPECT_EQ(testing_support::run_cli("run --topology full --p 4 --L 3").code, 2);
  EXPECT_EQ(testing_support::run_cli("goal --topology full --p 4").code, 2);  // no --out
  std::filesystem::remove_all(dir);
}
