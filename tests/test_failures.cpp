// Failures (--fail, --reroute; ppsim/failures.h, rules/failure_rules.h) in the step model: the
// damage of a binomial broadcast on 8 processors, the damage of every single processor or link failure
// derived from the failure-free run's schedule (its trace) for broadcasts, the other routes of
// every topology that has them, closed-form costs of dropped and rerouted messages, the device
// rounds (on the host executor) equal to the CPU, and the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_shell.h"
#include "machine/topologies/routing.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/run.h"
#include "rules/step_rules.h"
#include "test_helpers.h"

using namespace ppsim;
using ppsim::testing_support::make_config;

namespace {

FailedLink failed_link(const Topology& t, int64_t a, int64_t b, int64_t step) {
  return FailedLink{a, b, step, topology_link_between(t, a, b), topology_link_between(t, b, a)};
}

Failures proc_failure(int64_t proc, int64_t step) {
  Failures f;
  f.proc[f.nproc++] = FailedProc{proc, step};
  return f;
}

Failures link_failure(const Topology& t, int64_t a, int64_t b, int64_t step, bool reroute = false) {
  Failures f;
  f.link[f.nlink++] = failed_link(t, a, b, step);
  f.reroute = reroute;
  return f;
}

std::vector<int64_t> damaged(const RunResult& r) {
  std::vector<int64_t> out;
  for (const Damage& d : r.damage) out.push_back(d.proc);
  return out;
}

RunResult run_on(bool device, const RunConfig& c) { return device ? run_device_rounds_on_host(c) : run_simulation(c, Backend::cpu); }

// Every link of the physical topology, by its end nodes (a < b), once.
std::vector<std::pair<int64_t, int64_t>> links_of(const Topology& t) {
  std::set<std::pair<int64_t, int64_t>> out;
  const int64_t n = direct_links(t) ? 0 : link_space(t);
  for (int64_t id = 0; id < n; ++id) {
    int64_t a = -1, b = -1;
    if (topology_link_endpoints(t, id, a, b)) out.insert({std::min(a, b), std::max(a, b)});
  }
  return {out.begin(), out.end()};
}

}  // namespace

// The worked example: the binomial broadcast from 0 on 8 processors, farthest (highest dimension)
// first, sends 0->4; 0->2, 4->6; 0->1, 2->3, 4->5, 6->7. Processor 4 down from step 1 takes the
// data from 4, 5, 6 and 7; processor 2 from 2 and 3. Every word of theirs is missing (still unset),
// none is wrong, and the run goes to its last step.
TEST(Failures, BinomialBroadcastDamage) {
  const int64_t m = 3;
  struct Case {
    int64_t proc;
    std::vector<int64_t> lost;
    int64_t dropped;  // 4: 0->4 (to it), 4->6, 4->5 (from it); 2: 0->2, 2->3
  };
  for (bool device : {false, true})
    for (const Case& k : {Case{4, {4, 5, 6, 7}, 3}, Case{2, {2, 3}, 2}}) {
      SCOPED_TRACE(std::string(device ? "device rounds" : "cpu") + ", processor " + std::to_string(k.proc));
      RunConfig c = make_config("broadcast_binomial", TopologyKind::hypercube, 8, "", m);
      c.failures = proc_failure(k.proc, 1);
      const RunResult r = run_on(device, c);
      EXPECT_EQ(r.steps, 3);
      EXPECT_FALSE(r.verified);
      EXPECT_EQ(damaged(r), k.lost);
      for (const Damage& d : r.damage) {
        EXPECT_EQ(d.missing, m);
        EXPECT_EQ(d.wrong, 0);
      }
      EXPECT_EQ(r.dropped, k.dropped);
      EXPECT_EQ(r.messages, 7 - k.dropped);
    }
}

// A processor that fails after it has the data keeps it: 4 down from step 2 has received in step
// 1, so only 5 and 6 (its children) and 7 (6's) lose it.
TEST(Failures, DataHeldBeforeTheFailureStays) {
  RunConfig c = make_config("broadcast_binomial", TopologyKind::hypercube, 8, "", 2);
  c.failures = proc_failure(4, 2);
  const RunResult r = run_simulation(c, Backend::cpu);
  EXPECT_EQ(damaged(r), (std::vector<int64_t>{5, 6, 7}));
}

