// NCCL's protocols as cost parameters (--protocol; docs/DESIGN.md §3c). The figures are those of
// NCCL's tuning model, src/graph/tuning.cc of NVIDIA/nccl, in the version --nccl-version names
// (2.20.3 at b6475625 by default, or 2.8.3 at 920dbe5b): per protocol and algorithm, a base latency
// paid once per operation, a latency per step that depends on the kind of link crossed (NVLink,
// PCI, network), and a bandwidth factor.
#pragma once
#include <string>

#include "ppsim/config.h"

namespace ppsim {

enum class Protocol : int8_t { none, simple, ll, ll128 };

bool parse_protocol(const std::string& name, Protocol& out);  // simple, ll, ll128 (any case)
const char* protocol_name(Protocol p);                         // "Simple", "LL", "LL128"; "none"

enum class LinkKind : int8_t { nvlink, pci, net };

// The NCCL versions whose tuning model is implemented (RunConfig::nccl_version holds one).
enum class NcclVersion : int8_t { v2_20_3, v2_8_3 };
bool parse_nccl_version(const std::string& name, NcclVersion& out);  // "2.20.3", "2.8.3"
const char* nccl_version_name(NcclVersion v);                        // "2.20.3", "2.8.3"
inline constexpr const char* kNcclVersionNames = "2.20.3 (default), 2.8.3";

// NCCL's algorithms, in its order (src/include/device.h).
enum class NcclAlgo : int8_t { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree };
inline constexpr int kNcclAlgos = 6;
const char* nccl_algo_name(NcclAlgo a);  // "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"
// The algorithm of NCCL a registered unit runs (by its name: the NCCL tree, NVLS, NVLS-tree and
// CollNet units; the ring for every other).
NcclAlgo nccl_algo_of_unit(const char* name);

// The model's latencies in µs: baseLat, paid once an operation, and hwLat, paid a step over a link
// of that kind, of algorithm a and protocol p. An algorithm the version does not have (2.8.3: NVLS,
// and CollNet's chain) takes the ring's figures.
double nccl_base_latency(NcclVersion v, NcclAlgo a, Protocol p);
double nccl_hw_latency(NcclVersion v, NcclAlgo a, Protocol p, LinkKind link);

// What a protocol costs for one algorithm of NCCL on a machine of `nodes` nodes of `ranks / nodes`
// ranks: microseconds, and the fraction of a link's bandwidth the protocol delivers (the ring's
// and the tree's factors; none for the others).
struct ProtocolCost {
  double base = 0;                 // once per operation
  double latency[3] = {0, 0, 0};   // per step, by LinkKind
  double bandwidth = 1;            // t_w is divided by it
};
ProtocolCost nccl_protocol_cost(Protocol p, NcclAlgo a, Operation op, int64_t nodes, int64_t ranks,
                                NcclVersion version = NcclVersion::v2_20_3);
// What NCCL's topology model takes an accelerator's NVLink to carry in all, GB/s: its links times
// the per-link figure of the version and GPU (sm 80: A100, 90: H100/H200), within the version's cap
// on a GPU's bus bandwidth (2.8.3: 235 GB/s on A100).
double nccl_nvlink_GBps(NcclVersion version, int sm, int64_t links);

// The kind of link a class of the machine's links is: nvlink and pcie on the two-level clusters,
// the network everywhere else.
LinkKind link_class_kind(const Topology& machine, int k);

// Puts protocol p into c (algorithm and topology chosen, --tw-class read): every link class's
// startup becomes t_s + the protocol's latency for its kind (a message pays the slowest on its
// route), t_w and every class's per-word time are divided by the bandwidth factor, c.cost.ts
// becomes t_s + the smallest latency of the machine's classes (what the closed forms and the lower
// bounds charge), and c.base_latency the base latency, which the run adds to its time once.
void apply_protocol(RunConfig& c, Protocol p);

}  // namespace ppsim
