// NCCL's CollNet (direct) all-gather: the network's SHARP tree gathers (switch_tree.h). Accelerator
// g of every node sends its block up rail rail(g)'s tree (stages 1 .. L), every switch gathers its
// children's blocks and the root's whole set comes back down (L + 1 .. 2L), so accelerator g holds
// block g of every node; it sends them to the other G - 1 accelerators of its node over NVLink
// (stage 2L + 1). On one node only that last stage: every accelerator sends its block to the G - 1
// others. Pipelined in S segments (--segments): S + 2L steps (S on one node).
// Ports: G (its block up and G - 1 sets out in one step); the switches have a port per link.
#pragma once
#include "algorithms/switch_tree.h"

namespace ppsim {

struct AllgatherCollnet : SharpTreeUnit<1, 1> {  // stages: 1 on one node, else 2L + 1
  static constexpr const char* name = "allgather_collnet";
  static constexpr const char* description =
      "NCCL's CollNet (direct): the network's SHARP tree gathers block g of every node for accelerator g, which sends them to its "
      "node's other accelerators over NVLink; --segments pipeline; G ports";
  static constexpr const char* formula_text = "S + 2L steps (one node: S)";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::cluster) | topo_bit(TopologyKind::cluster_fattree);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kSwitchAgents;
  static constexpr int sends_per_step = 8;

  static const char* rejects(const AlgoParams& a) {
    return switch_unit_rejects(a, name, true);
  }
  static double formula(const AlgoParams&, const CostParams&) { return no_formula(); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ClusterNet net = ClusterNet::of(a);
    if (id >= net.p) {
      if (net.N > 1) sharp_tree_ops(net, a, id, round, 1, true, out);
      return;
    }
    if (net.N > 1) sharp_tree_ops(net, a, id, round, 1, true, out);
    const int64_t first = id / net.G * net.G, g = id % net.G, s = segment_in(a, round, stages(a));
    if (s < 0) return;
    // Block g of every node (one node: my own block), out to the others; theirs in.
    const int64_t count = net.N < 2 ? 1 : net.N, base = net.N < 2 ? first * a.m : 0;
    for (int64_t h = 0; h < net.G; ++h) {
      if (h == g) continue;
      out.add_send_strided(first + h, kData, base + g * a.m + segment_offset(a, s), segment_words(a, s), net.G * a.m, count);
      out.add_recv_strided(first + h, kData, base + h * a.m + segment_offset(a, s), segment_words(a, s), net.G * a.m, count, RecvMode::copy);
    }
  }
};

}  // namespace ppsim
