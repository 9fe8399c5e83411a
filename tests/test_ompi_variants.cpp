// Open MPI's own variants of the textbook algorithms (coll_tuned's Rabenseifner all-reduce and
// reduce, ring all-reduce with its fall-back, van de Geijn and scatter-allgather broadcasts, the
// nonoverlapping all-reduce, the binary-tree broadcast, and the ring, recursive-halving and
// butterfly reduce-scatters), each held message for message to what Open MPI sends, to its
// closed form, and to a verified run on both executors. The tuning files that name them are
// test_tuning_files.cpp's.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/algorithm.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"

using ppsim::testing_support::make_config;

// Open MPI's Rabenseifner: its own variant, message for message. Every processor's sends
// from the ops: with m >= p' = 2^floor(lg p), processor 0 sends ceil(m/2) words to 1 when p is no
// power of two (the swapped upper half); then, as virtual rank 0, the words outside its window in
// each halving step (its window W_k = floor(m/2^k) after k steps), its windows W_d .. W_1 in the
// all-gather, and at the end the whole vector to 1 (when p is no power of two). With m < p', the linear fall-back: every processor but 0 sends m words to 0 and receives m
// from it. The closed form equals the simulated time (gamma > 0), both executors verify.
TEST(OmpiVariants, RabenseifnerAsOpenMpiRunsIt) {
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 12, 13, 16}) {
    for (int64_t m : {1, 3, 5, 8, 37, 64}) {
      ppsim::RunConfig c = ppsim::testing_support::make_config("allreduce_rabenseifner_ompi", ppsim::TopologyKind::full, p, "", m);
      c.cost.ts = 3;
      c.cost.tw = 2;
      c.cost.gamma = 0.5;
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      int64_t pp = 1;
      while (pp * 2 <= p) pp *= 2;
      std::vector<int64_t> sent(size_t(p), 0);
      for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
        for (int64_t x = 0; x < p; ++x) {
          ppsim::StepOps ops;
          ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
          for (int i = 0; i < ops.nsend; ++i) sent[size_t(x)] += ops.send[i].len;
        }
      if (m < pp) {
        EXPECT_EQ(c.algorithm->rounds(c.params), 2 * (p - 1));
        EXPECT_EQ(sent[0], (p - 1) * m);
        for (int64_t x = 1; x < p; ++x) EXPECT_EQ(sent[size_t(x)], m);
      } else {
        // Virtual rank 0 keeps the lower floor(w/2) of its window w each time: it gives away
        // m - W_d while halving and sends W_d + ... + W_1 back in the all-gather.
        int64_t w = m, d = 0, gathered = 0;
        for (; (int64_t{1} << d) < pp; ++d) {
          w /= 2;
          gathered += w;
        }
        const int64_t extra = p != pp ? (m - m / 2) + m : 0;
        EXPECT_EQ(sent[0], extra + (m - w) + gathered);
        EXPECT_EQ(c.algorithm->rounds(c.params), 2 * d + (p != pp ? 3 : 0));
      }
      const ppsim::RunResult r = ppsim::run_cpu(c);
      EXPECT_TRUE(r.verified);
      EXPECT_DOUBLE_EQ(r.time, ppsim::formula_time(c));
      EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
    }
  }
}

// Open MPI's ring: the ring itself when m >= p, recursive doubling (allreduce_hypercube,
// message for message) when m < p; both closed forms hold.
TEST(OmpiVariants, RingFallsBackToRecursiveDoubling) {
  for (int64_t p : {2, 3, 5, 8, 12}) {
    for (int64_t m : {1, 2, 4, 7, 12, 37}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      ppsim::RunConfig c = ppsim::testing_support::make_config("allreduce_ring_ompi", ppsim::TopologyKind::full, p, "", m);
      c.cost.ts = 3;
      c.cost.tw = 2;
      c.cost.gamma = 0.5;
      ppsim::RunConfig same = c;
      same.algorithm = ppsim::find_algorithm(m < p ? "allreduce_hypercube" : "allreduce_ring");
      for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
        for (int64_t x = 0; x < p; ++x) {
          ppsim::StepOps mine, theirs;
          ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, mine);
          ppsim::algorithm_ops(same.algorithm->id, same.params, x, r, theirs);
          ASSERT_EQ(mine.nsend, theirs.nsend);
          for (int i = 0; i < mine.nsend; ++i) {
            EXPECT_EQ(mine.send[i].to, theirs.send[i].to);
            EXPECT_EQ(mine.send[i].len, theirs.send[i].len);
          }
        }
      EXPECT_EQ(c.algorithm->rounds(c.params), same.algorithm->rounds(same.params));
      const ppsim::RunResult r = ppsim::run_cpu(c);
      EXPECT_TRUE(r.verified);
      EXPECT_DOUBLE_EQ(r.time, ppsim::formula_time(c));
      EXPECT_DOUBLE_EQ(r.time, ppsim::run_cpu(same).time);
    }
  }
}

