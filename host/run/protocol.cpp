// NCCL's protocols as cost parameters (ppsim/protocol.h; docs/DESIGN.md §3c).
#include "ppsim/protocol.h"

#include "ppsim/preset.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ppsim {

namespace {

// src/graph/tuning.cc: baseLat[algorithm][protocol] and hwLat[link][algorithm][protocol] in
// microseconds, protocols in the order LL, LL128, Simple, algorithms in NCCL's order (tree, ring,
// CollNet direct, CollNet chain, NVLS, NVLS tree); by version. 2.8.3 has tree, ring and one CollNet
// (here in CollNet direct's place); its missing algorithms take the ring's figures.
struct LatencyTable {
  double base[kNcclAlgos][3];
  double step[3][kNcclAlgos][3];  // NVLink, PCI, network
};
constexpr LatencyTable kLatencies[2] = {
    // NCCL 2.20.3
    {{{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     {{{.6, 1.25, 28}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 23}, {0, 0, 23}},
      {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
      {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}}}},
    // NCCL 2.8.3
    {{{4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {3.6, 10.0, 8.4}, {3.6, 10.0, 8.4}},
     {{{.52, 1.25, 28}, {.47, 1.9, 3.4}, {.5, 1.2, 4.0}, {.47, 1.9, 3.4}, {.47, 1.9, 3.4}, {.47, 1.9, 3.4}},
      {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {1.0, 1.9, 5.5}, {1.0, 2.5, 5.7}, {1.0, 2.5, 5.7}, {1.0, 2.5, 5.7}},
      {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}, {5.0, 5.0, 10.7}, {2.7, 4.0, 9.6}, {2.7, 4.0, 9.6}, {2.7, 4.0, 9.6}}}}};

const LatencyTable& latencies_of(NcclVersion v) { return kLatencies[v == NcclVersion::v2_8_3 ? 1 : 0]; }

int protocol_index(Protocol p) { return p == Protocol::ll ? 0 : p == Protocol::ll128 ? 1 : 2; }

// The bandwidth factors of the same model (its caps in GB/s per channel are left out: they bound
// what its channels carry, which the run's links bound here): the ring's LL a quarter (a third on
// one node for the operations that do not combine), LL128 0.92 (0.7 with one rank per node); the
// tree 0.92 of the link, LL a further 1/3.8, LL128 7/9 on one node and 120/128 on several (2.8.3:
// 0.915). The same in both versions but that last figure.
double bandwidth_factor(Protocol p, NcclAlgo a, Operation op, int64_t nodes, int64_t ranks, NcclVersion v) {
  const double ppn = double(ranks) / double(nodes);
  if (a != NcclAlgo::tree && a != NcclAlgo::ring) return 1.0;
  if (a == NcclAlgo::ring) {
    if (p == Protocol::ll) return nodes > 1 || op == Operation::allreduce || op == Operation::reduce ? 1.0 / 4.0 : 1.0 / 3.0;
    if (p == Protocol::ll128) return ppn < 2 ? 0.7 : 0.92;
    return 1.0;
  }
  if (p == Protocol::ll) return 0.92 / 3.8;
  if (p == Protocol::ll128) return 0.92 * (nodes == 1 ? 7.0 / 9.0 : v == NcclVersion::v2_8_3 ? 0.915 : 120.0 / 128.0);
  return 0.92;
}

}  // namespace

bool parse_protocol(const std::string& name, Protocol& out) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (lower == "simple") out = Protocol::simple;
  else if (lower == "ll") out = Protocol::ll;
  else if (lower == "ll128") out = Protocol::ll128;
  else return false;
  return true;
}

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::simple: return "Simple";
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::none: break;
  }
  return "none";
}

bool parse_nccl_version(const std::string& name, NcclVersion& out) {
  if (name == "2.20.3") out = NcclVersion::v2_20_3;
  else if (name == "2.8.3") out = NcclVersion::v2_8_3;
  else return false;
  return true;
}

const char* nccl_version_name(NcclVersion v) { return v == NcclVersion::v2_8_3 ? "2.8.3" : "2.20.3"; }

const char* nccl_algo_name(NcclAlgo a) {
  static const char* names[kNcclAlgos] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"};
  return names[int(a)];
}

