// NCCL's NVLS all-gather: the node's NVSwitch multicasts. Every accelerator sends (a segment of)
// its block to the NVSwitch once, and the switch sends the node's G blocks to every accelerator,
// which receives them once (stages 1 and 2; S + 1 steps).
// On N > 1 nodes the network's SHARP tree gathers instead of folding (switch_tree.h): accelerator
// g of every node sends its block up rail rail(g)'s tree (stages 1 .. L), each switch gathers its
// children's blocks and the root's whole set comes back down (L + 1 .. 2L), so accelerator g
// holds block g of every node; it hands them to the NVSwitch (stage 2L + 1), which multicasts all
// p blocks to the node (stage 2L + 2): S + 2L + 1 steps.
// One node: T = (S + 1) t_s + t_w m/S + t_w G m (S | m; the first step carries a segment up, each
// later one a multicast of G segments, every message over one NVLink link alone).
// Ports: 2 (an accelerator sends its block up and the gathered blocks to the NVSwitch in one step).
#pragma once
#include "algorithms/switch_tree.h"

namespace ppsim {

struct AllgatherNvls : SharpTreeUnit<2, 2> {  // stages: 2 on one node, else 2L + 2
  static constexpr const char* name = "allgather_nvls";
  static constexpr const char* description =
      "NCCL's NVLS: each accelerator sends its block to the node's NVSwitch once, which multicasts the node's blocks; between nodes "
      "the network's SHARP tree gathers and returns every rail's blocks; --segments pipeline; 2 ports";
  static constexpr const char* formula_text = "one node: (S + 1) t_s + t_w m/S + t_w G m (S | m); N > 1: S + 2L + 1 steps";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::cluster) | topo_bit(TopologyKind::cluster_fattree);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kSwitchAgents;
  static constexpr int sends_per_step = 2;

  static const char* rejects(const AlgoParams& a) {
    return switch_unit_rejects(a, name, true);
  }

  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.p < 2) return 0;
    const ClusterNet net = ClusterNet::of(a);
    if (net.N > 1) return no_formula();
    const double ts = c.ts_of_class(0) + c.th, tw = c.tw_of_class(0);  // class 0: nvlink, one link
    double t = 0;
    for (int64_t round = 1; round <= rounds(a); ++round) {
      const int64_t up = round - 1, down = round - 2;
      double step = up < a.segments ? ts + tw * double(segment_words(a, up)) : 0.0;
      const double d = down >= 0 ? ts + tw * double(net.G * segment_words(a, down)) : 0.0;
      step = step > d ? step : d;
      t += step;
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ClusterNet net = ClusterNet::of(a);
    const bool one_node = net.N < 2;
    const int bcast = stages(a), gather = bcast - 1;
    if (id < net.p) {
      const int64_t node = id / net.G, g = id % net.G, sw = net.nvswitch(node);
      if (one_node) {
        if (const int64_t s = segment_in(a, round, 1); s >= 0) out.add_send(sw, kData, id * a.m + segment_offset(a, s), segment_words(a, s));
      } else {
        sharp_tree_ops(net, a, id, round, 1, true, out);
        if (const int64_t s = segment_in(a, round, gather); s >= 0)  // block g of every node
          out.add_send_strided(sw, kData, g * a.m + segment_offset(a, s), segment_words(a, s), net.G * a.m, net.N);
      }
      if (const int64_t s = segment_in(a, round, bcast); s >= 0)
        out.add_recv_strided(sw, kData, (one_node ? node * net.G : 0) * a.m + segment_offset(a, s), segment_words(a, s), a.m,
                             one_node ? net.G : net.p, RecvMode::copy);
      return;
    }
    if (id < net.p + net.N) {  // node n's NVSwitch
      const int64_t first = (id - net.p) * net.G;
      if (one_node) {
        if (const int64_t s = segment_in(a, round, 1); s >= 0)
          for (int64_t g = 0; g < net.G; ++g)
            out.add_recv(first + g, kData, (first + g) * a.m + segment_offset(a, s), segment_words(a, s), RecvMode::copy);
      } else if (const int64_t s = segment_in(a, round, gather); s >= 0) {
        for (int64_t g = 0; g < net.G; ++g)
          out.add_recv_strided(first + g, kData, g * a.m + segment_offset(a, s), segment_words(a, s), net.G * a.m, net.N, RecvMode::copy);
      }
      if (const int64_t s = segment_in(a, round, bcast); s >= 0)
        for (int64_t g = 0; g < net.G; ++g)
          out.add_send_strided(first + g, kData, (one_node ? first : 0) * a.m + segment_offset(a, s), segment_words(a, s), a.m,
                               one_node ? net.G : net.p);
      return;
    }
    if (!one_node) sharp_tree_ops(net, a, id, round, 1, true, out);
  }
};

}  // namespace ppsim