// A broadcast that cuts ceil(m/p)-word blocks (Open MPI's van de Geijn and scatter-allgather):
// after its scatter_steps, rank q relative to the root receives every block but its own, m -
// min(c, max(0, m - q c)) words, c = ceil(m/p) (with m < p, the linear broadcast: every rank but
// the root receives m). The run verifies on both executors and takes the closed form's time.
ppsim::RunResult expect_ceil_blocks_broadcast(const ppsim::RunConfig& c, int scatter_steps) {
  const int64_t p = c.params.p, m = c.params.m, root = c.params.root;
  std::vector<int64_t> received(size_t(p), 0);
  for (int r = scatter_steps + 1; r <= c.algorithm->rounds(c.params); ++r)
    for (int64_t x = 0; x < p; ++x) {
      ppsim::StepOps ops;
      ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
      for (int i = 0; i < ops.nrecv; ++i) received[size_t(x)] += ops.recv[i].len;
    }
  const int64_t block = (m + p - 1) / p;
  for (int64_t x = 0; x < p; ++x) {
    const int64_t q = (x - root + p) % p, own = std::min(block, std::max<int64_t>(0, m - q * block));
    EXPECT_EQ(received[size_t(x)], m < p ? (x == root ? 0 : m) : m - own) << "rank " << x;
  }
  const ppsim::RunResult r = ppsim::run_cpu(c);
  EXPECT_TRUE(r.verified);
  EXPECT_DOUBLE_EQ(r.time, ppsim::formula_time(c));
  EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
  return r;
}

// Open MPI's Van de Geijn broadcast: blocks of ceil(m/p) words, the tail short. In the
// ring all-gather every rank receives every block but its own, m - min(c, max(0, m - q c)) words
// for rank q relative to the root, c = ceil(m/p); when m < p, the linear broadcast: p - 1 steps,
// every rank but the root receives the m words; the closed form equals the simulated time, and
// where p divides m the blocks are MPICH's too, so the two units' times agree.
TEST(OmpiVariants, VanDeGeijnCutsCeilBlocks) {
  for (int64_t p : {2, 3, 5, 6, 8, 13}) {
    for (int64_t m : {1, 4, 7, 26, 40}) {
      for (int64_t root : {int64_t{0}, p - 1}) {
        SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " root=" + std::to_string(root));
        ppsim::RunConfig c = ppsim::testing_support::make_config("broadcast_van_de_geijn_ompi", ppsim::TopologyKind::full, p, "", m,
                                                                 ppsim::OperatorKind::sum, root);
        c.cost.ts = 3;
        c.cost.tw = 2;
        int scatter_steps = 0;
        while ((int64_t{1} << scatter_steps) < p) ++scatter_steps;
        if (m < p) {  // Open MPI's linear broadcast: the root sends every other rank the m words
          EXPECT_EQ(c.algorithm->rounds(c.params), p - 1);
          scatter_steps = 0;
        }
        const ppsim::RunResult r = expect_ceil_blocks_broadcast(c, scatter_steps);
        if (m % p == 0) {
          ppsim::RunConfig mpich = c;
          mpich.algorithm = ppsim::find_algorithm("broadcast_van_de_geijn");
          EXPECT_DOUBLE_EQ(r.time, ppsim::run_cpu(mpich).time);
        }
      }
    }
  }
}

