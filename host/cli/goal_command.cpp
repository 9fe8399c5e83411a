// GOAL schedules in and out (docs/DESIGN.md §3b):
//   ppsim goal ...            writes an algorithm's rounds as a GOAL schedule (same options as run)
//   ppsim run --goal FILE     times a GOAL schedule under LogGP with LogGOPSim's rules
#include "goal_command.h"

#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "commands.h"
#include "goal/goal.h"
#include "goal/goal_writer.h"
#include "loggp/loggp_run.h"
#include "output_file.h"
#include "timeline_output.h"
#include "ppsim/report.h"

namespace ppsim::cli {

namespace {

// The schedule's sends, receives and calcs: shape by shape where it is compact (Schedule::compact).
void count_types(const goal::Schedule& s, uint64_t (&count)[3]) {
  if (!s.compacted) {
    for (uint32_t i = 0; i < s.size(); ++i) ++count[s.type(i) - loggp::kSend];
    return;
  }
  std::vector<uint64_t> per_shape(s.shapes.size(), 0);
  for (const uint32_t w : s.narrow) ++per_shape[w >> s.peer_bits];
  for (size_t k = 0; k < per_shape.size(); ++k) count[s.shapes[k].type - loggp::kSend] += per_shape[k];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json loggp_json(const LogGPParams& g) {
  return {{"model", "loggp"}, {"L", g.L}, {"o", g.o}, {"g", g.g}, {"G", g.G}, {"O", g.O}, {"S", g.S}};
}

std::string loggp_text(const LogGPParams& g) {
  return "LogGP L=" + std::to_string(g.L) + " o=" + std::to_string(g.o) + " g=" + std::to_string(g.g) + " G=" + std::to_string(g.G) +
         " O=" + std::to_string(g.O) + " S=" + std::to_string(g.S) + " (ns, bytes)";
}

// A stream that only counts what is written, and stops the writer once past `limit` bytes.
class SizeCounter : public std::streambuf {
 public:
  explicit SizeCounter(uint64_t limit) : limit_(limit) { setp(buf_, buf_ + sizeof buf_); }
  struct Over {};  // thrown through the writer when the limit is passed
  uint64_t bytes() const { return counted_ + uint64_t(pptr() - pbase()); }

 protected:
  int_type overflow(int_type ch) override {
    counted_ += uint64_t(pptr() - pbase());
    if (counted_ > limit_) throw Over{};
    setp(buf_, buf_ + sizeof buf_);
    if (!traits_type::eq_int_type(ch, traits_type::eof())) sputc(traits_type::to_char_type(ch));
    return traits_type::not_eof(ch);
  }

 private:
  uint64_t limit_, counted_ = 0;
  char buf_[1 << 14];
};

// The size of c's GOAL text, counted by writing it nowhere; a UsageError as soon as it passes
// `limit` (an export of all-to-all at p = 2^16 would be about 430 GB).
void check_goal_size(const RunConfig& c, uint64_t limit) {
  SizeCounter counter(limit);
  std::ostream sink(&counter);
  sink.exceptions(std::ios::badbit);  // SizeCounter::Over reaches us instead of muting the stream
  try {
    write_goal(c, sink);
  } catch (const SizeCounter::Over&) {
    throw UsageError("--out: the GOAL file would be larger than --max-size " + std::to_string(limit) + " bytes (" +
                     std::to_string(c.params.p) + " ranks of " + c.algorithm->name + "); raise --max-size to write it");
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(e.what());
  }
  if (counter.bytes() > limit)
    throw UsageError("--out: the GOAL file would be " + std::to_string(counter.bytes()) + " bytes, more than --max-size " +
                     std::to_string(limit) + "; raise --max-size to write it");
}

int export_goal(const RunOptions& o, const std::string& out, int64_t max_size) {
  if (out.empty()) throw UsageError("give --out FILE (- for stdout)");
  require_writable(out, "--out");
  Backend backend = Backend::cpu;
  RunConfig c = build_config(o, backend);
  validate_config(c, false);
  check_goal_size(c, uint64_t(max_size));
  try {
    write_output(out, "--out", [&](std::ostream& f) { write_goal(c, f); });
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(e.what());
  }
  return 0;
}

}  // namespace

std::string goal_text(const RunOptions& o) {
  Backend backend = Backend::cpu;
  RunConfig c = build_config(o, backend);
  validate_config(c, false);
  check_goal_size(c, uint64_t{1} << 30);
  std::ostringstream text;
  try {
    write_goal(c, text);
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(e.what());
  }
  return text.str();
}

void check_goal_options(const RunOptions& o, const Command& run) {
  // Everything but the LogGP parameters and the report comes from the file.
  for (const std::string& name : run.given_names()) {
    static const char* const kApply[] = {"--goal",         "--json",           "--model",  "--L",           "--o",
                                         "--g",            "--G",              "--O",      "--S",           "--noise-trace",
                                         "--noise",        "--noise-cosched",  "--noise-phases", "--noise-slowdown", "--seed",
                                         "--stragglers",   "--straggler-factor", "--timeline", "--timeline-processors", "--plot",
                                         "--threads"};
    if (std::find(std::begin(kApply), std::end(kApply), name) != std::end(kApply)) continue;
    throw UsageError(name + " does not apply to --goal (the schedule comes from the file; --L --o --g --G --O --S, the noise and "
                            "straggler options, --threads and --json do)");
  }
  if (o.model != "linear" && o.model != "loggp") throw UsageError("--model '" + o.model + "' is not linear or loggp");
  if (run.given("--model") && o.model != "loggp") throw UsageError("--goal is timed under --model loggp");
}

GoalTiming time_goal_file(const RunOptions& o) {
  GoalTiming t;
  t.params = loggp_params(o);
  const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));  // (0: every core)
  const auto t0 = std::chrono::steady_clock::now();
  try {
    t.schedule = goal::read_file(o.goal, threads);  // (its rank blocks on the run's threads)
  } catch (const goal::ParseError& e) {
    throw UsageError(e.what());
  }
  t.read_seconds = seconds_since(t0);
  CostParams cost;
  cost.model = CostModel::loggp;
  const Stragglers slow = read_straggler_options(o, t.schedule.ranks);
  std::shared_ptr<const NoiseSpec> noise_spec = read_noise_options(o, cost);
  apply_slowdown_option(o, noise_spec);
  const auto t1 = std::chrono::steady_clock::now();
  uint64_t noiseless = 0;
  try {
    std::optional<loggp::Noise> noise;
    if (noise_spec) noise.emplace(*noise_spec, t.schedule.ranks);
    const loggp::Effects fx{noise ? &*noise : nullptr, &slow};
    // A noisy run's noiseless time (its slowdown) is timed beside it on a thread of its own where
    // the run has two, and kept only where the noisy run finishes, as when timed after it; on one
    // thread, only where asked for (apply_slowdown_option).
    auto quiet = [&] { return goal::simulate(t.schedule, t.params, loggp::Effects{nullptr, &slow}).time; };
    std::future<uint64_t> beside;
    if (noise && threads > 1) beside = std::async(std::launch::async, quiet);
    try {
      t.result = goal::simulate(t.schedule, t.params, fx);
    } catch (...) {
      if (beside.valid()) beside.wait();  // (what it met, the noisy run met first)
      throw;
    }
    if (beside.valid()) {
      beside.wait();
      if (t.result.unfinished.empty()) noiseless = beside.get();
    } else if (noise && noise_spec->slowdown && t.result.unfinished.empty()) {
      noiseless = quiet();
    }
    if (t.result.unfinished.empty() && (!o.timeline.empty() || !o.plot.empty()))
      t.timeline = goal_timeline(t.schedule, t.params, fx, o.timeline_processors, "GOAL schedule " + o.goal);
  } catch (const loggp::TimeOverflowError& e) {
    throw ConfigError(o.goal + ": " + e.what());  // exit 2, as for an algorithm: a time that does not fit
  } catch (const loggp::StuckError& e) {
    throw ScheduleError(o.goal + ": the schedule cannot finish: " + e.what());
  } catch (const NoiseError& e) {
    throw UsageError(o.goal + ": " + e.what());
  }
  if (!t.result.unfinished.empty()) throw ScheduleError(o.goal + ": the schedule cannot finish: " + t.result.unfinished);
  t.simulate_seconds = seconds_since(t1);
  count_types(t.schedule, t.count);
  const loggp::Result& r = t.result;
  const goal::Schedule& s = t.schedule;
  t.json = nlohmann::json{{"goal", o.goal},
                          {"ranks", s.ranks},
                          {"operations", s.size()},
                          {"sends", t.count[0]},
                          {"recvs", t.count[1]},
                          {"calcs", t.count[2]},
                          {"dependencies", s.edges()},
                          {"model", loggp_json(t.params)},
                          {"noise", noise_config_json(noise_spec.get())},
                          {"stragglers", stragglers_json(slow, t.schedule.ranks)},
                          {"time", r.time},
                          {"last_rank", r.last_host},
                          {"finish", r.finish.size() <= kReportFinishTimes ? nlohmann::json(r.finish) : nlohmann::json(nullptr)},
                          {"finish_spread", finish_spread_json(r.finish)},
                          {"events", r.events},
                          {"read_seconds", t.read_seconds},
                          {"read_segments", s.segments},
                          {"simulate_seconds", t.simulate_seconds}};
  if (noise_spec)
    t.json["noise_outcome"] = noise_outcome_json(r.time, noise_spec->slowdown ? std::optional<uint64_t>(noiseless) : std::nullopt, r.noise, r.noise_per_host);
  return t;
}

