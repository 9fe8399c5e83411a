// `ppsim view` (report/replay.h, cli/view_command.cpp): the page's data against the run it replays.
// In detail, every step's messages are the run's (as many as its report counts), each follows its
// route link by link from its sender's node to its receiver's, the busiest link of a step carries
// the report's max_link_load, and the buffers after the last step are the run's final buffers. In
// aggregate, the schedule walked again gives every step's message count and every frame's busiest
// link as the report does. The page itself loads nothing (tests/view_browser.sh runs it in
// Chromium); bad options get one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli_shell.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "machine/topologies/routing.h"
#include "rules/run_rules.h"
#include "report/replay.h"
#include "test_helpers.h"

using namespace ppsim;
using nlohmann::json;
using ppsim::testing_support::make_config;
using ppsim::testing_support::run_cli;

namespace {

// The undirected links of the machine, by their end nodes.
std::set<std::pair<int64_t, int64_t>> links_of(const Topology& t) {
  std::set<std::pair<int64_t, int64_t>> out;
  for (int64_t id = 0; id < topology_link_ids(t); ++id) {
    int64_t a = -1, b = -1;
    if (topology_link_endpoints(t, id, a, b)) out.insert({std::min(a, b), std::max(a, b)});
  }
  return out;
}

RunResult traced(RunConfig& c) {
  c.trace = true;
  return run_simulation(c, Backend::cpu);
}

// The checks every detailed replay must pass.
void check_detail(const RunConfig& c, const RunResult& r) {
  ASSERT_TRUE(replay_in_detail(c, false));
  const json d = replay_json(c, r, true);
  const Topology& t = physical_topology(c);
  const rules::Machine machine = run_machine(c);
  const auto links = links_of(t);
  ASSERT_EQ(d["mode"], "detail");
  ASSERT_EQ(d["steps"].get<int64_t>(), r.steps);
  ASSERT_EQ(int64_t(d["detail"].size()), r.steps);
  EXPECT_EQ(d["machine"]["processors"].get<int64_t>(), t.p);
  EXPECT_EQ(int64_t(d["machine"]["x"].size()), topology_nodes(t));
  int64_t messages = 0;
  for (int64_t s = 1; s <= r.steps; ++s) {
    const json& step = d["detail"][size_t(s - 1)];
    const StepStats& st = r.per_step[size_t(s - 1)];
    EXPECT_EQ(int64_t(step["messages"].size()), st.messages) << "step " << s;
    EXPECT_EQ(d["per_step"]["messages"][size_t(s - 1)].get<int64_t>(), st.messages);
    for (const json& m : step["messages"]) {
      const json& path = m[4];
      EXPECT_EQ(path.front().get<int64_t>(), machine.node(m[0].get<int64_t>()));
      EXPECT_EQ(path.back().get<int64_t>(), machine.node(m[1].get<int64_t>()));
      for (size_t k = 1; k < path.size(); ++k) {
        const int64_t a = path[k - 1], b = path[k];
        EXPECT_TRUE(links.count({std::min(a, b), std::max(a, b)})) << "step " << s << ": no link " << a << "-" << b;
      }
      ++messages;
    }
    int64_t busiest = 0;
    const json& loads = step["loads"];
    for (size_t k = 1; k < loads.size(); k += 2) busiest = std::max(busiest, loads[k].get<int64_t>());
    if (!direct_links(t)) {
      EXPECT_EQ(busiest, st.max_link_load) << "step " << s;
    }
  }
  EXPECT_EQ(messages, r.messages);
  // The buffers after the last step are the run's final buffers, word for word.
  const json& last = d["buffers"]["after"].back();
  for (int b = 0; b < run_buffer_count(c); ++b) {
    const int64_t words = run_buffer_words(c, b), shown = std::min(words, kReplayWordsShown);
    for (int64_t i = 0; i < c.topology.p; ++i)
      for (int64_t w = 0; w < shown; ++w)
        ASSERT_EQ(last[size_t(b)][size_t(i * shown + w)].get<std::string>(), run_word_text(c, r.buffers[size_t(b)][size_t(i * words + w)]));
  }
  ASSERT_EQ(int64_t(d["checks"].size()), c.topology.p);
  for (const json& pc : d["checks"]) EXPECT_EQ(pc["mismatches"].get<int64_t>(), 0) << pc.dump();
}

}  // namespace