// Open MPI's scatter + recursive-doubling broadcast (coll_tuned 8) at any p: the scatter is
// unit 9's; in the all-gather every rank receives every block but its own, m - min(c, max(0, m - q c))
// words for rank q relative to the root (the exchanges and, where p is no power of two, the halving
// steps together), c = ceil(m/p); the steps are 2 ceil(lg p) plus, for each level k whose last pair of
// subtrees is incomplete (n = p mod 2^k > 0 ranks in the upper one), k - floor(lg n) halving steps;
// when m < p, the linear broadcast. The closed form equals the simulated time (gamma > 0: nothing
// combines), both executors verify, and at p = 2^d with p | m the textbook unit takes the same time.
TEST(OmpiVariants, ScatterAllgatherBroadcastAtAnyP) {
  for (int64_t p : {2, 3, 5, 6, 7, 8, 11, 12, 13, 16}) {
    for (int64_t m : {1, 4, 7, 13, 26, 64}) {
      for (int64_t root : {int64_t{0}, p - 1}) {
        SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " root=" + std::to_string(root));
        ppsim::RunConfig c = ppsim::testing_support::make_config("broadcast_scatter_allgather_ompi", ppsim::TopologyKind::full, p, "", m,
                                                                 ppsim::OperatorKind::sum, root);
        c.cost.ts = 3;
        c.cost.tw = 2;
        c.cost.gamma = 0.5;
        int d = 0;
        while ((int64_t{1} << d) < p) ++d;
        int steps = 2 * d;
        for (int k = 0; k < d; ++k) {
          const int64_t n = p % (int64_t{1} << k);
          if (((p >> k) & 1) && n > 0) {
            int lg = 0;
            while ((int64_t{2} << lg) <= n) ++lg;
            steps += k - lg;
          }
        }
        int scatter_steps = d;
        if (m < p) {  // Open MPI's linear broadcast: the root sends every other rank the m words
          steps = int(p - 1);
          scatter_steps = 0;
        }
        EXPECT_EQ(c.algorithm->rounds(c.params), steps);
        const ppsim::RunResult r = expect_ceil_blocks_broadcast(c, scatter_steps);
        ppsim::RunConfig textbook = c;
        textbook.algorithm = ppsim::find_algorithm("broadcast_scatter_allgather");
        if ((p & (p - 1)) == 0 && m % p == 0 &&
            ppsim::algorithm_rejects(*textbook.algorithm, textbook.topology, textbook.params, textbook.combine).empty()) {
          EXPECT_DOUBLE_EQ(r.time, ppsim::run_cpu(textbook).time);
        }
      }
    }
  }
}

// Open MPI's nonoverlapping all-reduce (coll_tuned 2): a reduce to 0, then a bcast from 0,
// each the one Open MPI 4.1's fixed decision picks by p and m. The steps are the two parts' (the
// binary-tree reduce takes broadcast_bintree_ompi's steps at one segment, the binomial reduce_binomial's;
// the bcast its unit's); in the reduce every rank but 0 sends its m words once, to its parent, and in
// the bcast (a tree at these m) every rank but 0 receives m words once. Where Open MPI picks a part
// ppsim has no unit for, the unit refuses (p = 4: 8m >= 4096 is the chain reduce). The closed form
// equals the simulated time (gamma > 0), both executors verify.
TEST(OmpiVariants, NonoverlappingAllreduceRunsOpenMpisOwnPicks) {
  int ran = 0, refused = 0;
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 20, 33, 40}) {
    for (int64_t m : {1, 2, 7, 13, 64, 300, 600, 1500}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      ppsim::RunConfig c = ppsim::testing_support::make_config("allreduce_nonoverlapping_ompi", ppsim::TopologyKind::full, p, "", m);
      c.params.radix = 4;  // Open MPI's default coll_tuned_bcast_knomial_radix
      c.cost.ts = 3;
      c.cost.tw = 2;
      c.cost.gamma = 0.5;
      const int reduce = ppsim::AllreduceNonoverlappingOmpi::reduce_algorithm(p, m);
      const int bcast = ppsim::AllreduceNonoverlappingOmpi::bcast_algorithm(p, m);
      const bool runs = !ppsim::algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine).size();
      EXPECT_EQ(runs, reduce != 0 && bcast != 0);
      if (p == 4) {
        EXPECT_EQ(runs, 8 * m < 4096);
      }
      if (!runs) {
        ++refused;
        continue;
      }
      ++ran;
      ppsim::AlgoParams part = c.params;
      part.root = 0;
      part.segments = 1;
      const char* reduce_unit = reduce == 4 ? "broadcast_bintree_ompi" : "reduce_binomial";
      const char* bcast_unit = bcast == 3   ? "broadcast_chain"
                               : bcast == 5 ? "broadcast_bintree_ompi"
                               : bcast == 6 ? "broadcast_binomial_low_first"
                               : bcast == 7 ? "broadcast_knomial"
                                            : "broadcast_scatter_allgather_ompi";
      const int reduce_steps = ppsim::find_algorithm(reduce_unit)->rounds(part);
      EXPECT_EQ(c.algorithm->rounds(c.params), reduce_steps + ppsim::find_algorithm(bcast_unit)->rounds(part));
      std::vector<int64_t> sent(size_t(p), 0), received(size_t(p), 0);
      for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
        for (int64_t x = 0; x < p; ++x) {
          ppsim::StepOps ops;
          ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
          if (r <= reduce_steps)
            for (int i = 0; i < ops.nsend; ++i) sent[size_t(x)] += ops.send[i].len;
          else
            for (int i = 0; i < ops.nrecv; ++i) received[size_t(x)] += ops.recv[i].len;
        }
      for (int64_t x = 0; x < p; ++x) {
        EXPECT_EQ(sent[size_t(x)], x == 0 ? 0 : m) << "rank " << x;
        EXPECT_EQ(received[size_t(x)], x == 0 ? 0 : m) << "rank " << x;
      }
      const ppsim::RunResult r = ppsim::run_cpu(c);
      EXPECT_TRUE(r.verified);
      EXPECT_DOUBLE_EQ(r.time, ppsim::formula_time(c));
      EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
    }
  }
  EXPECT_GT(ran, 60);
  EXPECT_GT(refused, 5);
}