int run_goal_file(const RunOptions& o, const Command& run) {
  check_goal_options(o, run);
  loggp_params(o);
  if (!o.json.empty()) require_writable(o.json, "--json");
  check_timeline_options(o);
  GoalTiming t;
  try {
    t = time_goal_file(o);
  } catch (const ScheduleError& e) {
    std::cerr << "ppsim: error: " << e.what() << "\n";
    return 1;
  }
  if (t.timeline) write_timeline(o, *t.timeline);
  if (!o.json.empty()) write_json(o.json, t.json);
  if (o.json != "-" && o.timeline != "-") {
    const goal::Schedule& s = t.schedule;
    const loggp::Result& r = t.result;
    std::cout << "ppsim: GOAL schedule " << o.goal << ": " << s.ranks << " ranks, " << s.size() << " operations (" << t.count[0]
              << " sends, " << t.count[1] << " receives, " << t.count[2] << " calcs), " << s.edges() << " dependencies\n"
              << "  " << loggp_text(t.params) << "\n"
              << "  time " << r.time << " ns (rank " << r.last_host << " finishes last; finishing times spread over "
              << t.json["finish_spread"] << " ns)\n";
    if (t.json.contains("noise_outcome")) print_noise_text(std::cout, t.json["noise"], t.json["noise_outcome"]);
    if (!t.json["stragglers"].is_null()) print_stragglers_text(std::cout, t.json["stragglers"]);
    if (s.ranks <= 16)
      for (uint32_t h = 0; h < s.ranks; ++h) std::cout << "  rank " << h << ": " << r.finish[h] << "\n";
    std::cout << "  events " << r.events << ", read " << t.read_seconds << " s"
              << (t.schedule.segments > 1 ? " (rank blocks in " + std::to_string(t.schedule.segments) + " parts, a thread each)" : std::string())
              << ", simulated " << t.simulate_seconds << " s\n";
  }
  return 0;
}

