// NCCL's algorithms: the rings over channels and the double binary tree between nodes
// with chains inside them. Closed forms from their schedules, the ring orders NCCL builds on a
// two-level machine, and runs with data on the CPU backend and the device rounds on the host,
// for several channels and loops (the registry suite runs them with one of each).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "algorithms/all.h"
#include "algorithms/allreduce_nccl_tree.h"
#include "algorithms/nccl_rings.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/protocol.h"
#include "ppsim/run.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

const char* const kRingUnits[] = {"allreduce_nccl_ring", "allgather_nccl_ring", "reduce_scatter_nccl_ring", "broadcast_nccl_ring",
                                  "reduce_nccl_ring"};

RunConfig nccl_config(const std::string& algo, TopologyKind kind, int64_t p, const std::string& dims, int64_t m, int channels,
                      int64_t segments) {
  RunConfig c = make_config(algo, kind, p, dims, m);
  c.params.channels = channels;
  c.params.segments = segments;
  const int ports = std::max(channels, c.algorithm->sends_per_step);
  c.ports = PortSpec{PortModel::kport, ports};
  c.params.kports = ports;
  return c;
}

// Words each processor sends in the whole run, from the algorithm's own ops.
std::vector<int64_t> words_sent(const RunConfig& c) {
  std::vector<int64_t> out(size_t(c.params.p), 0);
  const int rounds = c.algorithm->rounds(c.params);
  for (int64_t x = 0; x < c.params.p; ++x)
    for (int r = 1; r <= rounds; ++r) {
      StepOps ops;
      algorithm_ops(c.algorithm->id, c.params, x, r, ops);
      for (int i = 0; i < ops.nsend; ++i) out[size_t(x)] += ops.send[i].len;
    }
  return out;
}

}  // namespace

// Every channel's ring visits every rank once, and on a cluster every hop between nodes joins two
// accelerators of the same local index (one rail), but the hop that closes an odd number of nodes.
TEST(NcclRings, EveryChannelIsARingThatKeepsToItsRails) {
  for (const std::string dims : {"4x8", "3x4x2", "2x2x1", "5x8x8", "1x8"}) {
    const Topology t = make_topology(TopologyKind::cluster, 0, dims);
    AlgoParams a = params_for(t, 1, 0);
    const int64_t g = t.dims[1], n = t.dims[0];
    ASSERT_EQ(a.node_size, g);
    for (int c = 0; c < 8; ++c) {
      const ChannelRing ring = channel_ring(a, c);
      std::set<int64_t> seen;
      int64_t off_rail = 0;
      for (int64_t j = 0; j < a.p; ++j) {
        const int64_t r = ring.rank(j), next = ring.rank(j + 1);
        EXPECT_EQ(ring.position(r), j) << dims << " channel " << c;
        seen.insert(r);
        if (r / g != next / g) off_rail += (r % g != next % g);
        if (n > 1 && r / g == next / g) {
          EXPECT_NE(j % g, g - 1) << "the last hop of a node's stretch of the ring leaves the node";
        }
      }
      EXPECT_EQ(int64_t(seen.size()), a.p);
      EXPECT_EQ(off_rail, n > 1 && n % 2 == 1 && g > 1 ? 1 : 0) << dims << " channel " << c;
      // Channel c enters even nodes at accelerator c mod G.
      EXPECT_EQ(ring.rank(0) % g, c % g);
    }
  }
}

