// --algo nccl: NCCL's tuner's pick run as ppsim's unit of that algorithm (study/nccl_choice.h).
#include "study/nccl_choice.h"

#include <algorithm>
#include <cmath>

#include "ppsim/algorithm.h"
#include "ppsim/preset.h"

namespace ppsim::study {

bool nccl_func_of(Operation op, NcclFunc& f) {
  switch (op) {
    case Operation::allreduce: f = NcclFunc::allreduce; return true;
    case Operation::allgather: f = NcclFunc::allgather; return true;
    case Operation::reduce_scatter: f = NcclFunc::reduce_scatter; return true;
    case Operation::broadcast: f = NcclFunc::broadcast; return true;
    case Operation::reduce: f = NcclFunc::reduce; return true;
    default: return false;
  }
}

int64_t nccl_bytes(NcclFunc f, int64_t m, int64_t word_bytes, int64_t p) {
  const bool per_rank = f == NcclFunc::allgather || f == NcclFunc::reduce_scatter;
  return m * word_bytes * (per_rank ? p : 1);
}

int64_t nccl_loops(NcclFunc f, NcclAlgo a, Protocol protocol, int64_t channels, int64_t p, int64_t nodes, int64_t bytes) {
  const bool ring = a == NcclAlgo::ring, rooted = f == NcclFunc::broadcast || f == NcclFunc::reduce;
  const int64_t step = int64_t(4) * 1024 * 1024 / 8;  // a Simple buffer's step
  int64_t chunk = ring ? step * (rooted ? 1 : 4) : step;
  if (protocol == Protocol::ll) chunk = 524288 / 8 / 2;
  if (protocol == Protocol::ll128) chunk = 4915200 / 8 / 16 * 15;
  const int64_t c = std::max<int64_t>(1, channels), heads = std::max<int64_t>(1, p / std::max<int64_t>(1, nodes));
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) {
    const int64_t ops = c * heads;  // concurrentOps: every channel's heads
    if (a == NcclAlgo::nvls) {
      chunk = std::min<int64_t>(chunk, 131072);
      if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
      if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
      if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
    } else {
      if (nodes >= 4) chunk = std::min<int64_t>(chunk, 65536);
      if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
      if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
      if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
      if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
    }
    return std::max<int64_t>(1, (bytes + ops * chunk - 1) / (ops * chunk));
  }
  if (a == NcclAlgo::tree && protocol == Protocol::ll128) {
    const double ppn = double(p) / double(std::max<int64_t>(1, nodes));
    const double steps = 1 + std::floor(std::log2(double(std::max<int64_t>(1, nodes)))) + 0.1 * ppn;
    while (double(bytes / (c * chunk)) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
    while (double(bytes / (c * chunk)) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  }
  // The ring's all-gather and reduce-scatter loop over one rank's part; its all-reduce moves p
  // chunks a loop, one a rank.
  const int64_t data = ring && (f == NcclFunc::allgather || f == NcclFunc::reduce_scatter) ? bytes / p : bytes;
  const int64_t per_loop = c * chunk * (ring && f == NcclFunc::allreduce ? p : 1);
  return std::max<int64_t>(1, (data + per_loop - 1) / per_loop);
}

const char* nccl_unit(NcclAlgo a, NcclFunc f) {
  switch (f) {
    case NcclFunc::allreduce:
      switch (a) {
        case NcclAlgo::ring: return "allreduce_nccl_ring";
        case NcclAlgo::tree: return "allreduce_nccl_tree";
        case NcclAlgo::nvls: return "allreduce_nvls";
        case NcclAlgo::nvls_tree: return "allreduce_nvls_tree";
        case NcclAlgo::collnet_direct: return "allreduce_collnet";
        case NcclAlgo::collnet_chain: return nullptr;
      }
      return nullptr;
    case NcclFunc::allgather:
      return a == NcclAlgo::ring ? "allgather_nccl_ring" : a == NcclAlgo::nvls ? "allgather_nvls" : a == NcclAlgo::collnet_direct ? "allgather_collnet" : nullptr;
    case NcclFunc::reduce_scatter: return a == NcclAlgo::ring ? "reduce_scatter_nccl_ring" : nullptr;
    case NcclFunc::broadcast: return a == NcclAlgo::ring ? "broadcast_nccl_ring" : nullptr;
    case NcclFunc::reduce: return a == NcclAlgo::ring ? "reduce_nccl_ring" : nullptr;
  }
  return nullptr;
}

namespace {

const char* protocol_option(Protocol p) { return p == Protocol::ll ? "ll" : p == Protocol::ll128 ? "ll128" : "simple"; }

}  // namespace

RunOptions with_nccl_choice(const RunOptions& o, Operation op, std::string& picked) {
  NcclFunc f;
  if (!nccl_func_of(op, f)) throw UsageError(std::string("--algo nccl: NCCL has no ") + operation_name(op));
  if (o.preset.empty()) throw UsageError("--algo nccl needs --preset: NCCL's tuner reads the machine's NVLink, NICs and accelerators");
  if (!o.protocol.empty()) throw UsageError("--algo nccl picks the protocol too: give --algo nccl or --protocol, not both");
  if (o.model != RunOptions{}.model) throw UsageError("--algo nccl applies to --model linear (NCCL's tuning model is its costs)");
  NcclVersion version;
  if (!parse_nccl_version(o.nccl_version, version)) throw UsageError("--nccl-version '" + o.nccl_version + "' is none of " + kNcclVersionNames);
  // The size: the machine and units alone, as the run will have them.
  RunOptions probe = o;
  probe.algo.clear();
  Backend backend = Backend::automatic;
  const RunConfig machine = build_machine_config(probe, op, backend);
  const MachinePreset& preset = *find_machine_preset(o.preset);
  const NcclSystem system = nccl_system(preset, machine.units.nodes, version);
  const int64_t p = machine.params.p, bytes = nccl_bytes(f, machine.params.m, machine.units.word_bytes, p);
  const NcclChoice choice = nccl_choose(system, f, bytes);
  const char* unit = nccl_unit(choice.algo, f);
  if (!unit)
    throw UsageError("--algo nccl: NCCL's tuner picks " + std::string(nccl_algo_name(choice.algo)) + " for this " + operation_name(op) +
                     ", which ppsim does not have: give --algo");
  RunOptions r = o;
  r.algo = unit;
  r.protocol = protocol_option(choice.protocol);
  const AlgorithmInfo* a = find_algorithm(unit);
  const bool ring = choice.algo == NcclAlgo::ring, tree = choice.algo == NcclAlgo::tree;
  const int64_t loops = nccl_loops(f, choice.algo, choice.protocol, choice.channels, p, machine.units.nodes, bytes);
  r.channels = 1;
  if (ring) r.channels = choice.channels;
  // NCCL's trees: a pair a channel. ppsim's tree unit puts each pair's heads on accelerators of
  // their own, so it runs as many pairs as half a node's accelerators (every rail carries a tree A
  // and a tree B), each segment one of NCCL's chunks.
  const int64_t g = machine.params.node_size >= 1 ? machine.params.node_size : 1;
  if (tree) r.channels = int(std::max<int64_t>(1, std::min<int64_t>(choice.channels, g / 2)));
  r.ports = std::to_string(std::max<int64_t>(tree ? 4 * r.channels + 4 : r.channels, a->sends_per_step));
  if (r.segments <= 1) {
    r.segments = tree ? loops * choice.channels : loops;
    // (a segment carries a word at least; the tree has one for each of its 2C trees)
    r.segments = std::max<int64_t>(std::min<int64_t>(r.segments, machine.params.m), tree ? 2 * r.channels : 1);
  }
  picked = nccl_choice_text(system, choice);
  return r;
}

}  // namespace ppsim::study