// The damage of every single failure, derived from the schedule. A broadcast's messages carry
// the whole message, so processor j holds the data at the end exactly when a chain of delivered
// messages leads to it from the root: the failure-free run's trace gives every message (from, to,
// step), and a message is delivered unless its sender is down in its step, its receiver in its
// arrival step, or a link of its route is. Every processor, every link, every step; both backends.
TEST(Failures, BroadcastDamageFollowsFromTheSchedule) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p;
    const char* dims;
    int lambda;
  };
  const Case cases[] = {{"broadcast_binomial", TopologyKind::hypercube, 16, "", 1},
                        {"broadcast_hypercube_low_first", TopologyKind::hypercube, 8, "", 1},
                        {"broadcast_binomial", TopologyKind::ring, 8, "", 1},
                        {"broadcast_chain", TopologyKind::linear, 6, "", 1},
                        {"broadcast_knomial", TopologyKind::ring, 9, "", 1},
                        {"broadcast_mesh", TopologyKind::mesh, 16, "4x4", 1},
                        {"broadcast_postal", TopologyKind::full, 10, "", 3}};
  for (const Case& k : cases) {
    RunConfig base = make_config(k.algo, k.kind, k.p, k.dims, 2);
    base.params.lambda = k.lambda;
    RunConfig traced = base;
    traced.trace = true;
    const RunResult clean = run_simulation(traced, Backend::cpu);
    ASSERT_TRUE(clean.verified) << k.algo;
    std::vector<TraceMessage> msgs;
    for (const TraceStep& ts : clean.trace) msgs.insert(msgs.end(), ts.messages.begin(), ts.messages.end());
    const Topology& t = base.topology;
    // The failures: every processor and every link at every step.
    std::vector<Failures> all;
    for (int64_t s = 1; s <= clean.steps; ++s) {
      for (int64_t i = 0; i < k.p; ++i) all.push_back(proc_failure(i, s));
      for (const auto& [a, b] : links_of(t)) all.push_back(link_failure(t, a, b, s));
    }
    int64_t damaging = 0, harmless = 0;
    for (const Failures& f : all) {
      // The derivation: holds[j] after every step, the messages of a step reading its start.
      std::vector<bool> holds(size_t(k.p), false);
      holds[size_t(base.params.root)] = true;
      int64_t dropped = 0;
      std::map<int64_t, std::vector<std::pair<int64_t, bool>>> arriving;  // step -> (to, carries the data)
      for (int64_t s = 1; s <= clean.steps; ++s) {
        for (const TraceMessage& x : msgs) {
          if (x.sent != s) continue;
          bool lost = f.proc_down(x.from, x.sent) || f.proc_down(x.to, x.arrives);
          for_each_route_link(t, x.from, x.to, [&](int64_t id) { lost = lost || f.link_down(id, x.arrives); });
          if (lost) ++dropped;
          else arriving[x.arrives].push_back({x.to, holds[size_t(x.from)]});
        }
        for (const auto& [to, data] : arriving[s]) holds[size_t(to)] = data;
      }
      std::vector<int64_t> lost;
      for (int64_t j = 0; j < k.p; ++j)
        if (!holds[size_t(j)]) lost.push_back(j);
      ++(lost.empty() ? harmless : damaging);
      for (bool device : {false, true}) {
        RunConfig c = base;
        c.failures = f;
        const RunResult r = run_on(device, c);
        const std::string what = std::string(k.algo) + (device ? " device" : " cpu") + (f.nproc ? " proc " + std::to_string(f.proc[0].proc)
                                                                                                 : " link " + std::to_string(f.link[0].a) + "-" +
                                                                                                       std::to_string(f.link[0].b)) +
                                 " at " + std::to_string(f.nproc ? f.proc[0].step : f.link[0].step);
        ASSERT_EQ(damaged(r), lost) << what;
        ASSERT_EQ(r.dropped, dropped) << what;
        ASSERT_EQ(r.messages, int64_t(msgs.size()) - dropped) << what;
        ASSERT_EQ(r.verified, lost.empty()) << what;
        for (const Damage& d : r.damage) ASSERT_EQ(d.missing + d.wrong, 2) << what;
      }
    }
    EXPECT_GT(damaging, 0) << k.algo;
    EXPECT_GT(harmless, 0) << k.algo;  // a link no message crosses, or a processor down after its last message
  }
}

