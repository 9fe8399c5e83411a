// Choosing the backend for a run.
#include "ppsim/run.h"

namespace ppsim {

RunResult run_simulation(const RunConfig& c, Backend requested, std::string* notice) {
  if (requested == Backend::cuda)
    throw ConfigError("--backend cuda: this build of ppsim has no CUDA backend yet; use --backend cpu");
  if (requested == Backend::automatic && notice) notice->clear();
  return run_cpu(c);
}

}  // namespace ppsim