void add_goal_options(Command& goal, RunOptions& o) {
  add_run_options(goal, o,
                  {{"--topology", "topology the algorithm is chosen for (GOAL has no topology)"},
                   {"--p", "processors (ranks)"},
                   {"--dims", "mesh/torus extents RxC or RxCxD; fattree KxN; dragonfly AxHxC"},
                   {"--logical", "the topology the algorithm is written for"},
                   {"--logical-dims", "extents of a logical mesh/torus"},
                   {"--map", "identity | gray | snake"},
                   {"--op", "collective operation (see `ppsim list`)"},
                   {"--algo", "algorithm (default: the topology's natural one)"},
                   {"--m", "words per message unit (8 bytes each)"},
                   {"--root", "root of broadcast/reduce/scatter/gather"},
                   {"--n", "scan: number of elements in all"},
                   {"--exclusive", "scan: exclusive prefix"},
                   {"--shift", "shift: distance q"},
                   {"--group-stride", "multicast: members are root + j*stride (mod p)"},
                   {"--group-size", "multicast: number of members (0: all)"},
                   {"--sources", "kbroadcast, kscatter: sources"},
                   {"--radix", "Bruck all-to-all, k-nomial trees: the radix"},
                   {"--segments", "pipelined broadcast: segments"},
                   {"--channels", "NCCL's rings: channels"},
                   {"--inter", "allreduce_hierarchical: the all-reduce between nodes"},
                   {"--ports", "port model (a round may post this many sends)"},
                   {"--combine", "operator (some algorithms depend on it)"}});
}

Command goal_command() {
  struct GoalOptions {
    RunOptions run;
    std::string out;
    int64_t max_size = int64_t{1} << 30;  // bytes: 1 GiB
  };
  auto g = std::make_shared<GoalOptions>();
  Command goal("goal", "write an algorithm's rounds as a GOAL schedule (LogGOPSim's format)");
  add_goal_options(goal, g->run);
  goal.text("--out", g->out, "GOAL file to write (- for stdout)");
  goal.integer("--max-size", g->max_size, "refuse to write a file larger than this many bytes (2^30: 1 GiB)", true, 1);
  goal.run = [g](const Command&) { return export_goal(g->run, g->out, g->max_size); };
  return goal;
}

}  // namespace ppsim::cli