// ChannelPlace (a processor's place on every ring, without a division per channel) agrees with
// ChannelRing's position and neighbours, and SplitOnce with EvenSplit.
TEST(NcclRings, ChannelPlaceIsChannelRingWithoutDivisions) {
  for (const std::string dims : {"4x8", "3x4x2", "2x2x1", "5x8x8", "1x8", "3x3", "6x1"}) {
    const Topology t = make_topology(TopologyKind::cluster, 0, dims);
    const AlgoParams a = params_for(t, 1, 0);
    for (int64_t id = 0; id < a.p; ++id) {
      ChannelPlace place = channel_place(a, id);
      for (int c = 0; c < 20; ++c, place.next_channel()) {
        const ChannelRing ring = channel_ring(a, c);
        const int64_t x = place.position();
        ASSERT_EQ(x, ring.position(id)) << dims << " id " << id << " channel " << c;
        ASSERT_EQ(place.next(), ring.rank(x + 1)) << dims << " id " << id << " channel " << c;
        ASSERT_EQ(place.prev(), ring.rank(x - 1)) << dims << " id " << id << " channel " << c;
      }
    }
  }
  for (int64_t n : {0, 1, 5, 7, 8, 9, 64, 100})
    for (int64_t parts : {1, 2, 7, 8, 9, 65}) {
      const EvenSplit even{n, parts};
      const SplitOnce once = split_once(n, parts);
      for (int64_t i = 0; i <= parts; ++i) {
        ASSERT_EQ(once.offset(i), even.offset(i)) << n << " / " << parts << " block " << i;
        if (i < parts) {
          ASSERT_EQ(once.words(i), even.offset(i + 1) - even.offset(i)) << n << " / " << parts << " block " << i;
        }
      }
    }
}

// The ring all-reduce's ops (written with ChannelPlace and SplitOnce) are those of its definition
// with ChannelRing and EvenSplit, for every processor and round.
TEST(NcclRings, AllreduceOpsAreTheRingsDefinition) {
  auto definition = [](const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t per_loop = 2 * (a.p - 1), loop = (round - 1) / per_loop;
    const int step = int((round - 1) % per_loop) + 1;
    const bool reducing = step < a.p;
    const int i = reducing ? step : step - int(a.p - 1);
    const ChannelPieces pieces = channel_pieces(a, a.m);
    for (int c = 0; c < a.channels; ++c) {
      const ChannelRing ring = channel_ring(a, c);
      const int64_t x = ring.position(id), base = pieces.offset(loop, c);
      const EvenSplit chunks{pieces.words(loop, c), a.p};
      const int64_t shift = reducing ? 1 : 2, out_chunk = pos_mod(x - i + shift, a.p), in_chunk = pos_mod(x - i + shift - 1, a.p);
      const int64_t out_words = chunks.offset(out_chunk + 1) - chunks.offset(out_chunk);
      const int64_t in_words = chunks.offset(in_chunk + 1) - chunks.offset(in_chunk);
      if (out_words > 0) out.add_send(ring.rank(x + 1), kData, base + chunks.offset(out_chunk), out_words);
      if (in_words > 0)
        out.add_recv(ring.rank(x - 1), kData, base + chunks.offset(in_chunk), in_words, reducing ? RecvMode::recv_op_slot : RecvMode::copy);
    }
  };
  int checked = 0;
  for (const std::string dims : {"4x8", "3x4x2", "2x2x1", "3x3", "1x8", "5x1"})
    for (int channels : {1, 3, 8, 11})
      for (int64_t segments : {1, 2})
        for (int64_t m : {1, 7, 40, 1000}) {
          RunConfig cfg = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, dims, m, channels, segments);
          const AlgoParams& a = cfg.params;
          const int rounds = cfg.algorithm->rounds(a);
          for (int64_t id = 0; id < a.p; ++id)
            for (int r = 1; r <= rounds; ++r) {
              StepOps got, want;
              algorithm_ops(cfg.algorithm->id, a, id, r, got);
              definition(a, id, r, want);
              ASSERT_EQ(got.nsend, want.nsend);
              ASSERT_EQ(got.nrecv, want.nrecv);
              for (int n = 0; n < got.nsend; ++n) {
                ASSERT_EQ(got.send[n].to, want.send[n].to) << dims << " id " << id << " round " << r;
                ASSERT_EQ(got.send[n].src_off, want.send[n].src_off);
                ASSERT_EQ(got.send[n].len, want.send[n].len);
              }
              for (int n = 0; n < got.nrecv; ++n) {
                ASSERT_EQ(got.recv[n].from, want.recv[n].from) << dims << " id " << id << " round " << r;
                ASSERT_EQ(got.recv[n].len, want.recv[n].len);
                ASSERT_EQ(got.recv[n].act[0].dst_off, want.recv[n].act[0].dst_off);
                ASSERT_EQ(got.recv[n].act[0].mode, want.recv[n].act[0].mode);
              }
              ++checked;
            }
        }
  EXPECT_GT(checked, 100000);
}

