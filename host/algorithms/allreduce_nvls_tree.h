// NCCL's NVLS-tree all-reduce: NVLS inside each node, NCCL's double binary tree between nodes.
// The node's NVSwitch folds the G accelerators' segment (rank order) and returns slice g to
// accelerator g (stages 1 and 2, as allreduce_nvls); accelerator g of every node then all-reduces
// slice g over a binary tree of the N nodes (tree A for even g, tree B for odd g: NcclTree with one
// accelerator per node), reduce going up and the result coming down, pipelined like
// allreduce_nccl_tree (2H stages, H the node tree's height); accelerator g hands the slice to the
// NVSwitch (stage 2H + 3), which multicasts the segment to the node (stage 2H + 4).
//   steps S + 2H + 3 (N > 1; one node: S + 1, as allreduce_nvls).
// The tree folds a child's partial in front of its own (⊕ must be commutative). Ports: up to 8 (in
// one step a relay may send up and down to two children in each tree, its slice to the NVSwitch
// and its segment up).
#pragma once
#include "algorithms/allreduce_nccl_tree.h"
#include "algorithms/allreduce_nvls.h"

namespace ppsim {

struct AllreduceNvlsTree : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_nvls_tree";
  static constexpr const char* description =
      "NCCL's NVLS-tree: each node's NVSwitch folds and returns slice g to accelerator g, a double binary tree of the nodes "
      "all-reduces every slice (half over each tree), the NVSwitch multicasts the result; --segments pipeline; 8 ports";
  static constexpr const char* formula_text = "S + 2H + 3 steps, H = floor(log2(N-1)) + 1 (one node: as allreduce_nvls)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = AllreduceNvls::topologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kSwitchAgents | kCommutativeOnly;
  static constexpr int sends_per_step = 8;

  static const char* rejects(const AlgoParams& a) {
    return switch_unit_rejects(a, name, false);
  }
  PPSIM_HD static NcclTree node_tree(const ClusterNet& net, int b) { return NcclTree{net.N, 1, net.N, b}; }
  PPSIM_HD static int stages(const AlgoParams& a) {
    const ClusterNet net = ClusterNet::of(a);
    return net.N < 2 ? 2 : 2 * node_tree(net, 0).tree_height() + 4;
  }
  static int rounds(const AlgoParams& a) { return switch_unit_rounds(a, stages(a)); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return ClusterNet::of(a).N < 2 ? AllreduceNvls::formula(a, c) : no_formula();
  }

  // The trees' messages of slice g for accelerator `id` (the relay of node id / G), stage 2 + o in
  // tree step o (allreduce_nccl_tree's timing with one accelerator a node). The first half of each
  // segment's slice goes over tree A, the second over tree B, so every rail carries both trees, as
  // NCCL's channels do: a node is interior in one tree and a leaf in the other, and in a step its
  // NIC sends four halves (up and down to two children in one tree, up in the other), two slices,
  // where one tree a rail would have an interior node's NIC send three slices.
  PPSIM_HD static void tree_ops(const ClusterNet& net, const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t g = id % net.G, node = id / net.G;
    for (int b = 0; b < 2; ++b) {
      const NcclTree tree = node_tree(net, b);
      const int64_t hh = tree.tree_height(), h = tree.height(node), d = tree.depth(node), parent = tree.parent(node);
      int64_t kids[3];
      const int nkids = tree.children(node, kids);
      auto rank = [&](int64_t n) { return n * net.G + g; };
      auto each = [&](int64_t o, auto&& f) {  // this tree's half of the segment in tree step o this round, if it has words
        const int64_t s = segment_in(a, round, 2 + int(o));
        if (s < 0) return;
        const int64_t w = slice_words(a, s, net.G, g), first = w / 2, words = b == 0 ? first : w - first;
        if (words > 0) f(slice_offset(a, s, net.G, g) + (b == 0 ? 0 : first), words);
      };
      if (parent >= 0) each(h + 1, [&](int64_t off, int64_t w) { out.add_send(rank(parent), kData, off, w); });
      for (int k = 0; k < nkids; ++k)
        each(tree.height(kids[k]) + 1, [&](int64_t off, int64_t w) { out.add_recv(rank(kids[k]), kData, off, w, RecvMode::recv_op_slot); });
      if (parent >= 0) each(hh + d, [&](int64_t off, int64_t w) { out.add_recv(rank(parent), kData, off, w, RecvMode::copy); });
      each(hh + d + 1, [&](int64_t off, int64_t w) {
        for (int k = 0; k < nkids; ++k) out.add_send(rank(kids[k]), kData, off, w);
      });
    }
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const ClusterNet net = ClusterNet::of(a);
    if (net.N < 2) return AllreduceNvls::ops(a, id, round, out);
    const int bcast = stages(a);
    if (id < net.p) {
      AllreduceNvls::member_ops(net, a, id, round, bcast - 1, bcast, out);
      tree_ops(net, a, id, round, out);
    } else if (id < net.p + net.N) {
      AllreduceNvls::switch_ops(net, a, id, round, bcast - 1, bcast, out);
    }
  }
};

}  // namespace ppsim
