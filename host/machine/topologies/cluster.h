// A two-level machine, as AI training clusters are built: N nodes of G accelerators, p = N*G,
// ranked node-major (accelerator g of node n is processor n*G + g). Inside a node every
// accelerator has one link to the node's all-to-all switch (NVSwitch); between nodes each node
// has K NICs (K divides G, default K = G), and accelerator g's traffic leaves the node through NIC
// g / (G/K), over its own link to it (PCIe). The NICs of all nodes meet in one of two networks:
//
//   cluster           rail-optimized: NIC j of every node sits on rail j's leaf switch, and one
//                     spine switch joins the K rail leaves
//   cluster-fattree   a k-ary n-tree (the fattree unit) whose leaves are the N*K NICs
//
//   node 0           node 1         N = 2 nodes of G = 4 accelerators, K = 2 NICs each (rails)
//   [ NVSwitch ]     [ NVSwitch ]   one all-to-all switch per node
//    |  |  |  |       |  |  |  |
//    0  1  2  3       4  5  6  7    accelerators: 0 and 1 leave node 0 by its NIC 0, 2 and 3 by NIC 1
//    nic0  nic1       nic0  nic1
//   rail 0 leaf: NIC 0 of node 0 and NIC 0 of node 1
//   rail 1 leaf: NIC 1 of node 0 and NIC 1 of node 1
//   spine: the rail 0 and rail 1 leaves
//
// Route: within a node, up to the NVSwitch and down (2 links); between nodes, PCIe to the source
// accelerator's NIC, the network from that NIC to the destination accelerator's NIC, PCIe down
// (rails: the rail leaf when both NICs are on one rail, else leaf, spine, leaf: 4 or 6 links in
// all; fattree: its D-mod-k up/down route over the NICs, 2 + 2l links).
// Links: nvlink 2r (accelerator r -> NVSwitch), 2r+1 (back); pcie 2p + 2r (r -> its NIC), +1 back;
// then the network's links from 4p: rails, NIC i = n*K + j to its leaf 4p + 2i (+1 down) and
// leaf j to the spine 4p + 2NK + 2j (+1 down); fattree, its own ids over the N*K NICs.
// Node ids: accelerators 0..p-1, NVSwitch of node n p + n, NIC i p + N + i, then the network's
// switches (rails: leaf j, then the spine; fattree: its switches in its order).
// Link classes: nvlink, pcie, then rail and spine, or level1 .. levelN of the fat tree.
// Metrics: diameter 2 within one node, else 2 + the network's between two NICs (rails: 4 with
// more than one rail, else 2; fattree 2n); bisection width (N/2) K for an even number of nodes,
// the network links of half the nodes (Table 2-1's count, found by search for small clusters); one
// node or an odd number cut through a node as well, and floor(N/2) K or floor(G/2) is then only a
// lower bound; arc connectivity min(2, K) (an accelerator has NVLink and PCIe; a node hangs on its
// K NICs), 1 where G = 1; links 2p + the network's (rails NK, and K to the spine when K > 1;
// fattree n*NK).
#pragma once
#include "machine/topologies/fattree.h"
#include "machine/topologies/unit.h"
#include "ppsim/cost.h"