// The ring all-reduce moves 2 (p - 1)/p m words out of every rank (when p divides each piece),
// whatever the channels and loops; all-gather and reduce-scatter (p - 1) m, broadcast and reduce
// m from every rank but the last of each chain.
TEST(NcclRings, WordsPerRank) {
  for (int channels : {1, 3, 8})
    for (int64_t segments : {1, 2}) {
      const int64_t p = 8, m = p * channels * segments * 5;
      RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "2x4", m, channels, segments);
      for (int64_t w : words_sent(c)) EXPECT_EQ(w, 2 * (p - 1) * m / p) << channels << " channels";
      for (const char* algo : {"allgather_nccl_ring", "reduce_scatter_nccl_ring"}) {
        RunConfig g = nccl_config(algo, TopologyKind::cluster, 0, "2x4", m, channels, segments);
        for (int64_t w : words_sent(g)) EXPECT_EQ(w, (p - 1) * m) << algo;
      }
      RunConfig b = nccl_config("broadcast_nccl_ring", TopologyKind::cluster, 0, "2x4", m, channels, segments);
      int64_t total = 0;
      for (int64_t w : words_sent(b)) total += w;
      EXPECT_EQ(total, (p - 1) * m);  // every rank but the root receives the m words once
    }
}

// nccl-tests' busbw for the ring all-reduce: algbw times 2 (n - 1)/n, n the ranks.
TEST(NcclRings, BusBandwidthOfTheRingAllreduce) {
  const int64_t p = 16, m = 16 * 4 * 3;
  RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::full, p, "", m, 4, 3);
  const RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  const Bandwidth bw = bandwidth(c, r.time);
  EXPECT_DOUBLE_EQ(bw.algbw, double(m) / r.time);
  EXPECT_DOUBLE_EQ(bw.busbw, bw.algbw * 2.0 * (p - 1) / p);
  // The words of the run: 2 (p - 1) chunks of m / p words out of each of the p ranks.
  EXPECT_EQ(r.words, 2 * (p - 1) * m);
}

// The closed forms, simulated on the fully connected machine (every channel on the one ring 0 .. p-1,
// so the channels' messages share each link: load C), with gamma, uneven pieces included.
TEST(NcclRings, ClosedFormsOnTheFullyConnectedMachine) {
  int checked = 0;
  for (const char* algo : kRingUnits)
    for (int64_t p : {2, 3, 8, 13})
      for (int channels : {1, 3, 4})
        for (int64_t segments : {1, 2, 5})
          for (int64_t m : {int64_t(60), int64_t(37)}) {
            RunConfig c = nccl_config(algo, TopologyKind::full, p, "", m, channels, segments);
            c.cost = CostParams{3, 0.5, 0, Routing::cut_through};
            c.cost.gamma = 0.25;
            const RunResult r = run_cpu(c);
            ASSERT_TRUE(r.verified) << algo;
            EXPECT_EQ(r.steps, c.algorithm->rounds(c.params));
            EXPECT_DOUBLE_EQ(r.time, formula_time(c)) << algo << " p=" << p << " C=" << channels << " S=" << segments << " m=" << m;
            ++checked;
          }
  EXPECT_EQ(checked, 5 * 4 * 3 * 3 * 2);
  // The even case, written out: 2 (p-1) S t_s + (2 C t_w + gamma)(m/C)(p-1)/p for the all-reduce.
  const int64_t p = 8, channels = 4, segments = 2, m = p * channels * segments * 3;
  RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::full, p, "", m, channels, segments);
  c.cost = CostParams{3, 0.5, 0, Routing::cut_through};
  c.cost.gamma = 0.25;
  EXPECT_DOUBLE_EQ(run_cpu(c).time, 2.0 * (p - 1) * segments * 3 + (2 * channels * 0.5 + 0.25) * (double(m) / channels) * (p - 1) / p);
}