// The other routes of every topology that has them: for every pair and every link of its route
// failed, the route message_route picks is a path of links from s to d that avoids the failed link
// (link ends chain), its hops are message_hops', and it exists where the topology has one: the
// other way round a ring; always on a torus, a hypercube and a mesh of two rows or more (another
// order, the long way round, or a detour); in a fat tree unless the failed link is a processor's
// own or both ends share a leaf switch; in a dragonfly unless it is a processor's own or the
// local link between the two routers of a group of two.
TEST(Failures, OtherRoutesAvoidTheFailedLink) {
  struct Case {
    TopologyKind kind;
    int64_t p;
    const char* dims;
  };
  const Case cases[] = {{TopologyKind::ring, 7, ""},          {TopologyKind::ring, 8, ""},        {TopologyKind::mesh, 12, "3x4"},
                        {TopologyKind::torus, 16, "4x4"},     {TopologyKind::torus, 27, "3x3x3"}, {TopologyKind::hypercube, 16, ""},
                        {TopologyKind::fattree, 8, "2x3"},    {TopologyKind::fattree, 16, "4x2"}, {TopologyKind::dragonfly, 6, "2x1x1"},
                        {TopologyKind::dragonfly, 20, "2x2x2"}, {TopologyKind::dragonfly, 72, "4x2x2"}};
  for (const Case& k : cases) {
    const Topology t = make_topology(k.kind, k.p, k.dims);
    Failures down;
    rules::Machine m{t, false, {}, &down};
    int64_t checked = 0;
    for (int64_t s = 0; s < t.p; ++s)
      for (int64_t d = 0; d < t.p; ++d) {
        if (s == d) continue;
        std::vector<int64_t> route;
        for_each_route_link(t, s, d, [&](int64_t id) { route.push_back(id); });
        for (int64_t id : route) {
          int64_t a = -1, b = -1;
          ASSERT_TRUE(topology_link_endpoints(t, id, a, b));
          down = link_failure(t, a, b, 1, true);
          const int r = rules::message_route(m, s, d, 1, 1);
          const std::string what = topology_shape(t) + " " + std::to_string(s) + "->" + std::to_string(d) + " without " + std::to_string(a) +
                                   "-" + std::to_string(b);
          bool expected = true;
          if (k.kind == TopologyKind::fattree) expected = a < t.p || b < t.p ? false : true;
          if (k.kind == TopologyKind::dragonfly) {  // routers a per group, c processors each
            const int64_t group = t.dims[0] * t.dims[2];
            expected = !(a < t.p || b < t.p) && !(s / group == d / group && t.dims[0] < 3);
          }
          if (k.kind == TopologyKind::fattree && expected) {
            int level = 0;
            for (int64_t x = s, y = d; x != y; x /= t.dims[0], y /= t.dims[0]) ++level;
            expected = level >= 2;
          }
          ASSERT_EQ(r != rules::kLost, expected) << what;
          if (r == rules::kLost) continue;
          ASSERT_GT(r, 0) << what;
          int64_t at = s, hops = 0;
          rules::for_each_message_link(m, s, d, r, [&](int64_t link) {
            int64_t from = -1, to = -1;
            EXPECT_TRUE(topology_link_endpoints(t, link, from, to)) << what;
            EXPECT_EQ(from, at) << what;
            EXPECT_FALSE(down.link_down(link, 1)) << what;
            at = to;
            ++hops;
          });
          ASSERT_EQ(at, d) << what;
          ASSERT_EQ(hops, rules::message_hops(m, s, d, r)) << what;
          if (k.kind == TopologyKind::ring) {
            ASSERT_EQ(hops, t.p - int64_t(route.size())) << what;
          }
          if (k.kind == TopologyKind::hypercube) {
            ASSERT_EQ(hops, route.size() >= 2 ? int64_t(route.size()) : 3) << what;
          }
          ++checked;
        }
      }
    EXPECT_GT(checked, 0) << topology_shape(t);
  }
}

