// The data of `ppsim view`'s page (replay.h).
#include "report/replay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "loggp/loggp_rounds.h"
#include "ppsim/bounds.h"
#include "ppsim/report.h"
#include "report/arriving_ops.h"
#include "rules/failure_rules.h"
#include "rules/processor_check.h"
#include "rules/run_rules.h"

namespace ppsim {

using nlohmann::json;

namespace {

// Undirected links (node pairs) as the page draws them, numbered as they are first met.
class LinkPairs {
 public:
  explicit LinkPairs(const Topology& t) : t_(t) {}
  int64_t of_id(int64_t id) {
    auto it = by_id_.find(id);
    if (it != by_id_.end()) return it->second;
    int64_t a = -1, b = -1;
    topology_link_endpoints(t_, id, a, b);
    const auto key = std::make_pair(std::min(a, b), std::max(a, b));
    auto [at, fresh] = by_pair_.try_emplace(key, int64_t(by_pair_.size()));
    if (fresh) {
      ends_.push_back(key.first);
      ends_.push_back(key.second);
    }
    by_id_.emplace(id, at->second);
    return at->second;
  }
  const std::vector<int64_t>& ends() const { return ends_; }
  int64_t count() const { return int64_t(by_pair_.size()); }

 private:
  const Topology& t_;
  std::unordered_map<int64_t, int64_t> by_id_;
  std::map<std::pair<int64_t, int64_t>, int64_t> by_pair_;
  std::vector<int64_t> ends_;  // a0, b0, a1, b1, ...
};

// Undirected links drawn at rest: all of them when there are at most this many.
constexpr int64_t kAllLinksDrawn = 4096;

std::string title_of(const RunConfig& c) {
  return std::string(c.algorithm->name) + " (" + operation_name(c.algorithm->op) + ") on " +
         (c.mapped ? "logical " + topology_shape(c.topology) + " mapped onto " : std::string()) + topology_shape(physical_topology(c)) +
         (c.algorithm->op == Operation::barrier ? std::string() : ", m = " + words_text(c.params.m)) +
         (c.params.lambda > 1 ? ", lambda = " + std::to_string(c.params.lambda) : std::string());
}

json layout_json(const Topology& t, int64_t nodes) {
  json x = json::array(), y = json::array();
  for (int64_t v = 0; v < nodes; ++v) {
    const LayoutPoint at = topology_layout(t, v);
    x.push_back(std::round(at.x * 10) / 10);
    y.push_back(std::round(at.y * 10) / 10);
  }
  return json{{"shape", topology_shape(t)}, {"processors", t.p}, {"nodes", nodes}, {"x", std::move(x)}, {"y", std::move(y)}};
}

// Each step's figures as the run reported them, as arrays, and its time so far.
json per_step_json(const RunResult& r) {
  json messages = json::array(), words = json::array(), load = json::array(), time = json::array(), dropped = json::array(),
       rerouted = json::array();
  double so_far = 0;
  for (const StepStats& s : r.per_step) {
    messages.push_back(s.messages);
    words.push_back(s.words);
    load.push_back(s.max_link_load);
    so_far += s.time;
    time.push_back(so_far);
    dropped.push_back(s.dropped);
    rerouted.push_back(s.rerouted);
  }
  return json{{"messages", std::move(messages)}, {"words", std::move(words)},     {"max_link_load", std::move(load)},
              {"time", std::move(time)},         {"dropped", std::move(dropped)}, {"rerouted", std::move(rerouted)}};
}

// Processors' final checks: their mismatches, and the words the reference says they hold.
json checks_json(const RunConfig& c, const RunResult& r, const std::vector<int64_t>& procs) {
  json out = json::array();
  if (r.buffers.empty() || !c.verify) return out;
  for (const ProcessorCheck& pc : check_processors(c, r.buffers, procs, kReplayWordsShown)) {
    json expected = json::array();
    for (uint64_t w : pc.expected) expected.push_back(run_word_text(c, w));
    out.push_back({{"proc", pc.proc}, {"buffer", buffer_name(c.algorithm->op, pc.buffer)}, {"mismatches", pc.mismatches}, {"expected", expected}});
  }
  return out;
}

// The words of processor i's buffers (the first kReplayWordsShown of each) in `buffers`.
json processor_words(const RunConfig& c, const std::vector<std::vector<uint64_t>>& buffers, int64_t i) {
  json out = json::array();
  for (int b = 0; b < int(buffers.size()); ++b) {
    const int64_t words = run_buffer_words(c, b), shown = std::min(words, kReplayWordsShown);
    json row = json::array();
    for (int64_t w = 0; w < shown; ++w) row.push_back(run_word_text(c, buffers[size_t(b)][size_t(i * words + w)]));
    out.push_back(std::move(row));
  }
  return out;
}

json buffer_names(const RunConfig& c) {
  json names = json::array(), words = json::array();
  for (int b = 0; b < run_buffer_count(c); ++b) {
    names.push_back(buffer_name(c.algorithm->op, b));
    words.push_back(run_buffer_words(c, b));
  }
  return json{{"names", std::move(names)}, {"words", std::move(words)}};
}

// The nodes of a message's route, from its sender's node to its receiver's.
template <class Visit>
void route_links(const rules::Machine& machine, const RunConfig& c, int64_t from, int64_t to, int64_t sent, int64_t arrives, Visit&& visit) {
  const int route = c.failures.any() ? rules::message_route(machine, from, to, sent, arrives) : 0;
  if (route == rules::kLost) return;
  rules::for_each_message_link(machine, from, to, route, visit);
}

// The machine as the page draws it: its layout, the logical processor at each node (-1: a switch,
// or no processor), and every undirected link when there are at most kAllLinksDrawn of them (else
// only those the messages cross, numbered in `pairs` as the steps meet them).
json detail_machine(const Topology& t, const rules::Machine& machine, int64_t p, LinkPairs& pairs) {
  const int64_t nodes = topology_nodes(t);
  json m = layout_json(t, nodes);
  std::vector<int64_t> at(size_t(nodes), -1);
  for (int64_t i = 0; i < p; ++i) at[size_t(machine.node(i))] = i;
  m["label"] = at;
  bool all_links = false;
  const int64_t space = topology_link_ids(t);
  if (space <= 4 * kAllLinksDrawn) {
    for (int64_t id = 0; id < space; ++id) {
      int64_t a, b;
      if (topology_link_endpoints(t, id, a, b)) pairs.of_id(id);
    }
    all_links = pairs.count() <= kAllLinksDrawn;
  }
  m["all_links"] = all_links;
  return m;
}

// Every step's messages (sender, receiver, words, arrival, the nodes of its route) and the load of
// each undirected link the step uses (the busier direction's messages).
json detail_steps(const RunConfig& c, const RunResult& r, const rules::Machine& machine, LinkPairs& pairs) {
  const Topology& t = physical_topology(c);
  json steps = json::array();
  std::unordered_map<int64_t, int64_t> load, directed;
  for (size_t s = 1; s < r.trace.size(); ++s) {
    const TraceStep& ts = r.trace[s];
    json msgs = json::array();
    directed.clear();
    for (const TraceMessage& x : ts.messages) {
      json path = json::array({machine.node(x.from)});
      route_links(machine, c, x.from, x.to, x.sent, x.arrives, [&](int64_t id) {
        ++directed[id];
        int64_t a, b;
        topology_link_endpoints(t, id, a, b);
        path.push_back(b);
      });
      msgs.push_back(json::array({x.from, x.to, x.words, x.arrives, std::move(path)}));
    }
    load.clear();
    for (const auto& [id, n] : directed) {
      int64_t& l = load[pairs.of_id(id)];
      l = std::max(l, n);
    }
    json loads = json::array();
    for (const auto& [pair, n] : load) {
      loads.push_back(pair);
      loads.push_back(n);
    }
    steps.push_back({{"step", ts.step}, {"messages", std::move(msgs)}, {"loads", std::move(loads)}});
  }
  return steps;
}

// Every processor's buffers (the first kReplayWordsShown words of each) after every step.
json buffers_after_steps(const RunConfig& c, const RunResult& r) {
  const int64_t p = c.topology.p;
  json after = json::array();
  for (const TraceStep& ts : r.trace) {
    json bufs = json::array();
    for (int b = 0; b < int(ts.buffers.size()); ++b) {
      const int64_t words = run_buffer_words(c, b);
      json flat = json::array();
      for (int64_t i = 0; i < p; ++i)
        for (int64_t w = 0; w < std::min(words, kReplayWordsShown); ++w) flat.push_back(run_word_text(c, ts.buffers[size_t(b)][size_t(i * words + w)]));
      bufs.push_back(std::move(flat));
    }
    after.push_back(std::move(bufs));
  }
  return after;
}

void add_detail(json& doc, const RunConfig& c, const RunResult& r) {
  const Topology& t = physical_topology(c);
  const rules::Machine machine = run_machine(c);
  const int64_t p = c.topology.p;
  LinkPairs pairs(t);
  json m = detail_machine(t, machine, p, pairs);
  json steps = detail_steps(c, r, machine, pairs);
  m["links"] = pairs.ends();
  doc["machine"] = std::move(m);
  if (c.mapped) {
    json logical = layout_json(c.topology, p);
    LinkPairs lp(c.topology);
    for (int64_t id = 0; id < topology_link_ids(c.topology) && lp.count() <= kAllLinksDrawn; ++id) {
      int64_t a, b;
      if (topology_link_endpoints(c.topology, id, a, b) && a < p && b < p) lp.of_id(id);
    }
    logical["links"] = lp.ends();
    doc["logical"] = std::move(logical);
  }
  doc["detail"] = std::move(steps);
  json buffers = buffer_names(c);
  buffers["after"] = buffers_after_steps(c, r);
  doc["buffers"] = std::move(buffers);
  std::vector<int64_t> all(static_cast<size_t>(p));
  for (int64_t i = 0; i < p; ++i) all[size_t(i)] = i;
  doc["checks"] = checks_json(c, r, all);
}

std::string base64(const std::vector<uint16_t>& cells) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  bytes.reserve(cells.size() * 2);
  for (uint16_t v : cells) {
    bytes.push_back(char(v & 0xff));
    bytes.push_back(char(v >> 8));
  }
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16 | (i + 1 < bytes.size() ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0) |
                       (i + 2 < bytes.size() ? uint32_t(uint8_t(bytes[i + 2])) : 0);
    out.push_back(digits[n >> 18 & 63]);
    out.push_back(digits[n >> 12 & 63]);
    out.push_back(i + 1 < bytes.size() ? digits[n >> 6 & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? digits[n & 63] : '=');
  }
  return out;
}

// The heat map's grid: cells about square over the layout's bounding box (with a margin, so that
// nodes on its edge fall inside), and the cells each directed link covers, found once per link.
class HeatGrid {
 public:
  explicit HeatGrid(const Topology& t) : t_(t) {
    for (int64_t v = 0; v < topology_nodes(t); ++v) {
      const LayoutPoint at = topology_layout(t, v);
      x0 = std::min(x0, at.x), x1 = std::max(x1, at.x), y0 = std::min(y0, at.y), y1 = std::max(y1, at.y);
    }
    const double margin = 0.04 * std::max({x1 - x0, y1 - y0, 1.0});
    x0 -= margin, x1 += margin, y0 -= margin, y1 += margin;
    w_ = x1 - x0, h_ = y1 - y0;
    gx = std::clamp<int64_t>(std::llround(std::sqrt(double(kReplayCells) * w_ / h_)), 1, 1024);
    gy = std::clamp<int64_t>(kReplayCells / gx, 1, 1024);
  }
  // A directed link's cells: the middle of its segment where it is short beside the picture (a
  // mesh's links draw the mesh), its midpoint alone where it is long (a hypercube's high
  // dimensions, a torus's wraparound), so that long links do not cover the picture.
  const std::vector<int32_t>& link_cells(int64_t id) {
    auto it = cells_of_link_.find(id);
    if (it != cells_of_link_.end()) return it->second;
    int64_t a = 0, b = 0;
    topology_link_endpoints(t_, id, a, b);
    const LayoutPoint pa = topology_layout(t_, a), pb = topology_layout(t_, b);
    const double ax = (pa.x - x0) / w_ * double(gx), ay = (y1 - pa.y) / h_ * double(gy), bx = (pb.x - x0) / w_ * double(gx),
                 by = (y1 - pb.y) / h_ * double(gy);
    const double length = std::hypot(bx - ax, by - ay);
    std::vector<int32_t> cells;
    const bool whole = length <= double(std::max(gx, gy)) / 4;
    const int samples = whole ? int(std::ceil(length * 1.2)) + 1 : 1;
    for (int k = 0; k < samples; ++k) {
      const double f = samples == 1 ? 0.5 : 0.2 + 0.6 * double(k) / double(samples - 1);
      const int64_t cx = std::clamp<int64_t>(int64_t(ax + (bx - ax) * f), 0, gx - 1), cy = std::clamp<int64_t>(int64_t(ay + (by - ay) * f), 0, gy - 1);
      const int32_t cell = int32_t(cy * gx + cx);
      if (cells.empty() || cells.back() != cell) cells.push_back(cell);
    }
    return cells_of_link_[id] = std::move(cells);
  }
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;  // the bounding box
  int64_t gx = 1, gy = 1;                                     // cells across and down

