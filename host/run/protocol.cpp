// NCCL's protocols as cost parameters (ppsim/protocol.h; docs/DESIGN.md §3c).
#include "ppsim/protocol.h"

#include "ppsim/preset.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ppsim {

namespace {

// NCCL 2.20.3, src/graph/tuning.cc: baseLat[algorithm][protocol] and hwLat[link][algorithm][protocol]
// in microseconds, protocols in the order LL, LL128, Simple, for its Tree (0) and Ring (1).
constexpr double kBaseLatency[2][3] = {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}};
constexpr double kStepLatency[3][2][3] = {
    {{.6, 1.25, 28}, {.6, 1.9, 3.4}},     // NVLink
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},    // PCI
    {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}}};  // network

int protocol_index(Protocol p) { return p == Protocol::ll ? 0 : p == Protocol::ll128 ? 1 : 2; }

// The bandwidth factors of the same model (its caps in GB/s per channel have no meaning here and are
// left out): the ring's LL a quarter (a third on one node for the operations that do not combine),
// LL128 0.92 (0.7 with one rank per node); the tree 0.92 of the link, LL a further 1/3.8, LL128
// 7/9 on one node and 120/128 on several.
double bandwidth_factor(Protocol p, bool tree, Operation op, int64_t nodes, int64_t ranks) {
  const double ppn = double(ranks) / double(nodes);
  if (!tree) {
    if (p == Protocol::ll) return nodes > 1 || op == Operation::allreduce || op == Operation::reduce ? 1.0 / 4.0 : 1.0 / 3.0;
    if (p == Protocol::ll128) return ppn < 2 ? 0.7 : 0.92;
    return 1.0;
  }
  if (p == Protocol::ll) return 0.92 / 3.8;
  if (p == Protocol::ll128) return 0.92 * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
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

ProtocolCost nccl_protocol_cost(Protocol p, bool tree, Operation op, int64_t nodes, int64_t ranks) {
  ProtocolCost cost;
  if (p == Protocol::none) return cost;
  const int a = tree ? 0 : 1, k = protocol_index(p);
  cost.base = kBaseLatency[a][k];
  for (int link = 0; link < 3; ++link) cost.latency[link] = kStepLatency[link][a][k];
  cost.bandwidth = bandwidth_factor(p, tree, op, std::max<int64_t>(1, nodes), std::max<int64_t>(1, ranks));
  return cost;
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
  const bool tree = c.algorithm && std::strcmp(c.algorithm->name, "allreduce_nccl_tree") == 0;
  const ProtocolCost pc = nccl_protocol_cost(p, tree, c.algorithm ? c.algorithm->op : Operation::allreduce, nodes, machine.p);
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
      c.cost.tw_class[k] /= preset_nvlink_share(c.units.preset);
  }
  c.cost.tw /= pc.bandwidth;
  c.cost.ts = ts + least;
  c.base_latency = pc.base;
}

}  // namespace ppsim
