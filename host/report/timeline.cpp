// Timelines of runs and GOAL schedules (timeline.h).
#include "report/timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "loggp/loggp_rounds.h"
#include "loggp/loggp_run.h"
#include "report/arriving_ops.h"
#include "rules/run_rules.h"

namespace ppsim {

namespace {

// The most slices a timeline holds: beyond, it would not open in a viewer.
constexpr size_t kMaxSlices = size_t(1) << 22;

void check_size(size_t slices) {
  if (slices > kMaxSlices)
    throw ConfigError("the timeline would hold more than " + std::to_string(kMaxSlices) +
                      " slices: keep fewer processors (--timeline-processors) or time a smaller run");
}

// The LogGP engine's recorder: the kept processors' intervals, and their messages.
class Recorder final : public loggp::Recorder {
 public:
  Recorder(Timeline& t, int cpus, int nics) : t_(t), cpus_(cpus) {
    t_.tracks.clear();
    for (int k = 0; k < cpus; ++k) t_.tracks.push_back(cpus == 1 ? "cpu" : "cpu " + std::to_string(k));
    for (int k = 0; k < nics; ++k) {
      const std::string n = nics == 1 ? "nic" : "nic " + std::to_string(k);
      t_.tracks.push_back(n + " send");
      t_.tracks.push_back(n + " recv");
    }
  }
  bool watches(uint32_t h) const override { return std::binary_search(t_.kept.begin(), t_.kept.end(), int64_t(h)); }
  void cpu(uint32_t h, uint32_t cpu, const char* kind, uint64_t start, uint64_t dur, uint64_t detour, uint32_t peer, uint64_t bytes) override {
    add({int64_t(h), int(cpu), kind, "cpu", double(start), double(dur), int64_t(peer), kind[0] == 'c' ? -1 : int64_t(bytes)});
    if (detour > 0) add({int64_t(h), int(cpu), "noise", "noise", double(start + dur), double(detour)});
  }
  void nic(uint32_t h, uint32_t nic, bool send, uint64_t start, uint64_t dur) override {
    if (dur >= (uint64_t(1) << 62)) return;  // (a 0-byte message's g - G below zero: nothing to draw)
    add({int64_t(h), cpus_ + 2 * int(nic) + (send ? 0 : 1), send ? "g send" : "g recv", "nic", double(start), double(dur)});
  }
  void sent(uint32_t from, uint32_t cpu, uint32_t to, uint64_t id, uint64_t start, uint64_t leaves, uint64_t arrives, uint64_t) override {
    if (!watches(to)) return;  // (drawn only where the receiver is kept: its L, and the arrow where the sender is too)
    pending_[id] = TimelineMessage{id, int64_t(from), int64_t(to), int(cpu), 0, double(start), double(leaves), double(arrives), 0, watches(from), true};
  }
  void handled(uint32_t, uint32_t cpu, uint32_t, uint64_t id, uint64_t at) override {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    TimelineMessage m = it->second;
    m.to_track = int(cpu);
    m.handled = double(at);
    pending_.erase(it);
    t_.messages.push_back(m);
    check_size(t_.slices.size() + t_.messages.size());
  }

