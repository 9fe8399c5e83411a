// Timelines (--timeline, report/timeline.h): the Chrome trace-event format's rules (strict JSON, the
// fields each event needs, slices well nested on each track, flows and async slices paired), and
// what the slices must say: a processor's last CPU slice ends at its LogGP finishing time, the
// step model's slices end at the run's time, every message between kept processors is an arrow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "goal/goal.h"
#include "ppsim/run.h"
#include "report/timeline.h"
#include "cli_shell.h"
#include "test_helpers.h"

using namespace ppsim;
using ppsim::testing_support::Shell;
using nlohmann::json;
using ppsim::testing_support::make_config;

namespace {

// The format's rules; returns "" or what is wrong.
std::string format_errors(const json& doc) {
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) return "no traceEvents array";
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  std::map<uint64_t, int> flows, asyncs;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    if (!e.contains("name") || !e["name"].is_string()) return "an event without a name: " + e.dump();
    if (!e.contains("pid") || !e["pid"].is_number_integer()) return "an event without a pid: " + e.dump();
    if (ph == "M") {
      if (!e.contains("args") || !e["args"].is_object()) return "metadata without args: " + e.dump();
      continue;
    }
    if (!e.contains("ts") || !e["ts"].is_number()) return "an event without ts: " + e.dump();
    if (ph == "X") {
      if (!e.contains("tid") || !e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) return "a bad slice: " + e.dump();
      // (in whole ns: a viewer reads the microseconds back so, and their sums may be an ulp over)
      const int64_t start = std::llround(e["ts"].get<double>() * 1000), dur = std::llround(e["dur"].get<double>() * 1000);
      tracks[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}].push_back({start, start + dur});
    } else if (ph == "s" || ph == "f") {
      if (!e.contains("id") || !e.contains("tid")) return "a flow without id or tid: " + e.dump();
      if (ph == "f" && e.value("bp", "") != "e") return "a flow end not bound to its enclosing slice: " + e.dump();
      flows[e["id"].get<uint64_t>()] += ph == "s" ? 1 : 100;
    } else if (ph == "b" || ph == "e") {
      if (!e.contains("id") || !e.contains("cat")) return "an async event without id or cat: " + e.dump();
      asyncs[e["id"].get<uint64_t>()] += ph == "b" ? 1 : 100;
    } else {
      return "an event of phase '" + ph + "'";
    }
  }
  for (const auto& [id, n] : flows)
    if (n != 101) return "flow " + std::to_string(id) + " is not one start and one end";
  for (const auto& [id, n] : asyncs)
    if (n != 101) return "async slice " + std::to_string(id) + " is not one begin and one end";
  // Well nested: by start, longer first; each slice inside the innermost open one or after it.
  for (auto& [key, slices] : tracks) {
    std::sort(slices.begin(), slices.end(), [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<int64_t> open;
    for (const auto& [start, end] : slices) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      if (!open.empty() && end > open.back())
        return "slices overlap on processor " + std::to_string(key.first) + " track " + std::to_string(key.second);
      open.push_back(end);
    }
  }
  return "";
}

// The latest end of processor i's slices on its CPU track (tid 0), in ns.
double cpu_end(const json& doc, int64_t i) {
  double end = 0;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == i && e["tid"] == 0) end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
  return end * 1000.0;
}

int count(const json& doc, const std::string& ph) {
  int n = 0;
  for (const json& e : doc["traceEvents"]) n += e["ph"] == ph;
  return n;
}


}  // namespace

// LogGP with noise: every processor kept, its CPU's last slice ends at its finishing time, one arrow
// and one wire (L) per message, noise slices as long as the detours the report counts.
TEST(Timeline, LogGPSlicesEndAtTheFinishingTimes) {
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::full, 16, "", 4);
  c.cost.model = CostModel::loggp;
  NoiseTrace periodic;  // a 700 ns detour every 5 us
  for (uint64_t k = 0; k <= 400; ++k) {
    periodic.start.push_back(k * 5000);
    periodic.length.push_back(700);
  }
  c.noise = std::make_shared<const NoiseSpec>(NoiseSpec{std::make_shared<const NoiseTrace>(periodic), false, 5, NoisePhases::ppsim});
  const RunResult r = run_simulation(c, Backend::cpu);
  ASSERT_TRUE(r.verified);
  const Timeline t = run_timeline(c, r, kTimelineProcessors);
  const json doc = timeline_json(t);
  const json strict = json::parse(doc.dump());  // what the file holds reads back
  EXPECT_EQ(format_errors(strict), "");
  EXPECT_EQ(strict["otherData"]["processors_kept"].size(), 16u);
  for (int64_t i = 0; i < 16; ++i) EXPECT_DOUBLE_EQ(cpu_end(strict, i), double(r.finish[size_t(i)])) << "processor " << i;
  EXPECT_EQ(count(strict, "s"), int(r.messages));
  EXPECT_EQ(count(strict, "b"), int(r.messages));
  double noise = 0;
  for (const json& e : strict["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "noise") noise += e["dur"].get<double>() * 1000.0;
  EXPECT_NEAR(noise, double(r.noise_total), 1e-6 * double(r.noise_total));
  EXPECT_GT(noise, 0);
}

// The step model: a slice per send and per receive of every step, the last ending at the run's time,
// an arrow per message.
TEST(Timeline, StepModelSlicesCoverTheSteps) {
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 8, "", 3);
  c.cost.ts = 2;
  c.cost.tw = 0.5;
  const RunResult r = run_simulation(c, Backend::cpu);
  ASSERT_TRUE(r.verified);
  const json doc = json::parse(timeline_json(run_timeline(c, r, kTimelineProcessors)).dump());
  EXPECT_EQ(format_errors(doc), "");
  int sends = 0, recvs = 0;
  double end = 0;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X") {
      sends += e["name"] == "send";
      recvs += e["name"] == "recv";
      end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    }
  EXPECT_EQ(sends, int(r.messages));
  EXPECT_EQ(recvs, int(r.messages));
  EXPECT_DOUBLE_EQ(end, r.time);
  EXPECT_EQ(count(doc, "s"), int(r.messages));
  EXPECT_EQ(count(doc, "b"), 0);
}