namespace {

// Every processor's words sent and received over the whole schedule.
struct Traffic {
  std::vector<int64_t> sent, received;
};
Traffic traffic(const ppsim::RunConfig& c) {
  Traffic t{std::vector<int64_t>(size_t(c.params.p), 0), std::vector<int64_t>(size_t(c.params.p), 0)};
  for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
    for (int64_t x = 0; x < c.params.p; ++x) {
      ppsim::StepOps ops;
      ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
      for (int i = 0; i < ops.nsend; ++i) t.sent[size_t(x)] += ops.send[i].len;
      for (int i = 0; i < ops.nrecv; ++i) t.received[size_t(x)] += ops.recv[i].len;
    }
  return t;
}

}  // namespace

// Open MPI's Rabenseifner reduce: with m >= p' = 2^floor(lg p), processor 0 (virtual rank
// 0, which keeps the lower floor(w/2) of its window w in each halving step) sends the upper ceil(m/2)
// words to 1 when p is no power of two, then gives away m - floor(m/p') words while halving and
// receives the windows floor(m/2^k) it keeps (after both halves from 1 when p is no power of two);
// as the root it gathers exactly those m - floor(m/p') words back; an odd root below 2r receives the
// upper ceil(m/2) words from its pair, then all m words (floor(m/p') of them from processor 0 in the
// extra step). With m < p', the linear reduce:
// every other processor sends its m words to the root. Rounds 2 lg p' (+ 2 when p is no power of two,
// + 1 for an odd root below 2r), or p - 1; the closed form equals the simulated time (gamma > 0),
// both executors verify.
TEST(OmpiVariants, RabenseifnerReduceAsOpenMpiRunsIt) {
  for (int64_t p : {2, 3, 4, 5, 6, 7, 8, 12, 13, 16}) {
    for (int64_t m : {1, 3, 5, 8, 37, 64}) {
      for (int64_t root : {int64_t{0}, int64_t{1}, p - 1}) {
        if (root >= p) continue;
        SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " root=" + std::to_string(root));
        ppsim::RunConfig c = make_config("reduce_rabenseifner_ompi", ppsim::TopologyKind::full, p, "", m, ppsim::OperatorKind::sum, root);
        c.cost.ts = 3;
        c.cost.tw = 2;
        c.cost.gamma = 0.5;
        int64_t pp = 1;
        int d = 0;
        while (pp * 2 <= p) {
          pp *= 2;
          ++d;
        }
        const int64_t r = p - pp;
        const Traffic t = traffic(c);
        if (m < pp) {
          EXPECT_EQ(c.algorithm->rounds(c.params), p - 1);
          EXPECT_EQ(t.received[size_t(root)], (p - 1) * m);
          for (int64_t x = 0; x < p; ++x) EXPECT_EQ(t.sent[size_t(x)], x == root ? 0 : m);
        } else {
          const bool odd_root = root < 2 * r && root % 2 == 1;
          EXPECT_EQ(c.algorithm->rounds(c.params), 2 * d + (r > 0 ? 2 : 0) + (odd_root ? 1 : 0));
          const int64_t kept = m / pp;  // floor(m/2) d times
          if (root == 0) {
            EXPECT_EQ(t.sent[0], (r > 0 ? m - m / 2 : 0) + (m - kept));
            int64_t halves = 0;  // the windows floor(m/2^k) it keeps, k = 1..d, arrive while halving
            for (int k = 1; k <= d; ++k) halves += m >> k;
            EXPECT_EQ(t.received[0], (r > 0 ? m : 0) + halves + (m - kept));  // both halves from 1, halving, gather
          }
          if (odd_root) {
            EXPECT_EQ(t.received[size_t(root)], (m - m / 2) + m);  // its pair's upper half, then the result
          }
        }
        const ppsim::RunResult res = ppsim::run_cpu(c);
        EXPECT_TRUE(res.verified);
        EXPECT_DOUBLE_EQ(res.time, ppsim::formula_time(c));
        EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
      }
    }
  }
}