// On a cluster whose network is slower than NVLink, C channels leave each node through C NICs:
// the ring all-reduce's time falls with the channels until the accelerators' NVLink is the limit.
TEST(NcclRings, ChannelsSpreadTheNetworkOverTheNics) {
  const int64_t m = 8 * 64 * 8;
  double previous = 0;
  for (int channels : {1, 2, 4}) {
    RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "4x8", m, channels, 1);
    c.cost = CostParams{0, 1, 0, Routing::cut_through};
    c.cost.set_class_tw(0, 1);  // nvlink
    for (int k : {1, 2, 3}) c.cost.set_class_tw(k, 8);  // pcie, rail, spine
    const RunResult r = run_cpu(c);
    ASSERT_TRUE(r.verified);
    // Every step has one message per channel leaving some node, of m/(C p) words, alone on its NIC:
    // 8 m/(C p) per step, 2 (p - 1) steps, while the NVLink load C costs only C m/(C p).
    EXPECT_DOUBLE_EQ(r.time, 2.0 * 31 * 8 * double(m) / (channels * 32)) << channels << " channels";
    if (previous > 0) {
      EXPECT_DOUBLE_EQ(r.time, previous / 2);
    }
    previous = r.time;
  }
}

// The double binary tree between nodes: the leaves of one tree are the interior of the other (but
// one node where N is odd).
TEST(NcclTree, TheTwoTreesShareNoInteriorNode) {
  for (int64_t n = 3; n <= 40; ++n) {
    AlgoParams a;
    a.p = n;
    a.node_size = 1;
    std::set<int64_t> interior[2];
    for (int b = 0; b < 2; ++b) {
      const NcclTree t = nccl_tree(a, b);
      int roots = 0;
      for (int64_t x = 0; x < n; ++x) {
        int64_t kids[3];
        if (t.children(x, kids) > 0) interior[b].insert(x);
        roots += t.parent(x) < 0;
        if (t.parent(x) >= 0) {  // x is among its parent's children
          int64_t pk[3];
          const int np = t.children(t.parent(x), pk);
          EXPECT_TRUE(std::find(pk, pk + np, x) != pk + np);
          EXPECT_EQ(t.depth(x), t.depth(t.parent(x)) + 1);
          EXPECT_LT(t.height(x), t.height(t.parent(x)));
        }
      }
      EXPECT_EQ(roots, 1);
    }
    // With N odd tree A has (N + 1)/2 interior nodes and (N - 1)/2 leaves: one node must be interior in both.
    int64_t shared = 0;
    for (int64_t x : interior[0]) shared += int64_t(interior[1].count(x));
    EXPECT_EQ(shared, n % 2) << "n=" << n;
  }
}

// Steps ceil(S/2) - 1 + 2H with H = floor(log2(N - 1)) + G, and the pipelined time
// (ceil(S/2) - 1 + H)(t_s + (t_w + gamma) b) + H (t_s + t_w b), b = m/S, where no two messages share
// a link (the fully connected machine, G = 1).
TEST(NcclTree, StepsAndPipelinedTime) {
  for (const std::string dims : {"2x4", "4x8", "5x2", "16x8", "3x1"}) {
    RunConfig c = nccl_config("allreduce_nccl_tree", TopologyKind::cluster, 0, dims, 64, 1, 6);
    const int64_t n = c.topology.dims[0], g = c.topology.dims[1];
    const int h = floor_log2(n - 1) + int(g);
    EXPECT_EQ(c.algorithm->rounds(c.params), 3 - 1 + 2 * h) << dims;
    const RunResult r = run_cpu(c);
    EXPECT_TRUE(r.verified) << dims;
    EXPECT_EQ(r.steps, 3 - 1 + 2 * h);
  }
  for (int64_t p : {5, 8, 13, 16})
    for (int64_t segments : {2, 4, 8}) {
      const int64_t m = segments * 7;
      RunConfig c = nccl_config("allreduce_nccl_tree", TopologyKind::full, p, "", m, 1, segments);
      c.cost = CostParams{3, 0.5, 0, Routing::cut_through};
      c.cost.gamma = 0.25;
      const RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      const double h = floor_log2(p - 1) + 1, b = double(m) / segments;
      const double expect = ((segments + 1) / 2 - 1 + h) * (3 + (0.5 + 0.25) * b) + h * (3 + 0.5 * b);
      EXPECT_DOUBLE_EQ(r.time, expect) << "p=" << p << " S=" << segments;
      EXPECT_DOUBLE_EQ(formula_time(c), expect);
    }
}