 private:
  void add(const TimelineSlice& s) {
    t_.slices.push_back(s);
    check_size(t_.slices.size() + t_.messages.size());
  }
  Timeline& t_;
  int cpus_;
  std::unordered_map<uint64_t, TimelineMessage> pending_;
};

void sort_slices(Timeline& t) {
  std::stable_sort(t.slices.begin(), t.slices.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
    return std::tie(a.proc, a.track, a.start) < std::tie(b.proc, b.track, b.start);
  });
}

std::string run_title(const RunConfig& c) {
  return std::string(c.algorithm->name) + " (" + operation_name(c.algorithm->op) + ") on " + topology_shape(physical_topology(c)) +
         ", m = " + words_text(c.params.m);
}

Timeline loggp_timeline(const RunConfig& c, const RunResult& r, int64_t limit) {
  Timeline t;
  t.title = run_title(c) + ", LogGP";
  t.unit = "ns";
  t.p = run_processors(c);
  t.kept = timeline_processors(t.p, limit, r.last_processor);
  Recorder rec(t, 1, 1);
  t.end = double(loggp_run_recorded(c, rec).time);
  sort_slices(t);
  return t;
}

// The step model: each kept processor's sends and receives of each step, over the steps' times.
Timeline step_timeline(const RunConfig& c, const RunResult& r, int64_t limit) {
  Timeline t;
  t.title = run_title(c) + (c.params.lambda > 1 ? ", postal model (lambda = " + std::to_string(c.params.lambda) + ")" : ", linear model");
  t.unit = "time units";
  t.p = run_processors(c);
  t.kept = timeline_processors(t.p, limit, -1);
  const rules::Clock clock = run_clock(c);
  // Step j spans [at[j - 1], at[j]): its time under the linear model, 1 under the postal model.
  std::vector<double> at(size_t(r.steps) + 1, 0.0);
  for (int64_t j = 1; j <= r.steps; ++j) {
    const double dt = c.params.lambda > 1 || size_t(j) > r.per_step.size() ? 1.0 : r.per_step[size_t(j - 1)].time;
    at[size_t(j)] = at[size_t(j - 1)] + dt;
  }
  t.end = at.back();
  const size_t rounds = size_t(clock.rounds);
  check_size(t.kept.size() * rounds);
  t.tracks.clear();
  for (int k = 0; k < kMaxOps; ++k) t.tracks.push_back("send " + std::to_string(k));
  for (int k = 0; k < kMaxOps; ++k) t.tracks.push_back("recv " + std::to_string(k));
  loggp_rounds::RoundReader reader(c);
  const rules::Machine machine = run_machine(c);
  ArrivingOps arriving(machine);  // what the failures (--fail) leave: the messages they lose are not drawn
  // A message between two kept processors: its round, ends and occurrence (the n-th from a to b).
  std::map<std::tuple<int, int64_t, int64_t, int>, TimelineMessage> open;
  uint64_t next_id = 1;
  for (int round = 1; round <= clock.rounds; ++round) {
    const int64_t sent = clock.step_of_round(round), arrives = clock.arrives(sent);
    if (sent > r.steps || arrives > r.steps) break;
    std::map<int64_t, int> seen;
    for (int64_t i : t.kept) {  // the sends first: a receive finds its send's arrow
      const StepOps& ops = arriving.of(reader.read(i, round), i, sent, arrives);
      seen.clear();
      for (int k = 0; k < ops.nsend; ++k) {
        const Send& x = ops.send[k];
        t.slices.push_back({i, k, "send", "step", at[size_t(sent - 1)], at[size_t(sent)] - at[size_t(sent - 1)], x.to, x.len});
        const int n = seen[x.to]++;
        if (std::binary_search(t.kept.begin(), t.kept.end(), x.to)) {
          TimelineMessage& m = open[{round, i, int64_t(x.to), n}];
          m.id = next_id++;
          m.from = i;
          m.to = x.to;
          m.from_track = k;
          m.sent = m.leaves = at[size_t(sent - 1)];
          m.arrives = m.handled = at[size_t(arrives - 1)];
          m.from_kept = m.to_kept = true;
          m.to_track = -1;
        }
      }
    }
    for (int64_t i : t.kept) {
      const StepOps& ops = arriving.of(reader.read(i, round), i, sent, arrives);
      seen.clear();
      for (int k = 0; k < ops.nrecv; ++k) {
        const Recv& x = ops.recv[k];
        t.slices.push_back({i, kMaxOps + k, "recv", "step", at[size_t(arrives - 1)], at[size_t(arrives)] - at[size_t(arrives - 1)], x.from, x.len});
        const int n = seen[x.from]++;
        auto it = open.find({round, int64_t(x.from), i, n});
        if (it != open.end()) it->second.to_track = kMaxOps + k;
      }
      check_size(t.slices.size());
    }
    for (auto& [key, m] : open)
      if (m.to_track >= 0) t.messages.push_back(m);
    open.clear();
  }
  sort_slices(t);
  return t;
}

double micros(const Timeline& t, double x) { return t.unit == "ns" ? x / 1000.0 : x; }

}  // namespace