// Open MPI's binary tree broadcast: every rank v > 0 (relative to the root) receives each
// of the S segments from the parent that ompi_coll_base_topo_build_tree(2, ...) gives it, written here
// as Open MPI writes it (the level from the running sum of 2^level, the parent by subtracting
// 2^(level-1) while above the levels before); the steps and time are broadcast_bintree_pipelined's
// (the two trees have the same lag rank for rank) and the closed form's.
TEST(OmpiVariants, BinaryTreeBroadcastNumbersTheTreeAsOpenMpi) {
  auto ompi_parent = [](int64_t v) {
    int64_t level = 0, num = 0;
    for (; num <= v; ++level) num += int64_t{1} << level;
    --level;
    const int64_t delta = int64_t{1} << level, slimit = delta - 1;
    int64_t parent = v;
    if (parent < 2) return int64_t{0};
    while (parent >= slimit) parent -= delta / 2;
    return parent;
  };
  for (int64_t p : {3, 4, 5, 6, 7, 8, 11, 13}) {
    for (int64_t m : {3, 7, 12}) {
      for (int64_t segments : {1, 3}) {
        for (int64_t root : {int64_t{0}, p - 2}) {
          SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " S=" + std::to_string(segments) +
                       " root=" + std::to_string(root));
          ppsim::RunConfig c =
              make_config("broadcast_bintree_ompi", ppsim::TopologyKind::full, p, "", m, ppsim::OperatorKind::sum, root);
          c.params.segments = segments;
          c.cost.ts = 3;
          c.cost.tw = 2;
          std::vector<std::map<int64_t, int64_t>> from(static_cast<size_t>(p));  // receiver -> sender -> messages
          for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
            for (int64_t x = 0; x < p; ++x) {
              ppsim::StepOps ops;
              ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
              for (int i = 0; i < ops.nsend; ++i) from[size_t(ops.send[i].to)][x] += 1;
            }
          for (int64_t x = 0; x < p; ++x) {
            const int64_t v = (x - root + p) % p;
            if (v == 0) {
              EXPECT_TRUE(from[size_t(x)].empty());
              continue;
            }
            ASSERT_EQ(from[size_t(x)].size(), 1u) << "rank " << x;
            EXPECT_EQ(from[size_t(x)].begin()->first, (ompi_parent(v) + root) % p) << "rank " << x;
            EXPECT_EQ(from[size_t(x)].begin()->second, segments) << "rank " << x;
          }
          ppsim::RunConfig heap = c;
          heap.algorithm = ppsim::find_algorithm("broadcast_bintree_pipelined");
          EXPECT_EQ(c.algorithm->rounds(c.params), heap.algorithm->rounds(heap.params));
          const ppsim::RunResult res = ppsim::run_cpu(c);
          EXPECT_TRUE(res.verified);
          EXPECT_DOUBLE_EQ(res.time, ppsim::formula_time(c));
          EXPECT_DOUBLE_EQ(res.time, ppsim::run_cpu(heap).time);
          EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
        }
      }
    }
  }
}