// NCCL runs a pair of trees a channel. With C channels (C <= G/2) the tree unit's pairs put their
// heads on 2C distinct accelerators of each node, so 2C of a node's accelerators (and NICs) carry
// its traffic to other nodes, where one pair uses two; tree j carries segments j, j + 2C, ..., and
// the run takes ceil(S/2C) - 1 + 2H steps, verified on both executors.
TEST(NcclTree, ChannelsPutTheirHeadsOnAcceleratorsOfTheirOwn) {
  for (int channels : {1, 2, 4}) {
    RunConfig c = nccl_config("allreduce_nccl_tree", TopologyKind::cluster, 0, "4x8", 64, channels, 16);
    c.ports = PortSpec{PortModel::kport, 4 * channels + 4};
    c.params.kports = 4 * channels + 4;
    ASSERT_EQ(c.algorithm->own_limit(c.params), nullptr);
    const int64_t g = 8, h = floor_log2(4 - 1) + g, rounds = c.algorithm->rounds(c.params);
    EXPECT_EQ(rounds, (16 + 2 * channels - 1) / (2 * channels) - 1 + 2 * h) << channels;
    std::set<int64_t> crossing;  // local indices that send to another node
    for (int r = 1; r <= rounds; ++r)
      for (int64_t i = 0; i < c.params.p; ++i) {
        StepOps ops;
        AllreduceNcclTree::ops(c.params, i, r, ops);
        ASSERT_FALSE(ops.overflow);
        EXPECT_LE(ops.nsend, 4 * channels + 4);
        for (int k = 0; k < ops.nsend; ++k)
          if (ops.send[k].to / g != i / g) crossing.insert(i % g);
      }
    EXPECT_EQ(int64_t(crossing.size()), 2 * channels) << channels;
    const RunResult cpu = run_cpu(c);
    EXPECT_TRUE(cpu.verified) << channels;
    EXPECT_EQ(cpu.steps, rounds);
    c.keep_buffers = false;
    const RunResult host = run_device_rounds_on_host(c);
    EXPECT_TRUE(host.verified) << channels;
    EXPECT_EQ(host.time, cpu.time);
  }
  RunConfig wide = nccl_config("allreduce_nccl_tree", TopologyKind::cluster, 0, "4x8", 64, 5, 16);  // 5 pairs: more than G/2
  EXPECT_NE(wide.algorithm->own_limit(wide.params), nullptr);
  RunConfig few = nccl_config("allreduce_nccl_tree", TopologyKind::cluster, 0, "4x8", 64, 4, 6);  // 6 segments for 8 trees
  EXPECT_NE(few.algorithm->own_limit(few.params), nullptr);
}

// Data through every unit with several channels and loops, on the CPU backend and the device
// rounds executed on the host, on clusters (rails and fat tree) and other machines.
TEST(NcclAlgorithms, VerifiedWithChannelsAndLoopsOnBothExecutors) {
  struct Shape {
    TopologyKind kind;
    int64_t p;
    const char* dims;
  };
  const Shape shapes[] = {{TopologyKind::cluster, 0, "4x4x2"}, {TopologyKind::cluster, 0, "3x2"}, {TopologyKind::cluster_fattree, 0, "4x2x2x2"},
                          {TopologyKind::ring, 7, ""},          {TopologyKind::torus, 0, "3x4"}, {TopologyKind::full, 1, ""}};
  int runs = 0;
  for (const char* algo : {"allreduce_nccl_ring", "allgather_nccl_ring", "reduce_scatter_nccl_ring", "broadcast_nccl_ring",
                           "reduce_nccl_ring", "allreduce_nccl_tree"})
    for (const Shape& s : shapes)
      for (int channels : {1, 2, 5})
        for (int64_t segments : {1, 3}) {
          if (std::string(algo) == "allreduce_nccl_tree" && channels > 1) continue;
          RunConfig c = nccl_config(algo, s.kind, s.p, s.dims, 23, channels, segments);
          c.combine = OperatorKind::bxor;
          c.params.root = c.params.p - 1;
          c.input = InputSpec{true, 99};
          const RunResult cpu = run_cpu(c);
          EXPECT_TRUE(cpu.verified) << algo << " " << s.dims << " C=" << channels << " S=" << segments;
          c.keep_buffers = false;
          const RunResult host = run_device_rounds_on_host(c);
          EXPECT_TRUE(host.verified) << algo << " " << s.dims << " C=" << channels << " S=" << segments;
          EXPECT_EQ(host.time, cpu.time);
          EXPECT_EQ(host.steps, cpu.steps);
          ++runs;
        }
  EXPECT_EQ(runs, 5 * 6 * 3 * 2 + 6 * 2);
}

