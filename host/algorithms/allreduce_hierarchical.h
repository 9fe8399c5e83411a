// Hierarchical all-reduce on a two-level cluster: N nodes of G accelerators, ranked node-major
// (G = AlgoParams::node_size, accelerator x of node n is n G + x). The m words are G slices
// (EvenSplit: the first m mod G of ceil(m/G) words, the rest floor; empty ones are not sent), and
//   1. reduce-scatter on each node's ring, steps i = 1..G-1: x passes its partial of slice (x - i)
//      mod G to x + 1 over the NVSwitch and folds x - 1's partial of slice (x - i - 1) mod G in;
//      after it x holds slice x of its node's G vectors;
//   2. between nodes, the all-reduce AlgoParams::inter names (--inter; allreduce_ring by default)
//      runs on slice x among the N accelerators n G + x of one local index: with p' = N, m' = the
//      slice's words, its processor n standing for n G + x and its offsets moved to the slice;
//   3. all-gather on each node's ring, steps i = 1..G-1: x passes slice (x - i + 1) mod G to x + 1
//      and takes slice (x - i) mod G from x - 1.
// The inter algorithm sees N processors that a switch joins (a rail leaf, or the fat tree): the
// fully connected machine. inter_node_refusal (algorithm_unit.h) says which units can run there
// at all, rejects() what this configuration asks of them (p' = 2^d, m' a multiple of p', their own
// limits on every slice); no scratch buffer, no local work. Partials go round a node's ring: ⊕ must
// be commutative.
//   steps = 2 (G - 1) + the inter algorithm's steps at p' = N.
// Closed form (t_h = 0): a step inside a node crosses two NVLink links at load 1; a message between
// nodes crosses PCIe at load 1 and the network at load G/K, the G/K accelerators behind one NIC
// sending at once (K NICs per node). With t_s,nv = t_s(nvlink), t_w,nv = t_w(nvlink), t_s,net the
// largest t_s of pcie and the network's classes, t_w,net = max(t_w(pcie), G/K t_w(network)):
//   T = (G - 1)(2 t_s,nv + (2 t_w,nv + gamma) ceil(m/G)) + T_inter(p' = N, m' = ceil(m/G); t_s,net, t_w,net),
// the largest slice setting every step. Exact on the rails (routes keep to one rail, the spine
// unused) where the inter algorithm's own form is exact on the fully connected machine with one
// send a step and every slice's messages of a step are non-empty (K = G: all of them but the
// largest may be empty); on a fat tree of more than one level routes of one step may meet above
// the leaves and take longer.
//
// The dispatch to the inter algorithm (inter_allreduce_rounds, inter_allreduce_ops) is defined in
// all.h after the list: include this header through all.h.
#pragma once
#include <algorithm>
#include <string>

#include "algorithms/recursive_halving.h"  // EvenSplit

namespace ppsim {

// (PPSIM_HD here: the host compiler warns of a noinline declaration of an inline function; the
// definitions in all.h carry PPSIM_DISPATCH.)
PPSIM_HD inline int inter_allreduce_rounds(const AlgoParams& a, int16_t inter);
PPSIM_HD inline void inter_allreduce_ops(const AlgoParams& a, int16_t inter, int64_t proc, int round, StepOps& out);

struct AllreduceHierarchical : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_hierarchical";
  static constexpr const char* description =
      "reduce-scatter on each node's ring (NVSwitch), the --inter all-reduce (default allreduce_ring) of slice x among the accelerators "
      "x of all nodes, all-gather on each node's ring";
  static constexpr const char* formula_text =
      "(G-1)(2 t_s + (2 t_w + gamma) ceil(m/G)) on nvlink + T_inter(p = N, m = ceil(m/G)) with t_s, t_w the largest of pcie and the "
      "network's classes (network at load G/K)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::cluster) | topo_bit(TopologyKind::cluster_fattree);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly | kComposesAllreduce;

  // The parameters the inter algorithm runs with on slice x: N processors of a fully connected machine.
  PPSIM_HD static AlgoParams between_nodes(const AlgoParams& a, int64_t x) {
    const EvenSplit slices{a.m, a.node_size};
    AlgoParams s = a;
    s.p = a.p / a.node_size;
    s.m = slices.offset(x + 1) - slices.offset(x);
    s.root = 0;
    s.ndims = 0;
    for (int64_t& d : s.dims) d = 0;
    s.node_size = 1;
    s.inter = -1;
    s.postal_g_tab = nullptr;  // tabulated for p, not N (no all-reduce reads it)
    s.postal_g_len = s.postal_steps = 0;
    return s;
  }

