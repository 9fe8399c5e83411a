// NCCL's CollNet (direct) all-reduce: the network's switches reduce (SHARP). Inside each node the
// accelerators reduce-scatter directly over NVLink (every accelerator sends slice g of a segment
// to accelerator g, which folds the G slices in rank order: stage 1); accelerator g sends its
// slice up rail rail(g)'s SHARP tree (switch_tree.h: stages 2 .. 2L + 1) and gets the whole
// machine's fold back; it sends the slice to the other G - 1 accelerators of its node (stage
// 2L + 2). Pipelined in S segments (--segments). One node: stages 1 and 2 only, no network.
//   steps S + 2L + 1 (N > 1; L = 1 on rails, n on a fat tree), S + 1 on one node.
// Ports: 2G - 1 (G - 1 slices out, one up the tree and G - 1 results out in one step); the
// switches have a port per link.
#pragma once
#include "algorithms/switch_tree.h"

namespace ppsim {

struct AllreduceCollnet : SharpTreeUnit<2, 2> {  // stages: 2 on one node, else 2L + 2
  static constexpr const char* name = "allreduce_collnet";
  static constexpr const char* description =
      "NCCL's CollNet (direct): a reduce-scatter over NVLink in each node, every slice through the network's SHARP tree (its switches "
      "fold in rank order), an all-gather in the node; --segments pipeline; 2G - 1 ports";
  static constexpr const char* formula_text = "S + 2L + 1 steps (one node: S + 1)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::cluster) | topo_bit(TopologyKind::cluster_fattree);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kSwitchAgents;
  static constexpr int sends_per_step = 15;

  static const char* rejects(const AlgoParams& a) {
    return switch_unit_rejects(a, name, true);
  }
  static double formula(const AlgoParams&, const CostParams&) { return no_formula(); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ClusterNet net = ClusterNet::of(a);
    if (id >= net.p) {
      if (net.N > 1) sharp_tree_ops(net, a, id, round, 2, false, out);
      return;
    }
    const int64_t first = id / net.G * net.G, g = id % net.G;
    if (const int64_t s = segment_in(a, round, 1); s >= 0) {  // reduce-scatter: slices out, mine folded in rank order
      for (int64_t h = 0; h < net.G; ++h)
        if (h != g && slice_words(a, s, net.G, h) > 0) out.add_send(first + h, kData, slice_offset(a, s, net.G, h), slice_words(a, s, net.G, h));
      if (slice_words(a, s, net.G, g) > 0) {
        const int64_t off = slice_offset(a, s, net.G, g), w = slice_words(a, s, net.G, g);
        for (int64_t h = g - 1; h >= 0; --h) out.add_recv(first + h, kData, off, w, RecvMode::recv_op_slot);
        for (int64_t h = g + 1; h < net.G; ++h) out.add_recv(first + h, kData, off, w, RecvMode::slot_op_recv);
      }
    }
    if (net.N > 1) sharp_tree_ops(net, a, id, round, 2, false, out);
    if (const int64_t s = segment_in(a, round, stages(a)); s >= 0) {  // all-gather: my slice out, the others in
      if (slice_words(a, s, net.G, g) > 0)
        for (int64_t h = 0; h < net.G; ++h)
          if (h != g) out.add_send(first + h, kData, slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g));
      for (int64_t h = 0; h < net.G; ++h)
        if (h != g && slice_words(a, s, net.G, h) > 0)
          out.add_recv(first + h, kData, slice_offset(a, s, net.G, h), slice_words(a, s, net.G, h), RecvMode::copy);
    }
  }
};

}  // namespace ppsim