// The hypercube's bit test in may_cross says what the hop counts say: a route from s to d can cross
// a -> b only where hops(s, a) + 1 + hops(b, d) = hops(s, d) (either direction of the link); every
// pair and every link of a 5-cube, where the e-cube routes that do cross are covered above.
TEST(Failures, HypercubeCrossingTestEqualsTheHopCounts) {
  const Topology t = make_topology(TopologyKind::hypercube, 32, "");
  auto hops = [](int64_t x, int64_t y) { return int64_t(__builtin_popcountll(uint64_t(x ^ y))); };
  int64_t crossing = 0;
  for (int64_t a = 0; a < t.p; ++a)
    for (int bit = 0; bit < 5; ++bit) {
      const int64_t b = a ^ (int64_t(1) << bit);
      if (b < a) continue;
      FailedLink l{};
      l.a = a;
      l.b = b;
      l.step = 1;
      for (int64_t s = 0; s < t.p; ++s)
        for (int64_t d = 0; d < t.p; ++d) {
          const bool by_hops = hops(s, a) + 1 + hops(b, d) == hops(s, d) || hops(s, b) + 1 + hops(a, d) == hops(s, d);
          ASSERT_EQ(rules::may_cross(t, l, s, d), by_hops) << s << "->" << d << " link " << a << "-" << b;
          crossing += by_hops;
        }
    }
  // Per direction a -> b of a link of bit k: s agrees with a in bit k and d with b; in each of the
  // other n - 1 bits either s agrees with a (d free: 2 ways) or not (then d must: 1 way). So
  // 2 * 3^(n-1) pairs per link, and a 5-cube has 5 * 16 links.
  EXPECT_EQ(crossing, 5 * 16 * 2 * 81);
}

// Costs. A dropped message costs nothing and loads nothing: the chain broadcast on 4 processors with
// processor 1 down from step 1 sends only 2->3 (in step 3): time t_s + t_w m, steps 1 and 2 free.
// A rerouted one pays its route: the ring all-gather on 8 processors with link 0-1 down sends 0->1
// the other way round, 7 links, in every step, on links no other message uses (they go +), so each
// step costs t_s + 7 t_h + t_w m cut-through and t_s + 7 (t_h + t_w m) store-and-forward, and the
// all-gather completes.
TEST(Failures, DroppedAndReroutedCosts) {
  const double ts = 3, tw = 0.5, th = 0.25;
  const int64_t m = 4;
  for (bool device : {false, true}) {
    SCOPED_TRACE(device ? "device rounds" : "cpu");
    RunConfig chain = make_config("broadcast_chain", TopologyKind::linear, 4, "", m);
    chain.cost.ts = ts;
    chain.cost.tw = tw;
    chain.failures = proc_failure(1, 1);
    const RunResult c = run_on(device, chain);
    ASSERT_EQ(c.per_step.size(), 3u);
    EXPECT_EQ(c.per_step[0].time, 0);
    EXPECT_EQ(c.per_step[1].time, 0);
    EXPECT_DOUBLE_EQ(c.per_step[2].time, ts + tw * double(m));
    EXPECT_EQ(c.dropped, 2);
    EXPECT_EQ(damaged(c), (std::vector<int64_t>{1, 2, 3}));
    for (Routing routing : {Routing::cut_through, Routing::store_and_forward}) {
      RunConfig ring = make_config("allgather_ring", TopologyKind::ring, 8, "", m);
      ring.cost.ts = ts;
      ring.cost.tw = tw;
      ring.cost.th = th;
      ring.cost.routing = routing;
      ring.failures = link_failure(ring.topology, 0, 1, 1, true);
      const RunResult r = run_on(device, ring);
      EXPECT_TRUE(r.verified);
      EXPECT_TRUE(r.damage.empty());
      EXPECT_EQ(r.rerouted, 7);
      EXPECT_EQ(r.dropped, 0);
      EXPECT_EQ(r.max_link_load, 1);
      EXPECT_EQ(r.link_hops, 7 * (7 + 7));
      const double step = routing == Routing::cut_through ? ts + 7 * th + tw * double(m) : ts + 7 * (th + tw * double(m));
      for (const StepStats& st : r.per_step) EXPECT_DOUBLE_EQ(st.time, step);
      // Without --reroute the seven messages 0->1 are lost and the all-gather does not complete.
      ring.failures.reroute = false;
      const RunResult lost = run_on(device, ring);
      EXPECT_FALSE(lost.verified);
      EXPECT_EQ(lost.dropped, 7);
      EXPECT_EQ(lost.rerouted, 0);
    }
  }
}