NcclAlgo nccl_algo_of_unit(const char* name) {
  const std::string n = name ? name : "";
  const auto ends = [&](const char* tail) { return n.size() >= std::strlen(tail) && n.compare(n.size() - std::strlen(tail), std::string::npos, tail) == 0; };
  if (n == "allreduce_nccl_tree") return NcclAlgo::tree;
  if (ends("_nvls_tree")) return NcclAlgo::nvls_tree;
  if (ends("_nvls")) return NcclAlgo::nvls;
  if (ends("_collnet")) return NcclAlgo::collnet_direct;
  return NcclAlgo::ring;
}

double nccl_base_latency(NcclVersion v, NcclAlgo a, Protocol p) { return latencies_of(v).base[int(a)][protocol_index(p)]; }
double nccl_hw_latency(NcclVersion v, NcclAlgo a, Protocol p, LinkKind link) {
  return latencies_of(v).step[int(link)][int(a)][protocol_index(p)];
}

ProtocolCost nccl_protocol_cost(Protocol p, NcclAlgo a, Operation op, int64_t nodes, int64_t ranks, NcclVersion version) {
  ProtocolCost cost;
  if (p == Protocol::none) return cost;
  cost.base = nccl_base_latency(version, a, p);
  for (int link = 0; link < 3; ++link) cost.latency[link] = nccl_hw_latency(version, a, p, LinkKind(link));
  // 2.8.3 charges an LL step inside a node 1.8 times its latency when there are several nodes.
  if (version == NcclVersion::v2_8_3 && p == Protocol::ll && nodes > 1) {
    cost.latency[int(LinkKind::nvlink)] *= 1.8;
    cost.latency[int(LinkKind::pci)] *= 1.8;
  }
  cost.bandwidth = bandwidth_factor(p, a, op, std::max<int64_t>(1, nodes), std::max<int64_t>(1, ranks), version);
  return cost;
}

double nccl_nvlink_GBps(NcclVersion version, int sm, int64_t links) {
  // src/graph/topo.h: 2.20.3's SM80_NVLINK_BW 20.0 and SM90_NVLINK_BW 20.6; 2.8.3's
  // SM80_NVLINK_WIDTH 21.0 for every GPU from sm 80, and tuning.cc's cap of 235 GB/s on sm 80.
  if (version == NcclVersion::v2_8_3) return std::min(21.0 * double(links), sm == 80 ? 235.0 : 1e300);
  return (sm >= 90 ? 20.6 : 20.0) * double(links);
}

LinkKind link_class_kind(const Topology& machine, int k) {
  if (machine.kind != TopologyKind::cluster && machine.kind != TopologyKind::cluster_fattree) return LinkKind::net;
  const std::string name = topology_link_class_name(machine, k);
  return name == "nvlink" ? LinkKind::nvlink : name == "pcie" ? LinkKind::pci : LinkKind::net;
}

void apply_protocol(RunConfig& c, Protocol p) {
  c.protocol = int8_t(p);
  if (p == Protocol::none) return;
  const Topology& machine = physical_topology(c);
  const bool cluster = machine.kind == TopologyKind::cluster || machine.kind == TopologyKind::cluster_fattree;
  const int64_t nodes = cluster ? machine.dims[0] : machine.p;
  const NcclAlgo algo = nccl_algo_of_unit(c.algorithm ? c.algorithm->name : nullptr);
  const NcclVersion version = NcclVersion(c.nccl_version);
  const ProtocolCost pc = nccl_protocol_cost(p, algo, c.algorithm ? c.algorithm->op : Operation::allreduce, nodes, machine.p, version);
  const double ts = c.cost.ts;
  double least = pc.latency[int(LinkKind::net)];
  for (int k = 0; k < topology_link_class_count(machine); ++k) {
    const double latency = pc.latency[int(link_class_kind(machine, k))];
    least = std::min(least, latency);
    c.cost.ts_class[k] = c.cost.ts_of_class(k) + latency;  // (a class's own latency, --lat-class, kept)
    c.cost.ts_class_set |= 1u << k;
    if ((c.cost.tw_class_set >> k) & 1u) c.cost.tw_class[k] /= pc.bandwidth;
    // A preset's NVLink at the rate NCCL's model gives its links, not the line rate.
    if (!c.units.preset.empty() && link_class_kind(machine, k) == LinkKind::nvlink && ((c.cost.tw_class_set >> k) & 1u))
      c.cost.tw_class[k] /= preset_nvlink_share(c.units.preset, version);
  }
  c.cost.tw /= pc.bandwidth;
  c.cost.ts = ts + least;
  c.base_latency = pc.base;
}

}  // namespace ppsim
