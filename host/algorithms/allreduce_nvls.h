// NCCL's NVLS all-reduce (NVLink SHARP): the node's NVSwitch reduces. Every accelerator sends its
// data to the NVSwitch once; the switch folds the G messages in rank order (the first copied, the
// others appended) and multicasts the result, which every accelerator receives once. Pipelined in
// S segments (--segments): segment s goes up in step s + 1 and comes down in step s + 2.
//
// On N > 1 nodes (NVLS with the network's SHARP, as NCCL pairs NVLS with CollNet): the NVSwitch
// returns slice g of each segment to accelerator g (a reduce-scatter), which sends it up rail
// rail(g)'s SHARP tree in the network (switch_tree.h) and gets the whole machine's fold back; it
// hands the slice to the NVSwitch, which multicasts the whole segment to the node. Stages:
//   1 up to the NVSwitch | 2 slice back | 3 .. 2L+2 the SHARP tree | 2L+3 slice to the NVSwitch |
//   2L+4 multicast;  steps S + 1 (one node), S + 2L + 3 (N > 1; L = 1 on rails, n on a fat tree).
// One node: T = (S + 1)(t_s + t_w m/S) + S gamma m/S (S | m; a message crosses one NVLink link,
// every switch link carries one message a step, and the switch combines every word once).
// Ports: an accelerator sends up to 3 messages a step (segment up, slice to the network, slice to
// the NVSwitch) and receives up to 3; the switches have a port per link.
#pragma once
#include "algorithms/switch_tree.h"

namespace ppsim {

struct AllreduceNvls : SharpTreeUnit<2, 4> {  // stages: 2 on one node, else 2L + 4
  static constexpr const char* name = "allreduce_nvls";
  static constexpr const char* description =
      "NCCL's NVLS: each node's NVSwitch folds what its accelerators send (rank order) and multicasts the sum; between nodes each "
      "slice goes through the network's SHARP tree; --segments pipeline; 3 ports";
  static constexpr const char* formula_text = "one node: (S + 1)(t_s + t_w m/S) + gamma m (S | m); N > 1: S + 2L + 3 steps";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::cluster) | topo_bit(TopologyKind::cluster_fattree);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kSwitchAgents;
  static constexpr int sends_per_step = 3;

  static const char* rejects(const AlgoParams& a) {
    return switch_unit_rejects(a, name, true);
  }

  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.p < 2) return 0;
    if (ClusterNet::of(a).N > 1) return no_formula();
    const double nv_ts = c.ts_of_class(0), nv_tw = c.tw_of_class(0);  // class 0: nvlink
    double t = 0;
    for (int64_t round = 1; round <= rounds(a); ++round) {
      const int64_t up = round - 1, down = round - 2;  // the segments in stage 1 and stage 2
      double step = 0;
      if (up < a.segments) step = nv_ts + nv_tw * double(segment_words(a, up)) + c.th + c.gamma * double(segment_words(a, up));
      if (down >= 0) {
        const double d = nv_ts + c.th + nv_tw * double(segment_words(a, down));
        step = step > d ? step : d;
      }
      t += step;
    }
    return t;
  }

  // An accelerator's messages with its NVSwitch: the segment up (stage 1), then with gather > 0
  // slice g back (stage 2) and to the switch again (stage gather); the multicast (stage bcast).
  PPSIM_HD static void member_ops(const ClusterNet& net, const AlgoParams& a, int64_t id, int round, int gather, int bcast, StepOps& out) {
    const int64_t sw = net.nvswitch(id / net.G), g = id % net.G;
    if (const int64_t s = segment_in(a, round, 1); s >= 0) send_segment(a, sw, s, out);
    if (gather > 0) {
      if (const int64_t s = segment_in(a, round, 2); s >= 0 && slice_words(a, s, net.G, g) > 0)
        out.add_recv(sw, kData, slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g), RecvMode::copy);
      if (const int64_t s = segment_in(a, round, gather); s >= 0 && slice_words(a, s, net.G, g) > 0)
        out.add_send(sw, kData, slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g));
    }
    if (const int64_t s = segment_in(a, round, bcast); s >= 0) recv_segment(a, sw, s, out);
  }
  // The NVSwitch of node (id - p): the fold in rank order, the slices, the multicast.
  PPSIM_HD static void switch_ops(const ClusterNet& net, const AlgoParams& a, int64_t id, int round, int gather, int bcast, StepOps& out) {
    const int64_t first = (id - net.p) * net.G;
    if (const int64_t s = segment_in(a, round, 1); s >= 0)
      for (int64_t g = 0; g < net.G; ++g)
        out.add_recv(first + g, kData, segment_offset(a, s), segment_words(a, s), g == 0 ? RecvMode::copy : RecvMode::slot_op_recv);
    if (gather > 0) {
      if (const int64_t s = segment_in(a, round, 2); s >= 0)
        for (int64_t g = 0; g < net.G; ++g)
          if (slice_words(a, s, net.G, g) > 0) out.add_send(first + g, kData, slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g));
      if (const int64_t s = segment_in(a, round, gather); s >= 0)
        for (int64_t g = 0; g < net.G; ++g)
          if (slice_words(a, s, net.G, g) > 0)
            out.add_recv(first + g, kData, slice_offset(a, s, net.G, g), slice_words(a, s, net.G, g), RecvMode::copy);
    }
    if (const int64_t s = segment_in(a, round, bcast); s >= 0)
      for (int64_t g = 0; g < net.G; ++g) send_segment(a, first + g, s, out);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ClusterNet net = ClusterNet::of(a);
    const bool one_node = net.N < 2;
    const int bcast = stages(a), gather = one_node ? 0 : bcast - 1;
    if (id < net.p) {
      member_ops(net, a, id, round, gather, bcast, out);
      if (!one_node) sharp_tree_ops(net, a, id, round, 3, false, out);
    } else if (id < net.p + net.N) {
      switch_ops(net, a, id, round, gather, bcast, out);
    } else if (!one_node) {
      sharp_tree_ops(net, a, id, round, 3, false, out);
    }
  }
};

}  // namespace ppsim
