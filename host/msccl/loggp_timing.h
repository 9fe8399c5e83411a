// An MSCCL program timed under LogGP by the event engine of host/goal (docs/DESIGN.md §3b, §3d):
// the program becomes a GOAL schedule in memory, so it is timed exactly as the same schedule
// written to a file would be by `ppsim run --goal`.
#pragma once
#include <cstdint>

#include "goal/goal.h"
#include "msccl/program.h"

namespace ppsim::msccl {

// GPU g is LogGP host g, and its threadblock t runs on CPU t and NIC t of that host (threadblocks
// move data concurrently). A step becomes its receive (when it takes a message), then its send
// (when it passes one on; bytes = cnt · chunk_words · 8), or a calc of 0 ns for cpy, re and nop;
// the step's first operation requires the threadblock's previous step and the step it depends on.
// Message k on connection (from, to, channel) has tag k·nchannels + channel, so receives meet sends
// in FIFO order as in the executor. Throws ConfigError for more than 64 threadblocks on a GPU.
goal::Schedule loggp_schedule(const Program& p, int64_t chunk_words);

// The parameters an MSCCL program is timed with: the run's, with every message eager (S at its
// limit). NCCL's connections carry data through buffers the receiver has already posted, so a
// send never waits for its receive; a rendezvous would also deadlock rings whose threadblocks send
// before they receive.
inline LogGPParams loggp_params(LogGPParams run) {
  run.S = loggp::kMaxParam;
  return run;
}

}  // namespace ppsim::msccl