std::vector<int64_t> timeline_processors(int64_t p, int64_t limit, int64_t last) {
  std::vector<int64_t> kept;
  if (p <= limit) {
    for (int64_t i = 0; i < p; ++i) kept.push_back(i);
    return kept;
  }
  const int64_t spread = last >= 0 ? limit - 1 : limit;
  for (int64_t k = 0; k < spread; ++k) kept.push_back(spread == 1 ? 0 : int64_t(std::llround(double(k) * double(p - 1) / double(spread - 1))));
  if (last >= 0) kept.push_back(last);
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

Timeline run_timeline(const RunConfig& c, const RunResult& r, int64_t limit) {
  return c.cost.model == CostModel::loggp ? loggp_timeline(c, r, limit) : step_timeline(c, r, limit);
}

Timeline goal_timeline(const goal::Schedule& s, const LogGPParams& P, const loggp::Effects& fx, int64_t limit, const std::string& title) {
  Timeline t;
  t.title = title;
  t.unit = "ns";
  t.p = s.ranks;
  // The last rank to finish, from a run without the recorder (cheap beside the recorded one).
  const loggp::Result first = goal::simulate(s, P, fx);
  t.kept = timeline_processors(t.p, limit, first.last_host);
  Recorder rec(t, s.cpus, s.nics);
  loggp::Effects watched = fx;
  watched.recorder = &rec;
  t.end = double(goal::simulate(s, P, watched).time);
  sort_slices(t);
  return t;
}

nlohmann::json timeline_json(const Timeline& t) {
  using nlohmann::json;
  json events = json::array();
  std::set<std::pair<int64_t, int>> used;
  for (const TimelineSlice& s : t.slices) used.insert({s.proc, s.track});
  for (const TimelineMessage& m : t.messages) {
    used.insert({m.to, m.to_track});
    if (m.from_kept) used.insert({m.from, m.from_track});
  }
  for (int64_t i : t.kept) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", i}, {"args", {{"name", "processor " + std::to_string(i)}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", i}, {"args", {{"sort_index", i}}}});
  }
  for (const auto& [proc, track] : used)
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", proc}, {"tid", track}, {"args", {{"name", t.tracks.at(size_t(track))}}}});
  for (const TimelineSlice& s : t.slices) {
    json args = json::object();
    if (s.peer >= 0 && std::string(s.cat) != "noise") args[std::string(s.name).find("recv") != std::string::npos ? "from" : "to"] = s.peer;
    if (s.bytes >= 0) args[t.unit == "ns" ? "bytes" : "words"] = s.bytes;
    if (std::string(s.name) == "calc" || std::string(s.name) == "noise") args.erase("to");
    events.push_back({{"ph", "X"},
                      {"name", s.name},
                      {"cat", s.cat},
                      {"pid", s.proc},
                      {"tid", s.track},
                      {"ts", micros(t, s.start)},
                      {"dur", micros(t, s.dur)},
                      {"args", std::move(args)}});
  }
  for (const TimelineMessage& m : t.messages) {
    if (t.unit == "ns")  // the wire: from leaving the sender to arriving, at the receiver
      for (const char* ph : {"b", "e"})
        events.push_back({{"ph", ph},
                          {"name", "L"},
                          {"cat", "wire"},
                          {"id", m.id},
                          {"pid", m.to},
                          {"tid", m.to_track},
                          {"ts", micros(t, ph[0] == 'b' ? m.leaves : m.arrives)},
                          {"args", {{"from", m.from}}}});
    if (!m.from_kept || !m.to_kept) continue;
    events.push_back({{"ph", "s"}, {"name", "message"}, {"cat", "message"}, {"id", m.id}, {"pid", m.from}, {"tid", m.from_track}, {"ts", micros(t, m.sent)}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"name", "message"},
                      {"cat", "message"},
                      {"id", m.id},
                      {"pid", m.to},
                      {"tid", m.to_track},
                      {"ts", micros(t, m.handled)}});
  }
  return json{{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"title", t.title},
                {"time_unit", t.unit == "ns" ? "ns (ts and dur are in us, as the format has them)" : "the model's time unit, drawn as 1 us"},
                {"processors", t.p},
                {"processors_kept", t.kept},
                {"time", t.end}}}};
}

}  // namespace ppsim