namespace ppsim::topo {

// The rail-optimized network between the NICs: rail j's leaf switch, and a spine over the leaves
// where there is more than one rail.
struct RailNetwork {
  static constexpr const char* name = "cluster";
  static constexpr const char* link_classes = "nvlink pcie rail spine";
  static constexpr int most_dims = 3;  // NxGxK
  static constexpr const char* more_usage = "";
  PPSIM_HD static int64_t nics(const Topology& t) { return t.dims[0] * t.dims[2]; }
  PPSIM_HD static int64_t rails(const Topology& t) { return t.dims[2]; }
  PPSIM_HD static int64_t spines(const Topology& t) { return rails(t) > 1 ? 1 : 0; }
  PPSIM_HD static int64_t hops(const Topology& t, int64_t a, int64_t b) { return a % rails(t) == b % rails(t) ? 2 : 4; }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 2 * nics(t) + 2 * rails(t) * spines(t); }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t a, int64_t b, int64_t base, Visit&& visit) {
    const int64_t ja = a % rails(t), jb = b % rails(t);
    visit(base + 2 * a);  // NIC a up to its rail's leaf
    if (ja != jb) {       // across rails: up to the spine and down to the other rail's leaf
      visit(base + 2 * nics(t) + 2 * ja);
      visit(base + 2 * nics(t) + 2 * jb + 1);
    }
    visit(base + 2 * b + 1);  // down to NIC b
  }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) { return id < 2 * nics(t) ? 0 : 1; }
  static int class_count(const Topology&) { return 2; }
  static std::string class_name(const Topology&, int k) { return k == 0 ? "rail" : "spine"; }
  static int64_t switches(const Topology& t) { return rails(t) + spines(t); }
  static int64_t diameter(const Topology& t) { return rails(t) > 1 ? 4 : 2; }
  static int64_t links(const Topology& t) { return nics(t) + rails(t) * spines(t); }
  // Network link id -> its ends, each a NIC index or -1 - a switch index (rail leaves, the spine).
  static bool ends(const Topology& t, int64_t id, int64_t& lower, int64_t& upper) {
    if (id < 0 || id >= link_space(t)) return false;
    if (id < 2 * nics(t)) {
      lower = id / 2;
      upper = -1 - (id / 2) % rails(t);
    } else {
      lower = -1 - (id - 2 * nics(t)) / 2;
      upper = -1 - rails(t);  // the spine
    }
    return true;
  }
  // Switch s's place, given the x of NIC i (x_of) and the NICs' y.
  template <class NicX>
  static LayoutPoint switch_at(const Topology& t, int64_t s, NicX x_of, double y) {
    if (s == rails(t)) return {(x_of(0) + x_of(nics(t) - 1)) / 2, y - 220};
    return {(x_of(s) + x_of(nics(t) - rails(t) + s)) / 2, y - 110};  // under rail s's NICs
  }
  static std::string shape(Topology&, int64_t) { return ""; }
  // Switch agents (kSwitchAgents): switch s is rail s's leaf (s < K) or the spine (s = K).
  // NIC i and switch s are adjacent when s is the leaf of i's rail; two switches when one is the spine.
  PPSIM_HD static bool nic_link(const Topology& t, int64_t nic, int64_t s, int64_t& id) {
    id = 2 * nic;
    return s == nic % rails(t);
  }
  PPSIM_HD static bool switch_link(const Topology& t, int64_t lower, int64_t upper, int64_t& id) {
    id = 2 * nics(t) + 2 * lower;
    return spines(t) == 1 && lower < rails(t) && upper == rails(t);
  }
};