TEST(View, DetailFollowsTheRun) {
  for (const auto& [algo, kind, p, dims] : std::vector<std::tuple<std::string, TopologyKind, int64_t, std::string>>{
           {"broadcast_hypercube", TopologyKind::hypercube, 16, ""},
           {"allgather_ring", TopologyKind::torus, 16, "4x4"},
           {"alltoall_xor_ecube", TopologyKind::mesh, 16, "4x4"},
           {"allreduce_ring", TopologyKind::fattree, 16, ""},
           {"broadcast_binomial", TopologyKind::ring, 8, ""}}) {
    SCOPED_TRACE(algo);
    RunConfig c = make_config(algo, kind, p, dims);
    const RunResult r = traced(c);
    ASSERT_TRUE(r.verified);
    check_detail(c, r);
  }
}

// A logical ring mapped onto a mesh (textbook §2.7): messages cross the mesh's links, and both
// layouts are there.
TEST(View, MappedRunShowsBothMachines) {
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 16);
  c.mapped = true;
  c.mapping = Mapping{MapKind::snake, c.topology, make_topology(TopologyKind::mesh, 16, "4x4")};
  const RunResult r = traced(c);
  ASSERT_TRUE(r.verified);
  check_detail(c, r);
  const json d = replay_json(c, r, true);
  ASSERT_TRUE(d.contains("logical"));
  EXPECT_EQ(d["logical"]["processors"].get<int64_t>(), 16);
  EXPECT_EQ(d["machine"]["shape"], "mesh 4x4");
}

// A processor's buffer that holds nothing yet shows "-" in the page, as --trace prints it, for
// every operator: the page showed the fill pattern of a slot never written, 6510615555426900570.
TEST(View, AWordNeverWrittenShowsAsTheTracePrintsIt) {
  for (OperatorKind k : {OperatorKind::sum, OperatorKind::bxor, OperatorKind::interval, OperatorKind::fsum, OperatorKind::fsum32}) {
    RunConfig c = make_config("broadcast_binomial", TopologyKind::hypercube, 16);
    c.combine = k;
    const RunResult r = traced(c);
    ASSERT_TRUE(r.verified) << kOperatorNames[int(k)];
    const json before = replay_json(c, r, true)["buffers"]["after"][0][0];  // step 0, buffer 0: only the root has data
    for (size_t i = 1; i < before.size(); ++i) EXPECT_EQ(before[i], "-") << kOperatorNames[int(k)] << ", processor " << i;
    EXPECT_NE(before[0], "-");
    const testing_support::Shell trace = run_cli(std::string("run --topology hypercube --p 16 --op broadcast --trace --combine ") + kOperatorNames[int(k)]);
    EXPECT_NE(trace.out.find("data = <" + before[0].get<std::string>() + ", -, -,"), std::string::npos) << trace.out;
  }
}

// Lost messages are not drawn; rerouted ones follow their other route (still link by link).
TEST(View, FailuresDropAndReroute) {
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 8);
  Failures f;
  FailedLink l{0, 1, 2, -1, -1};
  for (int64_t id = 0; id < topology_link_ids(c.topology); ++id) {
    int64_t a = -1, b = -1;
    if (!topology_link_endpoints(c.topology, id, a, b)) continue;
    if (a == 0 && b == 1) l.id_ab = id;
    if (a == 1 && b == 0) l.id_ba = id;
  }
  f.link[f.nlink++] = l;
  f.reroute = true;
  c.failures = f;
  const RunResult r = traced(c);
  ASSERT_GT(r.rerouted, 0);
  check_detail(c, r);
  c.failures.reroute = false;
  const RunResult lost = traced(c);
  ASSERT_GT(lost.dropped, 0);
  const json d = replay_json(c, lost, true);
  int64_t shown = 0;
  for (const json& s : d["detail"]) shown += int64_t(s["messages"].size());
  EXPECT_EQ(shown, lost.messages);
  EXPECT_TRUE(d["failures"].get<bool>());
}

