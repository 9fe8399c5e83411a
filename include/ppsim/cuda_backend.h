// The CUDA backend as the host sees it (no CUDA types here). Built only when nvcc is found; in a
// CPU-only build these report that the backend is absent.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ppsim/engine.h"

namespace ppsim {

struct CudaStatus {
  bool built = false;   // this binary has the CUDA backend
  bool usable = false;  // a device answered
  // A GPU is there (a driver answered and counted one) even if it cannot be used; false where the
  // machine has no GPU or no driver at all (and in a build without CUDA).
  bool device_present = false;
  std::string why;     // when not usable: the reason, one line
  std::string device;  // name of device 0
  uint64_t free_bytes = 0, total_bytes = 0;
};

CudaStatus cuda_status();

// "no usable CUDA device (WHY)", and the one line --backend cuda is refused with where the backend
// is not usable (that, or the reason a build has no CUDA backend).
std::string no_usable_cuda_device(const CudaStatus& s);
std::string cuda_backend_refusal(const CudaStatus& s);

// Runs c on device 0: every round a sequence of kernels over the same per-processor step code the
// CPU backend runs. Throws ConfigError (no device, not enough device memory), ScheduleError (with
// the CPU backend's wording; device memory that ran out after the run's check is a ConfigError
// too), or CudaError (another failed CUDA call: the error and the call; file and line in where()).
RunResult run_cuda(const RunConfig& c);

// A rank of a sweep spread over MPI ranks: every later run_cuda of this process (on any thread)
// runs on device local_rank % devices, so that a node's ranks share out its devices. (A run split
// across ranks takes its rank's device itself.)
void cuda_use_rank_device(int local_rank);

// The CUDA backend's rounds (cuda/rounds.h) with every kernel body run on the host, one index at a
// time, and std:: scans for CUB's. Same results and errors as run_cuda; backend "cuda-host". For
// checking the device logic where there is no GPU (tests, CI). host_waits, when given, receives
// the number of times the run read results back (on a device: waited for the stream). lanes > 1
// runs the rounds that the device gives a warp or a block per processor with that many threads
// per processor, meeting at the same barriers (slow: for small runs).
RunResult run_device_rounds_on_host(const RunConfig& c, int64_t* host_waits = nullptr, int lanes = 1);

// The same, with a memory budget and what the run took: the executor refuses the run, as the device
// does, when the bytes it computes before allocating (required_bytes) do not fit in what is left
// of budget_bytes (0: no limit); peak_bytes is the most its arrays held at once. team_threads > 0
// runs the runs the device gives one thread block whole (few processors, short messages) as that
// many threads running the block's code, meeting at the same barriers.
//
// It also counts what the run would ask of a device (bench/device_proxies.cpp prints them): the
// launches the device executor would make (a kernel for each body pass, three for a scan or
// reduction: the context stored, then CUB's two; one for a memset or a whole-run launch), how many
// of them each step made (step_launches[t - 1]: empty when the whole run was one launch), the
// uploads (each one a wait for the stream today), and the device allocations (each growth of an
// array: a cudaMalloc, and a cudaFree at the end of the run).
// guess_every_round: on a routed topology every round of the pull step guesses that its messages
// cross one link each, whatever the host's sample says, so that runs where they do not check the
// guess and cost the round again (tests). plain = false: a plain run (docs/DESIGN.md §2) takes its
// units' other bodies, as PPSIM_PLAIN=0 does on the device; plain_passes counts the pull passes a
// plain run's bodies made.
struct HostRoundsProbe {
  int lanes = 1;
  int team_threads = 0;
  bool guess_every_round = false;
  bool plain = true;
  int64_t plain_passes = 0;
  uint64_t budget_bytes = 0;
  int64_t host_waits = 0;
  uint64_t required_bytes = 0, live_at_require = 0, peak_bytes = 0;
  int64_t launches = 0, uploads = 0, allocations = 0;
  std::vector<int64_t> step_launches;
};
RunResult run_device_rounds_on_host(const RunConfig& c, HostRoundsProbe& probe);

// The device verification (cuda/verify_bodies.h: the reference's words from ordered tree folds and
// scans, compared where the buffers are), run on the host over the given final buffers: the number
// of words that differ from the reference. Used when RunConfig::keep_buffers is false.
int64_t device_mismatches_on_host(const RunConfig& c, std::vector<std::vector<uint64_t>> buffers);

// Device-to-device copy bandwidth of device 0 in bytes per second (a timed cudaMemcpy of
// `bytes` bytes, best of a few runs); 0 when no device is usable.
double cuda_copy_bandwidth(uint64_t bytes);

// A CUDA call that failed: what() names the error and the call; where() the source file and line
// (kept for a bug report, never part of the message a user reads).
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, std::string where) : std::runtime_error(what), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace ppsim