  static const char* rejects(const AlgoParams& a) {
    thread_local std::string why;  // names the algorithms and sizes; algorithm_rejects copies it at once
    why = refusal(a);
    return why.empty() ? nullptr : why.c_str();
  }
  static std::string refusal(const AlgoParams& a) {
    const int64_t g = a.node_size;
    if (g < 1 || a.p % g != 0)
      return std::string(name) + " needs the accelerators per node (" + std::to_string(g) + ") to divide p = " + std::to_string(a.p);
    const AlgorithmInfo* inter = inter_algorithm(a);
    if (!inter) return std::string(name) + ": AlgoParams::inter = " + std::to_string(a.inter) + " is no registered algorithm";
    const std::string named = "--inter " + std::string(inter->name), nodes = std::to_string(a.p / g);
    if (const char* why = inter_node_refusal(inter->op, inter->flags, inter->topologies, inter->has_local)) {
      std::string kinds;  // where it does run, when that is the reason
      for (int k = 0; k < kTopologyCount && inter->op == op && !inter->runs_on(TopologyKind::full); ++k)
        if (inter->runs_on(TopologyKind(k)))
          kinds += (kinds.empty() ? " (it runs on " : ", ") + std::string(topology_name(TopologyKind(k)));
      return named + " " + why + (kinds.empty() ? "" : kinds + ")");
    }
    if (inter->needs_pow2() && !is_pow2(a.p / g)) return named + " needs a power-of-two number of nodes (N = " + nodes + ")";
    const AlgoParams largest = between_nodes(a, 0), smallest = between_nodes(a, g - 1);
    for (const AlgoParams& s : {largest, smallest}) {
      if (s.m == 0) continue;  // an empty slice does not take part
      const std::string slice =
          "the slice of " + std::to_string(s.m) + " words (m = " + std::to_string(a.m) + " over G = " + std::to_string(g) + ")";
      if (inter->needs_m_divisible_by_p() && s.m % s.p != 0)
        return named + " splits a slice into N = " + nodes + " equal parts; " + slice + " is no multiple of " + nodes;
      if (inter->scratch_words(s) > 0) return named + " needs a scratch buffer, which the phases around it do not keep";
      if (const char* own = inter->own_limit(s)) return named + " on " + slice + ": " + own;
      if (inter->rounds(s) != inter->rounds(largest))
        return named + " takes a number of steps that depends on m: slices cannot run it in lockstep";
    }
    return "";
  }

  static int rounds(const AlgoParams& a) {
    if (!refusal(a).empty()) return 0;
    return int(2 * (a.node_size - 1)) + inter_algorithm(a)->rounds(between_nodes(a, 0));
  }

  // A message inside a node: two NVLink links at load 1, as one class.
  static CostParams nvlink_cost(const CostParams& c) {
    CostParams k = c;
    k.ts = c.ts_of_class(0);
    k.tw = c.tw_of_class(0);
    k.tw_class_set = k.ts_class_set = 0;
    return k;
  }
  // A message between nodes: its PCIe links at load 1, the network's at load G/K; the network's
  // classes are the rail (ndims 3: NxGxK; a route keeps to its rail) or the fat tree's dims[4] levels.
  static CostParams network_cost(const AlgoParams& a, const CostParams& c) {
    const int last = a.ndims == 4 ? 1 + int(a.dims[4]) : 2;
    const double load = a.dims[2] >= 1 ? double(a.node_size / a.dims[2]) : 1.0;
    CostParams k = c;
    k.ts = c.ts_of_class(1);
    k.tw = c.tw_of_class(1);
    for (int cls = 2; cls <= last; ++cls) {
      k.ts = std::max(k.ts, c.ts_of_class(cls));
      k.tw = std::max(k.tw, load * c.tw_of_class(cls));
    }
    k.tw_class_set = k.ts_class_set = 0;
    return k;
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (!refusal(a).empty()) return no_formula();
    const int64_t g = a.node_size, slice = (a.m + g - 1) / g;
    const CostParams nv = nvlink_cost(c);
    const double intra = double(g - 1) * (largest_message_time(nv, slice, true) + largest_message_time(nv, slice, false));
    return intra + inter_algorithm(a)->formula(between_nodes(a, 0), network_cost(a, c));
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t g = a.node_size, x = id % g, node = id - x;
    const int intra = int(g - 1), inter = inter_allreduce_rounds(between_nodes(a, 0), a.inter);
    const EvenSplit slices{a.m, g};
    if (round <= intra || round > intra + inter) {  // the node's ring: reduce-scatter, or all-gather after the inter phase
      const bool reducing = round <= intra;
      const int i = reducing ? round : round - intra - inter;
      const int64_t out_slice = pos_mod(x - i + (reducing ? 0 : 1), g), in_slice = pos_mod(out_slice - 1, g);
      const int64_t out_words = slices.offset(out_slice + 1) - slices.offset(out_slice);
      const int64_t in_words = slices.offset(in_slice + 1) - slices.offset(in_slice);
      if (out_words > 0) out.add_send(node + pos_mod(x + 1, g), kData, slices.offset(out_slice), out_words);
      if (in_words > 0)
        out.add_recv(node + pos_mod(x - 1, g), kData, slices.offset(in_slice), in_words,
                     reducing ? RecvMode::recv_op_slot : RecvMode::copy);
      return;
    }
    // Between nodes: the inter algorithm's ops for processor n = id / G on slice x, moved to the
    // ranks n G + x and to the slice's words.
    const AlgoParams slice = between_nodes(a, x);
    if (slice.m == 0) return;
    const int first_send = out.nsend, first_recv = out.nrecv;
    inter_allreduce_ops(slice, a.inter, id / g, round - intra, out);
    const int64_t base = slices.offset(x);
    for (int s = first_send; s < out.nsend; ++s) {
      out.send[s].to = out.send[s].to * g + x;
      out.send[s].src_off += base;
    }
    for (int r = first_recv; r < out.nrecv; ++r) {
      out.recv[r].from = out.recv[r].from * g + x;
      for (int k = 0; k < out.recv[r].nact; ++k) out.recv[r].act[k].dst_off += base;
    }
  }
};

}  // namespace ppsim
