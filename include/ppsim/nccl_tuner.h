// NCCL's own choice of algorithm, protocol and channels (--algo nccl; docs/DESIGN.md §3c): the
// tuning model of src/graph/tuning.cc and the choice of src/enqueue.cc of NVIDIA/nccl, in the
// version --nccl-version names, on the channels and per-channel bandwidths that NCCL's topology
// search finds on a preset machine (nccl_system: the search's rules for the presets' shape, a
// node of G accelerators on an NVSwitch with K NICs).
#pragma once
#include <string>
#include <vector>

#include "ppsim/preset.h"
#include "ppsim/protocol.h"

namespace ppsim {

// The collectives NCCL tunes, in its order (ncclFunc_t).
enum class NcclFunc : int8_t { broadcast, reduce, allgather, reduce_scatter, allreduce };

// One graph of NCCL's topology search: its channels and each channel's bandwidth inside a node
// and between nodes (GB/s). No channels: the algorithm has no graph on this machine.
struct NcclGraph {
  int channels = 0;
  double bw_intra = 0, bw_inter = 0;
};

// What NCCL's topology search and setup find on `nodes` nodes of a preset.
struct NcclSystem {
  NcclVersion version = NcclVersion::v2_20_3;
  int64_t nodes = 1, ranks = 1;
  int sm = 80;
  bool amd_cpu = false;
  NcclGraph graph[kNcclAlgos];  // by NcclAlgo (CollNet: none, the presets have no SHARP network)
  int coll_channels = 1;        // the communicator's channels (the ring's, duplicated once more)
  int nvls_channels = 0;        // NVLS's (NCCL_NVLS_NCHANNELS, 16), where the NVSwitch reduces
};
NcclSystem nccl_system(const MachinePreset& m, int64_t nodes, NcclVersion version);

// One algorithm and protocol as the tuner weighs it for a size: time_us < 0 where it is not
// available.
struct NcclCandidate {
  NcclAlgo algo;
  Protocol protocol;
  double latency_us, bw_GBps, time_us;  // the model's latency, its algorithm bandwidth, and their time
};

// The tuner's pick for one collective of `bytes` (the size nccl-tests prints: per rank for
// all-gather and reduce-scatter as NCCL counts them, nBytes), every candidate it weighed, and the
// channels NCCL's enqueue gives it (fewer for small sizes).
struct NcclChoice {
  NcclAlgo algo = NcclAlgo::ring;
  Protocol protocol = Protocol::simple;
  int channels = 1;
  double time_us = 0;
  std::vector<NcclCandidate> candidates;
};
NcclChoice nccl_choose(const NcclSystem& s, NcclFunc f, int64_t bytes);

// "NCCL 2.20.3's tuner: Ring, LL128, 12 channels (its model: 45.1 us)".
std::string nccl_choice_text(const NcclSystem& s, const NcclChoice& c);

}  // namespace ppsim
