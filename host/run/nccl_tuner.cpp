// NCCL's own choice (ppsim/nccl_tuner.h; docs/DESIGN.md §3c). The figures are those of NVIDIA/nccl
// at the version named: 2.20.3 (b6475625) src/graph/tuning.cc, src/graph/search.cc and
// src/enqueue.cc; 2.8.3 (920dbe5b) the same files. Where a rule of theirs needs what only a real
// machine's topology holds, the preset's shape stands for it, as the comments say.
#include "ppsim/nccl_tuner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ppsim {

namespace {

constexpr int kTree = int(NcclAlgo::tree), kRing = int(NcclAlgo::ring), kCollnetDirect = int(NcclAlgo::collnet_direct),
              kCollnetChain = int(NcclAlgo::collnet_chain), kNvls = int(NcclAlgo::nvls), kNvlsTree = int(NcclAlgo::nvls_tree);
constexpr int kMaxSearchChannels = 16;  // MAXCHANNELS / 2: a search's most channels
constexpr int kMaxCommChannels = 32;       // MAXCHANNELS

// src/graph/search.cc: the per-channel bandwidths the search tries, highest first. 2.20.3 keeps
// one list inside a node and one across nodes, each also for sm 90; 2.8.3 one list for all.
const std::vector<double>& speeds(NcclVersion v, int sm, bool inter) {
  static const std::vector<double> intra20 = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
  static const std::vector<double> inter20 = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                              7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  static const std::vector<double> intra90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0};
  static const std::vector<double> inter90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12};
  static const std::vector<double> all8 = {42.0, 30.0, 24.0, 21.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12};
  if (v == NcclVersion::v2_8_3) return all8;
  if (sm >= 90) return inter ? inter90 : intra90;
  return inter ? inter20 : intra20;
}

// The highest speed of the list at or below `most`.
double speed_at_most(const std::vector<double>& list, double most) {
  for (double s : list)
    if (s <= most) return s;
  return list.back();
}

// The search on a preset's node (the ring's and the tree's graphs). One node: each channel runs
// through every accelerator's NVLink, so there are as many channels at the highest speed as the
// NVLink (as NCCL's model rates it) carries, at most 16. Several nodes: a channel enters and
// leaves a node by a NIC (the rails align accelerators and NICs), so a channel's speed is at most
// a NIC's and the NICs' path (PCIe); a node of K NICs runs K channels (at most 16) and their
// speeds together fit the NVLink. Then ncclTopoDupChannels: a fast graph doubles its channels at
// half the speed (2.20.3: not on sm 90 below 50 GB/s with more than 4 channels).
NcclGraph search(const MachinePreset& m, int64_t nodes, NcclVersion v) {
  const double nvlink = nccl_nvlink_GBps(v, m.sm, m.nvlink_links);
  NcclGraph g;
  if (nodes <= 1) {
    g.bw_intra = speed_at_most(speeds(v, m.sm, false), nvlink);
    g.channels = std::min<int>(kMaxSearchChannels, std::max(1, int(nvlink / g.bw_intra)));
  } else {
    g.channels = int(std::min<int64_t>(kMaxSearchChannels, m.nics));
    const double nic = m.nic_Gbps / 8.0;
    g.bw_intra = speed_at_most(speeds(v, m.sm, true), std::min({nic, m.pcie_GBps, nvlink / g.channels}));
  }
  g.bw_inter = g.bw_intra;
  const bool dup = v == NcclVersion::v2_8_3 ? g.bw_intra >= 25.0 : g.bw_intra >= 25.0 && !(m.sm > 80 && g.bw_intra < 50.0 && g.channels > 4);
  if (dup) {
    const int doubled = std::min(2 * g.channels, kMaxSearchChannels);
    const double by = std::ceil(double(doubled) / g.channels);
    g.bw_intra /= by;
    g.bw_inter /= by;
    g.channels = doubled;
  }
  return g;
}

// Protocols in the tuner's order.
constexpr Protocol kProtocols[3] = {Protocol::ll, Protocol::ll128, Protocol::simple};