// A k-ary n-tree over the N*K NICs (dims[3] = k, dims[4] = n).
struct FattreeNetwork {
  static constexpr const char* name = "cluster-fattree";
  static constexpr const char* link_classes = "nvlink pcie level1 ... levelN (NIC to leaf switch ... into the top switches)";
  static constexpr int most_dims = 4;  // NxGxKxA
  static constexpr const char* more_usage = "; NxGxKxA: a fat tree of arity A over the NICs";
  PPSIM_HD static Topology tree(const Topology& t) {
    Topology f;
    f.kind = TopologyKind::fattree;
    f.p = t.dims[0] * t.dims[2];
    f.ndims = 2;
    f.dims[0] = t.dims[3];
    f.dims[1] = t.dims[4];
    return f;
  }
  PPSIM_HD static int64_t hops(const Topology& t, int64_t a, int64_t b) { return Fattree::hops(tree(t), a, b); }
  PPSIM_HD static int64_t link_space(const Topology& t) { return Fattree::link_space(tree(t)); }
  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t a, int64_t b, int64_t base, Visit&& visit) {
    Fattree::route(tree(t), a, b, [&](int64_t id) { visit(base + id); });
  }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) { return Fattree::link_class(tree(t), id); }
  static int class_count(const Topology& t) { return int(t.dims[4]); }
  static std::string class_name(const Topology&, int k) { return "level" + std::to_string(k + 1); }
  static int64_t switches(const Topology& t) { return Fattree::nodes(tree(t)) - tree(t).p; }
  static int64_t diameter(const Topology& t) { return 2 * t.dims[4]; }
  static int64_t links(const Topology& t) { return t.dims[4] * tree(t).p; }
  static bool ends(const Topology& t, int64_t id, int64_t& lower, int64_t& upper) {
    const Topology f = tree(t);
    int64_t from, to;
    if (!Fattree::link_endpoints(f, id, from, to)) return false;
    if (id % 2) std::swap(from, to);  // (from, to) of the up link
    lower = from < f.p ? from : -1 - (from - f.p);
    upper = -1 - (to - f.p);
    return true;
  }
  template <class NicX>
  static LayoutPoint switch_at(const Topology& t, int64_t s, NicX x_of, double y) {
    const Topology f = tree(t);
    const LayoutPoint at = Fattree::layout(f, f.p + s);  // NICs 70 apart there, levels 90 apart
    const double index = at.x / 70, span = x_of(f.p - 1) - x_of(0);
    return {x_of(0) + (f.p > 1 ? span * index / double(f.p - 1) : 0), y - at.y / 90 * 110};
  }
  // Switch agents (kSwitchAgents): switch s is the fat tree's switch node p + s (level s / (NK/k) + 1,
  // label s mod (NK/k)). NIC x is adjacent to its leaf switch x / k; a level-l switch w to the
  // level-(l+1) switches whose labels differ from w in digit l-1 at most (its up-port j = that digit).
  PPSIM_HD static bool nic_link(const Topology& t, int64_t nic, int64_t s, int64_t& id) {
    const Topology f = tree(t);
    id = Fattree::link_id(f, 0, nic, 0);
    return s == nic / Fattree::arity(f);
  }
  PPSIM_HD static bool switch_link(const Topology& t, int64_t lower, int64_t upper, int64_t& id) {
    const Topology f = tree(t);
    const int64_t k = Fattree::arity(f), per_level = f.p / k;
    const int64_t l = lower / per_level + 1, w = lower % per_level, w_up = upper % per_level;
    if (upper / per_level + 1 != l + 1 || l >= Fattree::levels(f)) return false;
    int64_t unit = 1;
    for (int64_t q = 1; q < l; ++q) unit *= k;
    const int64_t j = (w_up / unit) % k;
    id = Fattree::link_id(f, int(l), w * k + j, 0);
    return w + (j - (w / unit) % k) * unit == w_up;
  }

  // The tree over the NICs: k from --dims NxGxKxA, else the fewest levels n >= 2 where NK is a
  // power k^n, else one switch over all of them (k = NK, n = 1).
  static std::string shape(Topology& t, int64_t arity) {
    const int64_t nics = t.dims[0] * t.dims[2];
    if (nics < 2) return "cluster-fattree needs 2 NICs or more in all (N*K = " + std::to_string(nics) + ")";
    int64_t k = nics, n = 1;  // one switch over all of them, unless a tree of more levels fits
    Topology f;
    if (arity > 0) {
      int64_t r = arity;
      for (n = 1; r < nics && r <= nics / arity; ++n) r *= arity;
      if (r != nics) return "cluster-fattree: " + std::to_string(nics) + " NICs are no power of the arity " + std::to_string(arity);
      k = arity;
    } else if (Fattree::shape(f, nics, false).empty()) {
      k = f.dims[0];
      n = f.dims[1];
    }
    if (n + 2 > kMaxLinkClasses) return "cluster-fattree: a fat tree of " + std::to_string(n) + " levels has too many link classes";
    t.dims[3] = k;
    t.dims[4] = n;
    return "";
  }
};

// The two-level machine over either network.
template <class Network>
struct TwoLevelCluster : TopologyDefaults {
  static constexpr const char* name = Network::name;
  static constexpr bool takes_dims = true;

  PPSIM_HD static int64_t nodes_of(const Topology& t) { return t.dims[0]; }  // N
  PPSIM_HD static int64_t per_node(const Topology& t) { return t.dims[1]; }  // G
  PPSIM_HD static int64_t nics_per_node(const Topology& t) { return t.dims[2]; }  // K
  // The NIC (index n*K + j) that accelerator r's traffic leaves its node through.
  PPSIM_HD static int64_t nic_of(const Topology& t, int64_t r) {
    return r / per_node(t) * nics_per_node(t) + r % per_node(t) / (per_node(t) / nics_per_node(t));
  }
  static int64_t nodes(const Topology& t) { return t.p + nodes_of(t) * (1 + nics_per_node(t)) + Network::switches(t); }

  PPSIM_HD static int64_t hops(const Topology& t, int64_t s, int64_t d) {
    if (s == d) return 0;
    if (s >= t.p || d >= t.p) {
      int64_t count = 0;
      agent_route(t, s, d, [&](int64_t) { ++count; });
      return count;
    }
    if (s / per_node(t) == d / per_node(t)) return 2;
    return 2 + Network::hops(t, nic_of(t, s), nic_of(t, d));
  }