// The device rounds (on the host executor) and the CPU give the same figures, step by step, the
// same damage and the same buffers, over algorithms of every kind with failures of both kinds.
TEST(Failures, DeviceRoundsAndTheCpuStepPathsAgree) {
  struct Case {
    const char* algo;
    TopologyKind kind;
    int64_t p;
    const char* dims;
    bool link;
    int64_t a, b, step;
    bool reroute;
  };
  const Case cases[] = {
      {"allreduce_hypercube", TopologyKind::hypercube, 16, "", false, 5, 0, 2, false},
      {"allreduce_hypercube", TopologyKind::hypercube, 16, "", true, 0, 1, 1, true},
      {"alltoall_xor_ecube", TopologyKind::hypercube, 8, "", true, 2, 3, 1, true},
      {"alltoall_xor_ecube", TopologyKind::hypercube, 8, "", true, 2, 3, 2, false},
      {"alltoall_mesh", TopologyKind::torus, 16, "4x4", true, 5, 6, 1, true},
      {"allgather_mesh", TopologyKind::mesh, 16, "4x4", true, 5, 9, 2, true},
      {"reduce_binomial", TopologyKind::ring, 8, "", false, 3, 0, 1, false},
      {"scan_hypercube", TopologyKind::hypercube, 8, "", false, 6, 0, 2, false},
      {"allreduce_ring", TopologyKind::fattree, 16, "4x2", true, 16, 20, 3, true},
      {"alltoall_pairwise", TopologyKind::dragonfly, 20, "2x2x2", true, 20, 21, 4, true},
      {"allgather_ring", TopologyKind::full, 6, "", true, 0, 1, 1, true},
      // damage in blocks 0 and 2 of the device's count (1,024 processors a block), none in 1
      {"allreduce_hypercube", TopologyKind::hypercube, 4096, "", false, 3000, 0, 12, false},
  };
  for (const Case& k : cases) {
    RunConfig c = make_config(k.algo, k.kind, k.p, k.dims, 16);  // long enough for the pull step on routed topologies too
    c.cost.ts = 1;
    c.cost.tw = 0.5;
    c.cost.th = 0.125;
    c.failures = k.link ? link_failure(c.topology, k.a, k.b, k.step, k.reroute) : proc_failure(k.a, k.step);
    const std::string what = std::string(k.algo) + " on " + topology_shape(c.topology);
    const RunResult cpu = run_simulation(c, Backend::cpu);
    EXPECT_EQ(cpu.step_path, "pull") << what;
    RunConfig on_records = c;
    on_records.step_path = StepPath::records;
    const RunResult records = run_simulation(on_records, Backend::cpu);
    const RunResult dev = run_device_rounds_on_host(c);
    EXPECT_EQ(cpu.buffers, records.buffers) << what;
    ASSERT_EQ(cpu.per_step.size(), dev.per_step.size()) << what;
    ASSERT_EQ(cpu.per_step.size(), records.per_step.size()) << what;
    for (size_t s = 0; s < cpu.per_step.size(); ++s)
      EXPECT_TRUE(cpu.per_step[s].messages == records.per_step[s].messages && cpu.per_step[s].words == records.per_step[s].words &&
                  cpu.per_step[s].link_hops == records.per_step[s].link_hops && cpu.per_step[s].max_link_load == records.per_step[s].max_link_load &&
                  cpu.per_step[s].time == records.per_step[s].time && cpu.per_step[s].dropped == records.per_step[s].dropped &&
                  cpu.per_step[s].rerouted == records.per_step[s].rerouted)
          << what << " step " << s + 1 << ": the pull step and the records differ";
    for (size_t s = 0; s < cpu.per_step.size(); ++s) {
      const StepStats &x = cpu.per_step[s], &y = dev.per_step[s];
      EXPECT_EQ(x.messages, y.messages) << what << " step " << s + 1;
      EXPECT_EQ(x.words, y.words) << what << " step " << s + 1;
      EXPECT_EQ(x.link_hops, y.link_hops) << what << " step " << s + 1;
      EXPECT_EQ(x.max_link_load, y.max_link_load) << what << " step " << s + 1;
      EXPECT_EQ(x.time, y.time) << what << " step " << s + 1;
      EXPECT_EQ(x.dropped, y.dropped) << what << " step " << s + 1;
      EXPECT_EQ(x.rerouted, y.rerouted) << what << " step " << s + 1;
    }
    EXPECT_EQ(cpu.buffers, dev.buffers) << what;
    // The verdict from the buffers brought back (as a small run's report does), and from the
    // verification where the buffers are (the damage counted there: a large run's).
    RunConfig in_place = c;
    in_place.keep_buffers = false;
    for (const RunResult& d : {dev, run_device_rounds_on_host(in_place)}) {
      EXPECT_EQ(cpu.verified, d.verified) << what;
      EXPECT_EQ(cpu.mismatches, d.mismatches) << what;
      EXPECT_EQ(cpu.results_agree, d.results_agree) << what;
      ASSERT_EQ(cpu.damage.size(), d.damage.size()) << what;
      for (size_t i = 0; i < cpu.damage.size(); ++i) {
        EXPECT_EQ(cpu.damage[i].proc, d.damage[i].proc) << what;
        EXPECT_EQ(cpu.damage[i].missing, d.damage[i].missing) << what;
        EXPECT_EQ(cpu.damage[i].wrong, d.damage[i].wrong) << what;
      }
      ASSERT_EQ(cpu.first_mismatches.size(), d.first_mismatches.size()) << what;
      for (size_t i = 0; i < cpu.first_mismatches.size(); ++i) {
        const Mismatch &x = cpu.first_mismatches[i], &y = d.first_mismatches[i];
        EXPECT_TRUE(x.buf == y.buf && x.proc == y.proc && x.word == y.word && x.expected == y.expected && x.got == y.got) << what << " #" << i;
      }
    }
    EXPECT_GT(cpu.dropped + cpu.rerouted, 0) << what << ": the failure touches no message";
  }
}