// Large p: only the kept processors (0, p - 1 and the last to finish among them), only their slices.
TEST(Timeline, KeepsASampleAtLargeP) {
  EXPECT_EQ(timeline_processors(10, 64, -1).size(), 10u);
  const std::vector<int64_t> k = timeline_processors(1 << 12, 16, 1234);
  EXPECT_EQ(k.size(), 16u);
  EXPECT_EQ(k.front(), 0);
  EXPECT_EQ(k.back(), (1 << 12) - 1);
  EXPECT_TRUE(std::binary_search(k.begin(), k.end(), 1234));
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::full, 1 << 12, "", 1);
  c.cost.model = CostModel::loggp;
  const RunResult r = run_simulation(c, Backend::cpu);
  const json doc = json::parse(timeline_json(run_timeline(c, r, 16)).dump());
  EXPECT_EQ(format_errors(doc), "");
  const auto kept = doc["otherData"]["processors_kept"].get<std::vector<int64_t>>();
  EXPECT_LE(kept.size(), 16u);
  EXPECT_TRUE(std::binary_search(kept.begin(), kept.end(), r.last_processor));
  for (const json& e : doc["traceEvents"]) ASSERT_TRUE(std::binary_search(kept.begin(), kept.end(), e["pid"].get<int64_t>())) << e.dump();
  EXPECT_DOUBLE_EQ(cpu_end(doc, r.last_processor), r.time);
}

// The command line: --timeline FILE (and run --goal), --plot through gnuplot, and bad options.
TEST(TimelineCli, WritesFilesAndRefusesBadOptions) {
  const std::string dir = std::filesystem::temp_directory_path() / ("ppsim_timeline_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Shell r = testing_support::run_cli("run --topology full --p 8 --op broadcast --model loggp --stragglers 3 --timeline " + dir + "/t.json --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(dir + "/t.json");
  const json doc = json::parse(f);
  EXPECT_EQ(format_errors(doc), "");
  const json report = json::parse(r.out);
  for (int64_t i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(cpu_end(doc, i), report["loggp"]["finish"][size_t(i)].get<double>());
  Shell g = testing_support::run_cli("run --goal " PPSIM_TEST_DATA "/goal/hw_calc_cpu.goal --timeline " + dir + "/g.json");
  ASSERT_EQ(g.code, 0) << g.err;
  std::ifstream gf(dir + "/g.json");
  EXPECT_EQ(format_errors(json::parse(gf)), "");
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    Shell p = testing_support::run_cli("run --topology ring --p 6 --op allgather --plot " + dir + "/g.svg");
    ASSERT_EQ(p.code, 0) << p.err;
    std::ifstream svg(dir + "/g.svg");
    std::stringstream text;
    text << svg.rdbuf();
    EXPECT_NE(text.str().find("<svg"), std::string::npos);
  }
  struct Bad {
    std::string args, says;
  };
  for (const Bad& b : {Bad{"--timeline-processors 0 --timeline " + dir + "/x.json", "--timeline-processors"},
                       Bad{"--timeline-processors 5000 --timeline " + dir + "/x.json", "must be from 1 to 4096"},
                       Bad{"--plot " + dir + "/x.txt", "must end in .svg or .png"},
                       Bad{"--timeline /nonexistent/dir/x.json", "--timeline"}, Bad{"--timeline - --json -", "both want stdout"}}) {
    EXPECT_TRUE(testing_support::refused("run --topology ring --p 6 --op allgather " + b.args, b.says));
    EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
  }
  std::filesystem::remove_all(dir);
}
