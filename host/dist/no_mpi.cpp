// The ranks in a build without MPI: always one process; a launch of more than one rank is refused.
#include <cstdlib>

#include "dist/world.h"

namespace ppsim::dist {

void start(int*, char***) {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* n = std::getenv(v); n && std::atoi(n) > 1)
      throw ConfigError("this ppsim was built without MPI (scripts/setup.sh installs Open MPI; then rebuild): run it without mpirun");
}
void finish() {}
Collectives* world() { return nullptr; }
int local_rank() { return 0; }
int local_size() { return 1; }
bool cuda_aware() { return false; }
void abort_all(int code) { std::exit(code); }
void send_words(int, int, const std::vector<uint64_t>&) {}
int recv_words(int, int&, std::vector<uint64_t>&) { return 0; }
bool probe_words(int, int) { return false; }

}  // namespace ppsim::dist
