// What the options that perturb a run did, as a run's text report prints it (options.h): its
// noise, its stragglers, its failures and their damage.
#include <iomanip>
#include <ostream>
#include <sstream>

#include "options.h"

namespace ppsim::cli {

void print_noise_text(std::ostream& out, const nlohmann::json& config, const nlohmann::json& outcome) {
  std::ostringstream noiseless;
  if (outcome["noiseless_time"].is_null()) {
    noiseless << "noiseless time not timed (one thread: --noise-slowdown times it)";
  } else {
    noiseless << "noiseless time " << outcome["noiseless_time"] << " ns, slowdown ";
    if (outcome["slowdown"].is_number()) noiseless << std::setprecision(4) << outcome["slowdown"].get<double>();
    else noiseless << "-";
  }
  out << "  noise: " << config["source"].get<std::string>() << ", " << config["phases"].get<std::string>() << " phases (seed "
      << config["seed"] << (config["drawn"] == "loggopsim" ? ", drawn as LogGOPSim" : "") << "); " << noiseless.str() << ", detours "
      << outcome["injected_ns"] << " ns in all\n";
}

void print_stragglers_text(std::ostream& out, const nlohmann::json& s) {
  const int64_t count = s["count"].get<int64_t>();
  out << "  stragglers: " << (count == 1 ? "processor" : std::to_string(count) + " processors");
  if (s["processors"].is_array() && s["processors"].size() <= 16) {
    out << (count == 1 ? " " : " (");
    for (size_t i = 0; i < s["processors"].size(); ++i) out << (i ? ", " : "") << s["processors"][i];
    if (count != 1) out << ")";
  }
  out << ", " << s["factor"].get<double>() << " times slower\n";
}

void print_failures_text(std::ostream& out, const nlohmann::json& f) {
  out << "  failures:";
  const char* sep = " ";
  for (const auto& x : f["injected"]) {
    if (x["kind"] == "proc") out << sep << "processor " << x["processor"] << " from step " << x["step"];
    else out << sep << "link " << x["a"] << "-" << x["b"] << " from step " << x["step"];
    sep = ", ";
  }
  out << "; " << f["dropped_messages"] << " messages dropped, " << f["rerouted_messages"] << " rerouted"
      << (f["reroute"].get<bool>() ? "" : " (no --reroute)") << "\n";
  if (f["completed"].is_null()) return;
  if (f["completed"].get<bool>()) {
    out << "  damage: none, the operation completed\n";
    return;
  }
  out << "  damage: " << f["damaged_processors"] << " processors, " << f["missing_words"] << " words missing, " << f["wrong_words"]
      << " wrong; the operation did not complete";
  if (f["damage"].is_array() && f["damage"].size() <= 16) {
    out << " (processor: missing/wrong";
    for (const auto& d : f["damage"]) out << "; " << d["processor"] << ": " << d["missing"] << "/" << d["wrong"];
    out << ")";
  }
  out << "\n";
}

}  // namespace ppsim::cli