// Too few ports for the channels is the port model's schedule error at step 1, and --channels out
// of range is refused before the run.
TEST(NcclAlgorithms, ChannelsNeedPortsAndALimit) {
  RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "2x4", 64, 4, 1);
  c.ports = PortSpec{PortModel::kport, 2};
  EXPECT_THROW(run_cpu(c), ScheduleError);
  c.params.channels = 33;
  EXPECT_NE(c.algorithm->own_limit(c.params), nullptr);
  c.params.channels = 0;
  EXPECT_NE(c.algorithm->own_limit(c.params), nullptr);
}

// NCCL's protocols (NCCL 2.20.3's tuning model): on the fully connected machine every link is the
// network, so every message of the ring all-reduce starts in t_s + hwLat[net][ring][protocol], t_w
// is divided by the protocol's bandwidth factor, and the base latency is paid once.
TEST(NcclProtocols, RingAllreduceUnderEachProtocol) {
  const int64_t p = 8, m = 8 * 64;
  struct Expect {
    Protocol protocol;
    double base, net, factor;
  };
  for (const Expect e : {Expect{Protocol::simple, 8.4, 14.0, 1.0}, Expect{Protocol::ll, 6.6, 2.7, 0.25}, Expect{Protocol::ll128, 14.0, 4.0, 0.7}}) {
    RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::full, p, "", m, 1, 1);
    c.cost = CostParams{0.5, 0.01, 0, Routing::cut_through};
    apply_protocol(c, e.protocol);
    // One rank per node: LL128 delivers 0.7 of the link (ppn < 2), LL a quarter (several nodes).
    const double per_step = 0.5 + e.net + 0.01 / e.factor * double(m / p);
    EXPECT_DOUBLE_EQ(run_simulation(c, Backend::cpu).time, e.base + 2 * (p - 1) * per_step) << protocol_name(e.protocol);
    EXPECT_DOUBLE_EQ(formula_time(c), e.base + 2 * (p - 1) * per_step);
    EXPECT_LE(lower_bound_time(c), e.base + 2 * (p - 1) * per_step);
  }
}

// On a cluster a message pays the latency of the slowest kind of link on its route: NVLink inside
// a node, the network between nodes; the tree takes the tree's figures.
TEST(NcclProtocols, LatencyByLinkKindOnACluster) {
  RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "2x4", 8 * 16, 1, 1);
  c.cost = CostParams{0, 0, 0, Routing::cut_through};  // latencies alone
  apply_protocol(c, Protocol::ll);
  ASSERT_EQ(link_class_kind(c.topology, 0), LinkKind::nvlink);
  ASSERT_EQ(link_class_kind(c.topology, 1), LinkKind::pci);
  ASSERT_EQ(link_class_kind(c.topology, 2), LinkKind::net);
  // Every step of the ring crosses between the two nodes (2.7 us on the network) besides NVLink hops.
  EXPECT_DOUBLE_EQ(run_simulation(c, Backend::cpu).time, 6.6 + 2 * 7 * 2.7);
  // One node: NVLink only (0.6 us a step).
  RunConfig one = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "1x8", 8 * 16, 1, 1);
  one.cost = CostParams{0, 0, 0, Routing::cut_through};
  apply_protocol(one, Protocol::ll);
  EXPECT_DOUBLE_EQ(run_simulation(one, Backend::cpu).time, 6.6 + 2 * 7 * 0.6);
  // The tree's LL: base 6.8 us, 5.0 us a step on the network, 0.92/3.8 of the bandwidth.
  const ProtocolCost tree = nccl_protocol_cost(Protocol::ll, NcclAlgo::tree, Operation::allreduce, 2, 8);
  EXPECT_DOUBLE_EQ(tree.base, 6.8);
  EXPECT_DOUBLE_EQ(tree.latency[int(LinkKind::net)], 5.0);
  EXPECT_DOUBLE_EQ(tree.bandwidth, 0.92 / 3.8);
  RunConfig t = nccl_config("allreduce_nccl_tree", TopologyKind::cluster, 0, "2x4", 64, 1, 2);
  apply_protocol(t, Protocol::ll);
  EXPECT_DOUBLE_EQ(t.base_latency, 6.8);
  Protocol parsed;
  EXPECT_TRUE(parse_protocol("LL128", parsed));
  EXPECT_EQ(parsed, Protocol::ll128);
  EXPECT_FALSE(parse_protocol("ll64", parsed));
}