// Open MPI's ring reduce-scatter: processor x sends its p - 1 partials, m words each, to
// x + 1 only; (t_s + (t_w + gamma) m)(p - 1), the time of ppsim's ring, which sends to x - 1.
TEST(OmpiVariants, RingReduceScatterSendsToTheRight) {
  for (int64_t p : {2, 3, 5, 8}) {
    for (int64_t m : {1, 4, 7}) {
      SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m));
      ppsim::RunConfig c = make_config("reduce_scatter_ring_ompi", ppsim::TopologyKind::full, p, "", m);
      c.cost.ts = 3;
      c.cost.tw = 2;
      c.cost.gamma = 0.5;
      for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
        for (int64_t x = 0; x < p; ++x) {
          ppsim::StepOps ops;
          ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
          ASSERT_EQ(ops.nsend, 1);
          EXPECT_EQ(ops.send[0].to, (x + 1) % p);
          EXPECT_EQ(ops.send[0].len, m);
        }
      EXPECT_EQ(c.algorithm->rounds(c.params), p - 1);
      const ppsim::RunResult res = ppsim::run_cpu(c);
      EXPECT_TRUE(res.verified);
      EXPECT_DOUBLE_EQ(res.time, ppsim::formula_time(c));
      EXPECT_DOUBLE_EQ(res.time, (3 + (2 + 0.5) * double(m)) * double(p - 1));
      EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
    }
  }
}

// Open MPI's recursive halving (2) and butterfly (4) reduce-scatters, every processor's
// words from the ops against a count made from the algorithms' description: with P = 2^floor(lg p)
// and r = p - P, an even x < 2r sends its p m words and nothing else; a virtual rank that ends with
// virtual block f sends, for n = P/2 .. 1, the aligned n virtual blocks holding f ^ n (virtual block
// t is 2m words when t < r, else m), f = t for halving and f = rev(t) for the butterfly; then the
// blocks it hands on: one of m words to a folded-away rank when it holds a merged block, and for
// the butterfly one to rev(t) when rev(t) != t. The closed forms equal the simulated time
// (gamma > 0) and both executors verify.
TEST(OmpiVariants, RecursiveHalvingAndButterflyReduceScatters) {
  for (const char* name : {"reduce_scatter_recursive_halving_ompi", "reduce_scatter_butterfly_ompi"}) {
    const bool butterfly = std::string(name) == "reduce_scatter_butterfly_ompi";
    for (int64_t p : {1, 2, 3, 4, 5, 6, 7, 8, 12, 13}) {
      for (int64_t m : {1, 4, 7}) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        ppsim::RunConfig c = make_config(name, ppsim::TopologyKind::full, p, "", m);
        c.cost.ts = 3;
        c.cost.tw = 2;
        c.cost.gamma = 0.5;
        int bits = 0;
        while ((int64_t{2} << bits) <= p) ++bits;
        const int64_t pp = int64_t{1} << bits, rem = p - pp;
        auto rev = [&](int64_t t) {
          int64_t r = 0;
          for (int i = 0; i < bits; ++i) r |= ((t >> i) & 1) << (bits - 1 - i);
          return r;
        };
        auto words = [&](int64_t lo, int64_t n) {  // virtual blocks [lo, lo + n)
          int64_t w = 0;
          for (int64_t t = lo; t < lo + n; ++t) w += t < rem ? 2 * m : m;
          return w;
        };
        std::vector<int64_t> sent(size_t(p), 0), expect(size_t(p), 0);
        for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
          for (int64_t x = 0; x < p; ++x) {
            ppsim::StepOps ops;
            ppsim::algorithm_ops(c.algorithm->id, c.params, x, r, ops);
            for (int i = 0; i < ops.nsend; ++i) sent[size_t(x)] += ops.send[i].len;
          }
        for (int64_t x = 0; x < p; ++x) {
          if (x < 2 * rem && x % 2 == 0) {
            expect[size_t(x)] = p * m;
            continue;
          }
          const int64_t t = x < 2 * rem ? x / 2 : x - rem, f = butterfly ? rev(t) : t;
          for (int64_t n = pp / 2; n >= 1; n /= 2) expect[size_t(x)] += words((f ^ n) & ~(n - 1), n);
          if (f < rem) expect[size_t(x)] += m;
          if (butterfly && f != t) expect[size_t(x)] += m;
        }
        EXPECT_EQ(sent, expect);
        EXPECT_EQ(c.algorithm->rounds(c.params), bits + (rem > 0 ? 2 : 0) + (butterfly && pp >= 4 ? 1 : 0));
        const ppsim::RunResult res = ppsim::run_cpu(c);
        EXPECT_TRUE(res.verified);
        EXPECT_DOUBLE_EQ(res.time, ppsim::formula_time(c));
        EXPECT_TRUE(ppsim::run_device_rounds_on_host(c).verified);
      }
    }
  }
}
