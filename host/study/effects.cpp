// The options that perturb a run (ppsim/noise.h, ppsim/stragglers.h, ppsim/failures.h): --noise-trace,
// --noise, --noise-cosched, --noise-phases, --seed, --stragglers, --straggler-factor, --fail,
// --reroute, read and checked (run_options.h).
#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "loggp/noise.h"
#include "machine/topologies/routing.h"
#include "rules/run_rules.h"
#include "study/run_options.h"

namespace ppsim::study {

namespace {

// --noise periodic:HZ:NS | random:RATE:NS, its numbers read as every option's (parse_real).
NoiseTrace generated_noise(const std::string& spec, uint64_t seed) {
  const size_t a = spec.find(':'), b = a == std::string::npos ? a : spec.find(':', a + 1);
  const std::string kind = spec.substr(0, a);
  if (b == std::string::npos || (kind != "periodic" && kind != "random"))
    throw UsageError("--noise '" + spec + "' is not periodic:HZ:NS or random:RATE:NS");
  const std::string option = "--noise '" + spec + "': " + (kind == "periodic" ? "HZ" : "RATE");
  const double x = parse_real(spec.substr(a + 1, b - a - 1), option), ns = parse_real(spec.substr(b + 1), "--noise '" + spec + "': NS");
  if (!(ns >= 0 && ns < 1e12)) throw UsageError("--noise '" + spec + "': the detour must be from 0 to 1e12 ns");
  if (kind == "periodic") {
    if (ns != std::floor(ns)) throw UsageError("--noise '" + spec + "': the detour is a whole number of ns");
    return loggp::periodic_noise(x, uint64_t(ns));
  }
  return loggp::random_noise(x, ns, seed);
}

// A number inside --fail or --stragglers, read by parse_count (`option` names it in its refusals);
// text that is no number at all gets `usage`, which says what the option takes.
int64_t count_in(const std::string& text, const std::string& option, const std::string& usage) {
  if (text.find_first_not_of("0123456789^") != std::string::npos) throw UsageError(usage);
  return parse_count(text, option);
}

}  // namespace

Failures read_failure_options(const RunOptions& o, const RunConfig& c) {
  Failures f;
  if (o.fail.empty()) {
    if (o.reroute) throw UsageError("--reroute needs --fail");
    return f;
  }
  if (c.cost.model != CostModel::linear) throw UsageError("--fail applies to the step model (--model linear), whose steps it names");
  f.reroute = o.reroute;
  const Topology& t = physical_topology(c);
  const int64_t last = run_clock(c).total_steps(), nodes = topology_nodes(t);
  size_t at = 0;
  while (at <= o.fail.size()) {
    const size_t comma = std::min(o.fail.find(',', at), o.fail.size());
    const std::string item = o.fail.substr(at, comma - at), usage = "--fail '" + item + "' is not proc:P@S or link:A-B@S";
    at = comma + 1;
    const size_t colon = item.find(':'), amp = item.find('@');
    if (colon == std::string::npos || amp == std::string::npos || amp < colon) throw UsageError(usage);
    const std::string kind = item.substr(0, colon), what = item.substr(colon + 1, amp - colon - 1), named = "--fail '" + item + "': ";
    if (kind != "proc" && kind != "link") throw UsageError(usage);
    // Every number as every option's (parse_count): decimal without leading zeros, or B^E.
    const int64_t step = count_in(item.substr(amp + 1), named + "the step", usage);
    if (step < 1 || step > last)
      throw UsageError("--fail '" + item + "': step " + std::to_string(step) + " is not a step of the run (1.." + std::to_string(last) + ")");
    if (kind == "proc") {
      const int64_t proc = count_in(what, named + "the processor", usage);
      if (proc >= c.params.p)
        throw UsageError("--fail '" + item + "': processor " + std::to_string(proc) + " is not on the machine (it has " + std::to_string(c.params.p) +
                         " processors, 0.." + std::to_string(c.params.p - 1) + ")");
      if (f.nproc == kMaxFailures) throw UsageError("--fail takes at most " + std::to_string(kMaxFailures) + " processors");
      f.proc[f.nproc++] = FailedProc{proc, step};
      continue;
    }
    const size_t dash = what.find('-');
    if (dash == std::string::npos) throw UsageError(usage);
    const int64_t a = count_in(what.substr(0, dash), named + "node A", usage), b = count_in(what.substr(dash + 1), named + "node B", usage);
    if (a >= nodes || b >= nodes)
      throw UsageError("--fail '" + item + "': node " + std::to_string(std::max(a, b)) + " is not on the " + topology_shape(t) + " (nodes 0.." +
                       std::to_string(nodes - 1) + ")");
    const int64_t ab = topology_link_between(t, a, b), ba = topology_link_between(t, b, a);
    if (ab < 0 && ba < 0) throw UsageError("--fail '" + item + "': no link joins nodes " + std::to_string(a) + " and " + std::to_string(b) +
                                           " on the " + topology_shape(t));
    if (f.nlink == kMaxFailures) throw UsageError("--fail takes at most " + std::to_string(kMaxFailures) + " links");
    f.link[f.nlink++] = FailedLink{a, b, step, ab, ba};
  }
  return f;
}

std::shared_ptr<const NoiseSpec> read_noise_options(const RunOptions& o, const CostParams& cost) {
  const RunOptions d;
  if (o.noise_trace.empty() && o.noise.empty()) {
    if (o.noise_cosched || o.noise_slowdown || o.noise_phases != d.noise_phases)
      throw UsageError("--noise-cosched, --noise-phases and --noise-slowdown need --noise-trace or --noise");
    return nullptr;
  }
  if (!o.noise_trace.empty() && !o.noise.empty()) throw UsageError("give --noise-trace or --noise, not both");
  if (cost.model != CostModel::loggp)
    throw UsageError(std::string(o.noise.empty() ? "--noise-trace" : "--noise") +
                     " applies to --model loggp (OS noise delays the CPU operations of LogGP's clocks)");
  if (o.noise_phases != "ppsim" && o.noise_phases != "loggopsim") throw UsageError("--noise-phases '" + o.noise_phases + "' is not ppsim or loggopsim");
  NoiseSpec n;
  n.cosched = o.noise_cosched;
  n.seed = uint64_t(o.seed);
  n.phases = o.noise_phases == "loggopsim" ? NoisePhases::loggopsim : NoisePhases::ppsim;
  try {
    n.trace = std::make_shared<const NoiseTrace>(o.noise.empty() ? loggp::read_noise_trace(o.noise_trace, n.phases == NoisePhases::loggopsim)
                                                                 : generated_noise(o.noise, n.seed));
  } catch (const NoiseError& e) {
    throw UsageError(e.what());
  }
  return std::make_shared<const NoiseSpec>(std::move(n));
}

void apply_slowdown_option(const RunOptions& o, std::shared_ptr<const NoiseSpec>& noise) {
  const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  if (!noise || o.noise_slowdown || threads > 1) return;
  NoiseSpec n = *noise;
  n.slowdown = false;
  noise = std::make_shared<const NoiseSpec>(std::move(n));
}

Stragglers read_straggler_options(const RunOptions& o, int64_t p) {
  const RunOptions d;
  Stragglers s;
  if (o.stragglers.empty()) {
    if (o.straggler_factor != d.straggler_factor) throw UsageError("--straggler-factor needs --stragglers");
    return s;
  }
  if (!std::isfinite(o.straggler_factor) || o.straggler_factor < 1 || o.straggler_factor > 1e6)
    throw UsageError("--straggler-factor must be from 1 to 1e6 (got " + real_text(o.straggler_factor) + ")");
  s.factor = o.straggler_factor;
  const std::string& text = o.stragglers;
  if (text.back() == '%') {
    const double pct = parse_real(text.substr(0, text.size() - 1), "--stragglers share");
    if (!(pct > 0 && pct <= 100)) throw UsageError("--stragglers '" + text + "': a share is a percentage above 0 and at most 100");
    s.threshold = pct >= 100 ? UINT64_MAX : uint64_t(pct / 100 * 0x1p64);
    if (s.threshold == 0) s.threshold = 1;
    s.seed = uint64_t(o.seed);
    return s;
  }
  std::vector<int64_t> list;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at), usage = "--stragglers '" + text + "' is not a list of processors (3,17,42) or a share (1.5%)";
    if (item.empty()) throw UsageError(usage + ": an empty item");
    const int64_t proc = count_in(item, "--stragglers", usage);
    if (proc >= p) throw UsageError("--stragglers: processor " + std::to_string(proc) + " is not on the machine (it has " + std::to_string(p) + " processors, 0.." +
                                    std::to_string(p - 1) + ")");
    list.push_back(proc);
    at = comma + 1;
  }
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  if (list.size() > size_t(kMaxListedStragglers))
    throw UsageError("--stragglers lists at most " + std::to_string(kMaxListedStragglers) + " processors (give a share, such as 1%, for more)");
  s.listed = int32_t(list.size());
  std::copy(list.begin(), list.end(), s.list);
  return s;
}

}  // namespace ppsim::study