  // Routes of switch agents (kSwitchAgents; node ids as below): an accelerator and its node's
  // NVSwitch (one NVLink link), an accelerator and the network switch next to its NIC (PCIe, then
  // the NIC's link), two adjacent network switches (one link). Any other pair has no route (no
  // link visited): rules::agent_route_ok refuses a message between them.
  template <class Visit>
  PPSIM_HD static void agent_route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    const int64_t nvswitch = t.p, network = t.p + nodes_of(t) * (1 + nics_per_node(t));
    const int64_t base = 4 * t.p;
    int64_t id;
    if (s < t.p && d >= nvswitch && d < nvswitch + nodes_of(t)) {
      if (s / per_node(t) == d - nvswitch) visit(2 * s);
    } else if (d < t.p && s >= nvswitch && s < nvswitch + nodes_of(t)) {
      if (d / per_node(t) == s - nvswitch) visit(2 * d + 1);
    } else if (s < t.p && d >= network) {
      if (Network::nic_link(t, nic_of(t, s), d - network, id)) {
        visit(2 * t.p + 2 * s);
        visit(base + id);
      }
    } else if (d < t.p && s >= network) {
      if (Network::nic_link(t, nic_of(t, d), s - network, id)) {
        visit(base + id + 1);
        visit(2 * t.p + 2 * d + 1);
      }
    } else if (s >= network && d >= network) {
      if (Network::switch_link(t, s - network, d - network, id)) visit(base + id);             // up
      else if (Network::switch_link(t, d - network, s - network, id)) visit(base + id + 1);  // down
    }
  }
  PPSIM_HD static int64_t link_space(const Topology& t) { return 4 * t.p + Network::link_space(t); }

  template <class Visit>
  PPSIM_HD static void route(const Topology& t, int64_t s, int64_t d, Visit&& visit) {
    if (s == d) return;
    if (s >= t.p || d >= t.p) return agent_route(t, s, d, visit);
    if (s / per_node(t) == d / per_node(t)) {  // over the node's NVSwitch
      visit(2 * s);
      visit(2 * d + 1);
      return;
    }
    visit(2 * t.p + 2 * s);  // PCIe to the NIC
    Network::route(t, nic_of(t, s), nic_of(t, d), 4 * t.p, visit);
    visit(2 * t.p + 2 * d + 1);  // PCIe from the NIC
  }

  static bool link_endpoints(const Topology& t, int64_t id, int64_t& from, int64_t& to) {
    if (id < 0 || id >= link_space(t)) return false;
    const int64_t nvswitch = t.p, nic = t.p + nodes_of(t), network = nic + nodes_of(t) * nics_per_node(t);
    int64_t lower, upper;
    if (id < 2 * t.p) {
      lower = id / 2;
      upper = nvswitch + id / 2 / per_node(t);
    } else if (id < 4 * t.p) {
      lower = (id - 2 * t.p) / 2;
      upper = nic + nic_of(t, lower);
    } else {
      if (!Network::ends(t, id - 4 * t.p, lower, upper)) return false;
      lower = lower >= 0 ? nic + lower : network + (-1 - lower);  // a NIC, or a switch
      upper = network + (-1 - upper);
    }
    from = id % 2 == 0 ? lower : upper;
    to = id % 2 == 0 ? upper : lower;
    return true;
  }

  static TopologyMetrics metrics(const Topology& t) {
    const int64_t N = nodes_of(t), G = per_node(t), K = nics_per_node(t);
    const int64_t diameter = N > 1 ? 2 + Network::diameter(t) : G > 1 ? 2 : 0;
    const int64_t bisection = N > 1 ? N / 2 * K : G / 2;
    const int64_t arc = t.p < 2 ? 0 : std::min<int64_t>(G > 1 ? 2 : 1, K);  // an accelerator's links; a node's NICs
    return {diameter, bisection, arc, 2 * t.p + Network::links(t)};
  }
  // Links a processor's routes use: NVLink within its node, PCIe out of it.
  static int64_t degree(const Topology& t) { return std::max<int64_t>(1, (per_node(t) > 1) + (nodes_of(t) > 1)); }

  // Accelerators in a row, node by node; each node's NVSwitch above it, its NICs below, the
  // network's switches further down.
  static LayoutPoint layout(const Topology& t, int64_t v) {
    const int64_t G = per_node(t), K = nics_per_node(t), N = nodes_of(t);
    auto x_of_rank = [&](int64_t r) { return double(r / G * (G + 1) + r % G) * 60; };
    auto x_of_nic = [&](int64_t i) {  // under the accelerators it serves
      const int64_t first = i / K * G + i % K * (G / K);
      return (x_of_rank(first) + x_of_rank(first + G / K - 1)) / 2;
    };
    if (v < t.p) return {x_of_rank(v), 0};
    if (v < t.p + N) return {(x_of_rank((v - t.p) * G) + x_of_rank((v - t.p) * G + G - 1)) / 2, 90};
    if (v < t.p + N + N * K) return {x_of_nic(v - t.p - N), -90};
    return Network::switch_at(t, v - t.p - N - N * K, x_of_nic, -90);
  }

  static constexpr const char* link_classes = Network::link_classes;
  static int link_class_count(const Topology& t) { return 2 + Network::class_count(t); }
  static std::string link_class_name(const Topology& t, int k) {
    return k == 0 ? "nvlink" : k == 1 ? "pcie" : Network::class_name(t, k - 2);
  }
  PPSIM_HD static int link_class(const Topology& t, int64_t id) {
    return id < 2 * t.p ? 0 : id < 4 * t.p ? 1 : 2 + Network::link_class(t, id - 4 * t.p);
  }

  // --dims NxG[xK] (cluster-fattree also NxGxKxA: the fat tree's arity), or --p alone: G = K = 8.
  static std::string shape(Topology& t, int64_t p, bool from_dims) {
    const std::string usage = std::string(name) + " needs --dims NxG[xK] (N nodes of G accelerators, K NICs per node dividing G" +
                              Network::more_usage + ")";
    int64_t N = 0, G = 8, K = 0, arity = 0;
    if (from_dims) {
      if (t.ndims < 2 || t.ndims > Network::most_dims) return usage;
      N = t.dims[0];
      G = t.dims[1];
      K = t.ndims >= 3 ? t.dims[2] : G;
      arity = t.ndims == 4 ? t.dims[3] : 0;
      if (arity == 1) return usage + ": the fat tree's arity must be 2 or more";
    } else {
      if (p % G != 0) return std::string(name) + " with --p alone has G = 8 accelerators per node: 8 does not divide " + std::to_string(p) +
                             " (give --dims NxG)";
      N = p / G;
      K = G;
    }
    if (K > G && K % G == 0)  // an accelerator with several NICs: one NIC of their rate (--preset aws-p5 does so)
      return usage + ": K = " + std::to_string(K) + " is more NICs than accelerators; write an accelerator's " + std::to_string(K / G) +
             " NICs as one (K = " + std::to_string(G) + ") of their total rate (--bw-class rail=...)";
    if (K > G || G % K != 0) return usage + ": K = " + std::to_string(K) + " NICs do not divide G = " + std::to_string(G);
    if (double(N) * double(G) > double(int64_t{1} << 31))
      return std::string(name) + " " + std::to_string(N) + "x" + std::to_string(G) + " has more than 2^31 processors";
    if (from_dims && p > 0 && p != N * G)
      return "--p " + std::to_string(p) + " does not match --dims (" + std::to_string(N * G) + " accelerators)";
    t.p = N * G;
    t.dims[0] = N;
    t.dims[1] = G;
    t.dims[2] = K;
    t.ndims = 3;
    const std::string why = Network::shape(t, arity);
    if (!why.empty()) return why;
    if (t.dims[3] > 0) t.ndims = 4;  // cluster-fattree shows its tree's arity
    return "";
  }
};

struct Cluster : TwoLevelCluster<RailNetwork> {
  static constexpr const char* aliases = "rails rail-cluster gpu-cluster";
  static constexpr const char* hint =
      "--dims NxG[xK]: N nodes of G accelerators joined by an NVSwitch, K NICs per node (default G) on K rail leaf switches "
      "and a spine; --p alone: G = K = 8";
};

struct ClusterFattree : TwoLevelCluster<FattreeNetwork> {
  static constexpr const char* aliases = "fattree-cluster";
  static constexpr const char* hint =
      "--dims NxG[xK[xA]]: N nodes of G accelerators joined by an NVSwitch, K NICs per node (default G) at the leaves of a fat tree "
      "of arity A (default: the fewest levels); --p alone: G = K = 8";
};

}  // namespace ppsim::topo