// Aggregates: every step's messages walked again as the report counts them, every frame's busiest
// link the busiest of its steps, every step in exactly one frame.
TEST(View, AggregatesMatchTheReport) {
  for (const auto& [algo, kind, p, dims] : std::vector<std::tuple<std::string, TopologyKind, int64_t, std::string>>{
           {"alltoall_xor_ecube", TopologyKind::mesh, 64, "8x8"},
           {"allreduce_hypercube", TopologyKind::hypercube, 1024, ""},
           {"allgather_ring", TopologyKind::ring, 512, ""}}) {
    SCOPED_TRACE(algo);
    RunConfig c = make_config(algo, kind, p, dims);
    ASSERT_EQ(replay_in_detail(c, false), p <= kReplayDetailProcessors);
    const RunResult r = run_simulation(c, Backend::cpu);
    const json d = replay_json(c, r, false);
    const json& A = d["aggregate"];
    ASSERT_EQ(int64_t(A["messages_walked"].size()), r.steps);
    for (int64_t s = 0; s < r.steps; ++s) EXPECT_EQ(A["messages_walked"][size_t(s)].get<int64_t>(), r.per_step[size_t(s)].messages);
    int64_t next = 1;
    for (const json& f : A["frames"]) {
      const int64_t first = f["first"], last = f["last"];
      EXPECT_EQ(first, next);
      next = last + 1;
      int64_t messages = 0, busiest = 0;
      for (int64_t s = first; s <= last; ++s) {
        messages += r.per_step[size_t(s - 1)].messages;
        busiest = std::max(busiest, r.per_step[size_t(s - 1)].max_link_load);
      }
      EXPECT_EQ(f["messages"].get<int64_t>(), messages);
      EXPECT_EQ(f["max_link_load"].get<int64_t>(), busiest);
      EXPECT_EQ(f["cells"].get<std::string>().size(), size_t((A["gx"].get<int64_t>() * A["gy"].get<int64_t>() * 2 + 2) / 3 * 4));
    }
    EXPECT_EQ(next, r.steps + 1);
    EXPECT_LE(int64_t(A["frames"].size()), kReplayFrames);
    EXPECT_LE(A["gx"].get<int64_t>() * A["gy"].get<int64_t>(), kReplayCells);
    ASSERT_EQ(A["sample"].size(), d["checks"].size());
    for (const json& pc : d["checks"]) EXPECT_EQ(pc["mismatches"].get<int64_t>(), 0);
  }
}

// The page: one file that loads nothing, with the run's data in place, written by the command.
TEST(View, PageIsSelfContained) {
  const std::string dir = std::filesystem::temp_directory_path() / ("ppsim_view_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto shell = run_cli("view --topology hypercube --p 16 --op broadcast --html " + dir + "/a.html");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_EQ(shell.err, "");
  std::ifstream in(dir + "/a.html");
  std::stringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  for (const char* loads : {"src=", "<link", "@import", "url(http", "href=\"http", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(page.find(loads), std::string::npos) << loads;
  EXPECT_EQ(page.find("PPSIM_VIEW_DATA"), std::string::npos);
  const size_t open = page.find("id=\"ppsim-data\">"), close = page.find("</script>", open);
  ASSERT_NE(open, std::string::npos);
  const json d = json::parse(page.substr(open + 16, close - open - 16));
  EXPECT_EQ(d["p"].get<int64_t>(), 16);
  EXPECT_TRUE(d["verified"].get<bool>());
  EXPECT_NE(d["summary"].get<std::string>().find("verified: yes"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(View, BadOptionsGetOneLine) {
  const std::string dir = std::filesystem::temp_directory_path() / ("ppsim_view_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const std::string& args : {std::string("view --p 8"), "view --p 8 --model loggp --html " + dir + "/a.html",
                                  "view --p 8 --machine pram-erew --op broadcast --html " + dir + "/a.html",
                                  "view --p 8 --trace --html " + dir + "/a.html", std::string("view --p 8 --html /nonexistent/dir/a.html"),
                                  "view --p 7 --html " + dir + "/a.html", "view --p 8 --goal x.goal --html " + dir + "/a.html"}) {
    const auto shell = run_cli(args);
    EXPECT_EQ(shell.code, 2) << args << ": " << shell.err;
    EXPECT_EQ(std::count(shell.err.begin(), shell.err.end(), '\n'), 1) << args << ": " << shell.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/a.html")) << args;
  }
  std::filesystem::remove_all(dir);
}