// The command line: a run with failures exits 0 and reports the damage (text and JSON); bad
// failures get one line and exit 2.
TEST(Failures, CommandLine) {
  using ppsim::testing_support::refused;
  using ppsim::testing_support::run_cli;
  const std::string base = "run --topology hypercube --p 8 --op broadcast --algo broadcast_binomial --m 2";
  const auto json_run = run_cli(base + " --fail proc:4@1 --json -");
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const nlohmann::json doc = nlohmann::json::parse(json_run.out);
  const nlohmann::json& f = doc["failures"];
  EXPECT_EQ(f["completed"], false);
  EXPECT_EQ(f["dropped_messages"], 3);
  EXPECT_EQ(f["damaged_processors"], 4);
  EXPECT_EQ(f["missing_words"], 8);
  EXPECT_EQ(f["wrong_words"], 0);
  ASSERT_EQ(f["damage"].size(), 4u);
  EXPECT_EQ(f["damage"][0]["processor"], 4);
  EXPECT_EQ(f["injected"][0]["kind"], "proc");
  EXPECT_EQ(doc["per_step"][0]["dropped"], 1);
  const auto text = run_cli(base + " --fail proc:2@1");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("failures: processor 2 from step 1; 2 messages dropped"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("damage: 2 processors, 4 words missing, 0 wrong"), std::string::npos) << text.out;
  const auto rerouted = run_cli("run --topology ring --p 8 --op allgather --algo allgather_ring --fail link:0-1@1 --reroute --json -");
  ASSERT_EQ(rerouted.code, 0) << rerouted.err;
  EXPECT_EQ(nlohmann::json::parse(rerouted.out)["failures"]["completed"], true);
  EXPECT_EQ(nlohmann::json::parse(rerouted.out)["failures"]["rerouted_messages"], 7);
  const std::pair<std::string, std::string> bad[] = {
      {base + " --fail proc:8@1", "processor 8 is not on the machine"},
      {base + " --fail proc:1@0", "step 0 is not a step of the run (1..3)"},
      {base + " --fail proc:1@4", "step 4 is not a step of the run (1..3)"},
      {base + " --fail proc:x@1", "is not proc:P@S or link:A-B@S"},
      {base + " --fail node:1@1", "is not proc:P@S or link:A-B@S"},
      {base + " --fail link:0-3@1", "no link joins nodes 0 and 3"},
      {base + " --fail link:0-9@1", "node 9 is not on the hypercube"},
      {base + " --fail link:0-1", "is not proc:P@S or link:A-B@S"},
      {base + " --fail proc:1@1,", "is not proc:P@S or link:A-B@S"},
      {base + " --reroute", "--reroute needs --fail"},
      {base + " --fail proc:1@1 --model loggp", "--fail applies to the step model"},
      {"run --machine pram-erew --op broadcast --p 8 --fail proc:1@1", "--fail does not apply to --machine pram-erew"},
  };
  for (const auto& [args, says] : bad) EXPECT_TRUE(refused(args, says));
}