 private:
  const Topology& t_;
  double w_ = 1, h_ = 1;
  std::unordered_map<int64_t, std::vector<int32_t>> cells_of_link_;
};

// The heat map's frames: the steps in at most kReplayFrames groups, each frame the busiest load of
// each cell over its steps, with its messages and busiest link; `drawn` gets the messages walked in
// each step. Every message of the run is walked again, with what the failures leave of it.
json aggregate_frames(const RunConfig& c, int64_t steps, HeatGrid& grid, std::vector<int64_t>& drawn) {
  const rules::Machine machine = run_machine(c);
  const rules::Clock clock = run_clock(c);
  const int64_t procs = run_processors(c), frames = std::min(std::max<int64_t>(steps, 1), kReplayFrames);
  json frame_docs = json::array();
  loggp_rounds::RoundReader reader(c);
  ArrivingOps arriving(machine);
  std::unordered_map<int64_t, int64_t> load;
  int round = 1;
  for (int64_t f = 0; f < frames; ++f) {
    const int64_t first = f * steps / frames + 1, last = (f + 1) * steps / frames;
    std::vector<uint16_t> cells(size_t(grid.gx * grid.gy), 0);
    int64_t busiest = 0, messages = 0;
    for (; round <= clock.rounds && clock.step_of_round(round) <= last; ++round) {
      const int64_t sent = clock.step_of_round(round), arrives = clock.arrives(sent);
      if (sent > steps) break;
      load.clear();
      for (int64_t i = 0; i < procs; ++i) {
        const StepOps& ops = arriving.of(reader.read(i, round), i, sent, arrives);
        for (int k = 0; k < ops.nsend; ++k) {
          ++drawn[size_t(sent)];
          rules::for_each_message_link(machine, i, ops.send[k].to, arriving.route(k), [&](int64_t id) { ++load[id]; });
        }
      }
      messages += drawn[size_t(sent)];
      for (const auto& [id, n] : load) {
        for (int32_t k : grid.link_cells(id)) {
          uint16_t& cell = cells[size_t(k)];
          cell = uint16_t(std::max<int64_t>(cell, std::min<int64_t>(n, 65535)));
        }
        busiest = std::max(busiest, n);
      }
    }
    frame_docs.push_back({{"first", first}, {"last", last}, {"messages", messages}, {"max_link_load", busiest}, {"cells", base64(cells)}});
  }
  return frame_docs;
}

// kReplaySample processors spread evenly from 0 to p - 1.
std::vector<int64_t> sample_processors(int64_t p) {
  std::vector<int64_t> s;
  const int64_t n = std::min(p, kReplaySample);
  for (int64_t k = 0; k < n; ++k) s.push_back(n == 1 ? 0 : int64_t(std::llround(double(k) * double(p - 1) / double(n - 1))));
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

void add_aggregate(json& doc, const RunConfig& c, const RunResult& r) {
  if (r.link_hops > kReplayMaxHops)
    throw ConfigError("ppsim view walks every message's route again for its heat map: this run has " + std::to_string(r.link_hops) +
                      " message-hops, more than " + std::to_string(kReplayMaxHops) + "; view a smaller run");
  const Topology& t = physical_topology(c);
  const rules::Machine machine = run_machine(c);
  HeatGrid grid(t);
  std::vector<int64_t> drawn(size_t(r.steps) + 1, 0);  // messages walked per step
  json frames = aggregate_frames(c, r.steps, grid, drawn);
  json drawn_json = json::array();
  for (int64_t s = 1; s <= r.steps; ++s) drawn_json.push_back(drawn[size_t(s)]);
  const std::vector<int64_t> sample = sample_processors(c.topology.p);
  json sample_json = json::array();
  for (int64_t i : sample) {
    const LayoutPoint at = topology_layout(t, machine.node(i));
    json one{{"proc", i}, {"x", at.x}, {"y", at.y}};
    if (!r.buffers.empty()) one["final"] = processor_words(c, r.buffers, i);
    sample_json.push_back(std::move(one));
  }
  doc["aggregate"] = {{"shape", topology_shape(t)},
                      {"bbox", {grid.x0, grid.y0, grid.x1, grid.y1}},
                      {"gx", grid.gx},
                      {"gy", grid.gy},
                      {"frames", std::move(frames)},
                      {"messages_walked", std::move(drawn_json)},
                      {"sample", std::move(sample_json)}};
  doc["buffers"] = buffer_names(c);
  doc["checks"] = checks_json(c, r, sample);
}

}  // namespace

bool replay_in_detail(const RunConfig& c, bool aggregate) {
  if (aggregate || c.topology.p > kReplayDetailProcessors) return false;
  const uint64_t steps = uint64_t(c.algorithm->rounds(c.params)) * uint64_t(std::max(1, c.params.lambda));
  return run_total_words(c) * (steps + 1) <= kReplayDetailWords;
}

json replay_json(const RunConfig& c, const RunResult& r, bool detail) {
  json doc;
  doc["ppsim_view"] = 1;
  doc["title"] = title_of(c);
  doc["mode"] = detail ? "detail" : "aggregate";
  doc["p"] = c.topology.p;
  doc["steps"] = r.steps;
  doc["lambda"] = c.params.lambda;
  doc["verified"] = r.verified;
  doc["mismatches"] = r.mismatches;
  doc["failures"] = c.failures.any();
  doc["detail_limit"] = kReplayDetailProcessors;
  doc["per_step"] = per_step_json(r);
  doc["cost"] = {{"time", r.time},
                 {"formula_time", number_or_null(formula_time(c))},
                 {"formula", c.algorithm->formula_text},
                 {"lower_bound_time", number_or_null(lower_bound_time(c))}};
  if (detail) add_detail(doc, c, r);
  else add_aggregate(doc, c, r);
  return doc;
}

}  // namespace ppsim