// The tuner's caps (GB/s): LL's bandwidth by [GPU or CPU][nodes 1, 2, more], and per channel the
// tree's, the ring's LL128 and the tree's LL128, by [GPU][nodes].
struct Caps {
  double ll, tree, ring_ll128, tree_ll128;
};
Caps caps_of(const NcclSystem& s, NcclFunc f) {
  const int n = s.nodes <= 2 ? int(s.nodes) - 1 : 2;
  const int gpu = s.sm >= 90 ? 2 : s.sm >= 80 ? 1 : 0;
  const int row = s.nodes == 1 ? gpu : s.amd_cpu ? 1 : 0;
  static const double ll[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
  if (s.version == NcclVersion::v2_8_3) {
    static const double tree8[2][3] = {{26.5, 18.5, 10.0}, {24.0, 22.5, 16.0}};
    static const double ll128_8[5] = {18.8, 12.0, 18.3, 15.2, 16.9};  // by collective
    const double ll128 = ll128_8[int(f)];
    return {ll[std::min(row, 1)][n], tree8[s.sm == 80 ? 1 : 0][n], ll128, ll128};
  }
  static const double tree[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
  static const double ring_ll128[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
  static const double tree_ll128[3][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}};
  return {ll[row][n], tree[gpu][n], ring_ll128[gpu][n], tree_ll128[gpu][n]};
}

// The model's algorithm bandwidth (GB/s) of algorithm a and protocol p for collective f.
double model_bandwidth(const NcclSystem& s, NcclFunc f, int a, Protocol p) {
  const NcclGraph& g = s.graph[a];
  if (g.channels == 0) return 0;
  const Caps cap = caps_of(s, f);
  const bool v8 = s.version == NcclVersion::v2_8_3;
  const double ppn = double(s.ranks) / double(s.nodes);
  double bw = s.nodes <= 2 ? g.bw_intra : g.bw_inter;
  if (a == kNvls) bw = std::min(g.bw_intra, g.bw_inter);
  if (a == kNvlsTree) bw = std::min(g.bw_intra, s.nodes <= 2 ? g.bw_inter : g.bw_inter / 2);
  double busbw = g.channels * bw;
  if (v8 && s.sm == 80) busbw = std::min(busbw, 235.0);
  const bool combines = f == NcclFunc::allreduce || f == NcclFunc::reduce;
  if (a == kRing && p == Protocol::ll) busbw = std::min(cap.ll, busbw * (s.nodes > 1 || combines ? 1.0 / 4.0 : 1.0 / 3.0));
  if (a == kRing && p == Protocol::ll128) busbw = std::min(busbw * (ppn < 2 ? 0.7 : 0.92), g.channels * cap.ring_ll128);
  if (a == kTree) busbw = std::min(busbw * .92, g.channels * cap.tree);
  if (a == kTree && p == Protocol::ll) busbw = std::min(busbw / 3.8, cap.ll);
  if (a == kTree && p == Protocol::ll128)
    busbw = std::min(busbw * (s.nodes == 1 ? 7.0 / 9.0 : v8 ? 0.915 : 120.0 / 128.0), g.channels * cap.tree_ll128);
  if ((a == kNvls || a == kNvlsTree) && p != Protocol::simple) return 0;
  const int64_t steps = f == NcclFunc::allreduce ? 2 * (s.ranks - 1) : f == NcclFunc::allgather || f == NcclFunc::reduce_scatter ? s.ranks - 1 : s.ranks;
  const double ratio = a == kRing ? double(s.ranks) / double(steps) : a == kNvls || a == kNvlsTree ? 5.0 / 6.0 : 0.5;
  return busbw * ratio;
}

// The model's latency (µs) of algorithm a and protocol p for collective f.
double model_latency(const NcclSystem& s, NcclFunc f, int a, Protocol p) {
  const bool v8 = s.version == NcclVersion::v2_8_3;
  const int64_t ranks = s.ranks, nodes = s.nodes, local = ranks / nodes;
  // (the presets' accelerators reach each other over NVLink)
  double intra = nccl_hw_latency(s.version, NcclAlgo(a), p, LinkKind::nvlink), inter = nccl_hw_latency(s.version, NcclAlgo(a), p, LinkKind::net);
  if (v8 && nodes > 1 && p == Protocol::ll) intra *= 1.8;
  const double base = nccl_base_latency(s.version, NcclAlgo(a), p);
  const int64_t steps = f == NcclFunc::allreduce ? 2 * (ranks - 1) : f == NcclFunc::allgather || f == NcclFunc::reduce_scatter ? ranks - 1 : ranks;
  const int64_t inter_steps = f == NcclFunc::allreduce ? (v8 ? 2 * (nodes - 1) : nodes > 1 ? 2 * nodes : 0)
                              : f == NcclFunc::allgather || f == NcclFunc::reduce_scatter ? nodes - 1 : nodes;
  const double log_nodes = std::floor(std::log2(double(nodes)));
  switch (NcclAlgo(a)) {
    case NcclAlgo::ring: {
      const double hop = nodes == 1 ? intra : inter;
      if (f == NcclFunc::broadcast || f == NcclFunc::reduce) return base + hop;  // the graphs keep the same channels
      // 2.20.3: a ring between nodes still posts each step to the network (an Intel host 1 µs, an
      // AMD one 2; three times that for Simple).
      if (!v8 && nodes > 1) intra = std::max(intra, (s.amd_cpu ? 2.0 : 1.0) * (p == Protocol::simple ? 3.0 : 1.0));
      return base + double(steps - inter_steps) * intra + double(inter_steps) * inter;
    }
    case NcclAlgo::tree: return base + 2 * (double(local - 1) * intra + log_nodes * inter);
    case NcclAlgo::collnet_direct: return base + 2 * (std::min<int64_t>(1, local - 1) * intra + double(local - 1) * 0.4) + inter;
    case NcclAlgo::collnet_chain: return base + 2 * double(local - 1) * intra + inter;
    case NcclAlgo::nvls: return intra + (nodes > 1 ? inter : 0);
    case NcclAlgo::nvls_tree: return base + intra + 2 * log_nodes * inter;
  }
  return base;
}

// Whether the tuner weighs algorithm a for collective f on this machine (tuning.cc's and
// enqueue.cc's rules; the presets have no CollNet, and LL128 is on for sm 80 and 90 over NVLink
// with NICs on the accelerators' PCIe switches).
bool weighed(const NcclSystem& s, NcclFunc f, int a, Protocol p) {
  if (f == NcclFunc::broadcast || f == NcclFunc::reduce) return a == kRing;
  if (s.version == NcclVersion::v2_8_3 && f != NcclFunc::allreduce && a != kRing) return false;
  if (a == kCollnetDirect || a == kCollnetChain) return false;
  if ((f == NcclFunc::allgather || f == NcclFunc::reduce_scatter) && a != kRing && !(a == kNvls && s.nodes == 1)) return false;
  if (a == kNvls && s.nodes > 1) return false;      // NVLS between nodes needs CollNet
  if (a == kNvlsTree && s.nodes == 1) return false;
  if (p == Protocol::ll128 && !(s.sm == 80 || (s.sm == 90 && s.version == NcclVersion::v2_20_3))) return false;
  return true;
}

// Trees do not follow the model at middle sizes: a factor on their bandwidth by log2(bytes / 64).
double tree_correction(NcclVersion v, Protocol p, int64_t bytes) {
  static const float f20[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  static const float ll128_8[23] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, .92, .92};
  const int64_t units = bytes >> 6;
  int log_size = 0;
  while ((int64_t(1) << (log_size + 1)) <= units) ++log_size;  // log2i: 0 for 0 and 1
  if (log_size >= 23) return 1.0;
  const int k = p == Protocol::ll ? 0 : p == Protocol::ll128 ? 1 : 2;
  return v == NcclVersion::v2_8_3 && k == 1 ? ll128_8[log_size] : f20[k][log_size];
}

// enqueue.cc: the channels a size gets (fewer while the channels' threads would have too little
// to do; NVLS keeps its own) from the threads and the per-thread work of the algorithm and protocol.
int channels_for(const NcclSystem& s, int a, Protocol p, int64_t bytes) {
  if (a == kNvls || a == kNvlsTree) return s.nvls_channels;
  const NcclGraph& ring = s.graph[kRing];
  int threads = 512;  // NCCL_SIMPLE_MAX_NTHREADS, NCCL_LL_MAX_NTHREADS
  if (p == Protocol::ll128) threads = 640;
  if (p == Protocol::simple && a == kRing && ring.bw_intra * ring.channels <= 12.0) threads = 256;  // PCI_BW
  int64_t threshold = p == Protocol::simple ? 64 : 8;
  if (a == kRing && p == Protocol::ll) threshold *= s.ranks;
  int nc = s.coll_channels;
  while (bytes < int64_t(nc) * threads * threshold && nc >= 2) --nc;
  return nc;
}

}  // namespace

NcclSystem nccl_system(const MachinePreset& m, int64_t nodes, NcclVersion version) {
  NcclSystem s;
  s.version = version;
  s.nodes = std::max<int64_t>(1, nodes);
  s.ranks = s.nodes * m.gpus;
  s.sm = m.sm;
  s.amd_cpu = m.amd_cpu;
  s.graph[kRing] = s.graph[kTree] = search(m, s.nodes, version);
  // The tree's search may take a faster speed inside a node, up to twice the network's, where the
  // tree spans at most two nodes (the only case where the tuner reads it).
  if (s.nodes == 2) {
    NcclGraph& t = s.graph[kTree];
    const double nvlink = nccl_nvlink_GBps(version, m.sm, m.nvlink_links);
    t.bw_intra = std::max(t.bw_intra, speed_at_most(speeds(version, m.sm, true), std::min(2 * t.bw_inter, nvlink / t.channels)));
  }
  // NVLS (2.20.3, sm 90, an NVSwitch that reduces): one channel an accelerator, each at the
  // highest speed the accelerators' NVLink carries for all of them; between nodes no faster than a
  // NIC.
  if (version == NcclVersion::v2_20_3 && m.nvls && m.sm >= 90) {
    NcclGraph g;
    g.channels = int(m.gpus);
    const double nvlink = nccl_nvlink_GBps(version, m.sm, m.nvlink_links);
    g.bw_intra = speed_at_most(speeds(version, m.sm, s.nodes > 1), nvlink / double(g.channels));
    g.bw_inter = s.nodes > 1 ? std::min(g.bw_intra, speed_at_most(speeds(version, m.sm, true), m.nic_Gbps / 8.0)) : g.bw_intra;
    s.graph[kNvls] = s.graph[kNvlsTree] = g;
    s.nvls_channels = 16;  // NCCL_NVLS_NCHANNELS
  }
  // ncclTopoPostset duplicates the rings once more for the communicator's channels.
  s.coll_channels = std::min(kMaxCommChannels, 2 * s.graph[kRing].channels);
  return s;
}

NcclChoice nccl_choose(const NcclSystem& s, NcclFunc f, int64_t bytes) {
  NcclChoice choice;
  double best = 3600000000.0;
  bool any = false;
  for (int a = 0; a < kNcclAlgos; ++a)
    for (Protocol p : kProtocols) {
      NcclCandidate c{NcclAlgo(a), p, model_latency(s, f, a, p), 0, -1};
      c.bw_GBps = weighed(s, f, a, p) ? model_bandwidth(s, f, a, p) : 0;
      if (c.bw_GBps > 0) {
        double bw = c.bw_GBps;
        if (a == kTree) bw *= tree_correction(s.version, p, bytes);
        double lat = c.latency_us;
        const bool plateau = s.version == NcclVersion::v2_8_3 ? double(bytes) >= double(s.ranks) / 16.0 * 65536.0
                                                              : bytes / (int64_t(s.coll_channels) * s.ranks) >= 64;
        if (a == kRing && p == Protocol::simple && s.nodes > 1 && f == NcclFunc::allreduce && plateau) lat *= s.version == NcclVersion::v2_8_3 || s.sm < 80 ? 1.9 : 1.4;
        c.time_us = lat + double(bytes) / (1000.0 * bw);
        if (c.time_us < best) {
          best = c.time_us;
          choice.algo = c.algo;
          choice.protocol = p;
          any = true;
        }
      }
      choice.candidates.push_back(c);
    }
  if (!any) best = 0;  // (every preset has a ring: unreachable, kept safe)
  choice.time_us = best;
  choice.channels = channels_for(s, int(choice.algo), choice.protocol, bytes);
  return choice;
}

std::string nccl_choice_text(const NcclSystem& s, const NcclChoice& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "NCCL %s's tuner: %s, %s, %d channel%s (its model: %.1f us)", nccl_version_name(s.version), nccl_algo_name(c.algo),
                protocol_name(c.protocol), c.channels, c.channels == 1 ? "" : "s", c.time_us);
  return buf;
}

}  // namespace ppsim