// --nccl-version 2.8.3 (src/graph/tuning.cc at 920dbe5b): its own base and step latencies (the
// ring's Simple step on the network 9.6 us, not 14; LL's base 3.6), an LL step inside a node 1.8
// times as long where there are several nodes, and A100's NVLink at the 235 GB/s its model caps a
// GPU's bus bandwidth at (2.20.3: 12 links of 20 GB/s).
TEST(NcclProtocols, TheModelOfNccl283) {
  const ProtocolCost simple = nccl_protocol_cost(Protocol::simple, NcclAlgo::ring, Operation::allreduce, 2, 16, NcclVersion::v2_8_3);
  EXPECT_DOUBLE_EQ(simple.base, 8.4);
  EXPECT_DOUBLE_EQ(simple.latency[int(LinkKind::net)], 9.6);
  EXPECT_DOUBLE_EQ(simple.latency[int(LinkKind::nvlink)], 3.4);
  const ProtocolCost ll = nccl_protocol_cost(Protocol::ll, NcclAlgo::ring, Operation::allreduce, 2, 16, NcclVersion::v2_8_3);
  EXPECT_DOUBLE_EQ(ll.base, 3.6);
  EXPECT_DOUBLE_EQ(ll.latency[int(LinkKind::nvlink)], 0.47 * 1.8);
  EXPECT_DOUBLE_EQ(nccl_protocol_cost(Protocol::ll, NcclAlgo::ring, Operation::allreduce, 1, 8, NcclVersion::v2_8_3).latency[int(LinkKind::nvlink)], 0.47);
  EXPECT_DOUBLE_EQ(nccl_protocol_cost(Protocol::ll128, NcclAlgo::tree, Operation::allreduce, 2, 16, NcclVersion::v2_8_3).bandwidth, 0.92 * 0.915);
  EXPECT_DOUBLE_EQ(nccl_nvlink_GBps(NcclVersion::v2_8_3, 80, 12), 235.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_GBps(NcclVersion::v2_20_3, 80, 12), 240.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_GBps(NcclVersion::v2_20_3, 90, 18), 18 * 20.6);
  // On a cluster: the ring's LL pays 2.8.3's figures, 1.8 x 0.47 us a step on NVLink and 2.7 us
  // on the network, where every step crosses between the nodes.
  RunConfig c = nccl_config("allreduce_nccl_ring", TopologyKind::cluster, 0, "2x4", 8 * 16, 1, 1);
  c.cost = CostParams{0, 0, 0, Routing::cut_through};
  c.nccl_version = int8_t(NcclVersion::v2_8_3);
  apply_protocol(c, Protocol::ll);
  EXPECT_DOUBLE_EQ(run_simulation(c, Backend::cpu).time, 3.6 + 2 * 7 * 2.7);
  NcclVersion v;
  EXPECT_TRUE(parse_nccl_version("2.8.3", v));
  EXPECT_EQ(v, NcclVersion::v2_8_3);
  EXPECT_FALSE(parse_nccl_version("2.19", v));
}
