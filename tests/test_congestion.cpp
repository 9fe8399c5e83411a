// Congestion from the topology's routes (docs/DESIGN.md §3, textbook §2.5 and §4.2).
#include <gtest/gtest.h>

#include "ppsim/engine.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

// Fig. 4-12: the hypercube all-to-all broadcast on an 8-node ring. Step j pairs i with i ^ 2^(j-1):
// distances 1, 2, 4. In step 3 all eight messages travel 4 links the same way round (a tie goes
// +), 32 link-uses on 8 links: 4 messages on each link.
TEST(Congestion, HypercubeAllgatherOnRingOf8PutsFourMessagesOnALinkInStep3) {
  RunConfig c = make_config("allgather_hypercube", TopologyKind::ring, 8, "", 1);
  c.cost = CostParams{0, 1, 0, Routing::cut_through};
  RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  ASSERT_EQ(r.per_step.size(), 3u);
  EXPECT_EQ(r.per_step[0].max_link_load, 1);
  EXPECT_EQ(r.per_step[1].max_link_load, 2);  // i <-> i^2: 0->2 and 1->3 both cross link 1->2
  EXPECT_EQ(r.per_step[2].max_link_load, 4);
  // Effective per-word time is c t_w (t_s = 0): 1 word x 1 + 2 words x 2 + 4 words x 4.
  EXPECT_DOUBLE_EQ(r.time, 1.0 * 1 + 2.0 * 2 + 4.0 * 4);
}

// Exercise 4.2: the textbook (farthest-first) broadcast on a ring is congestion-free; nearest
// first, step j sends 2^(j-1) messages 2^(j-1) links the same way: they pile up.
TEST(Congestion, TextbookRingBroadcastIsCongestionFreeLowestFirstIsNot) {
  for (int64_t p : {8, 16, 64, 256}) {
    RunResult high = run_cpu(make_config("broadcast_binomial", TopologyKind::ring, p));
    RunResult low = run_cpu(make_config("broadcast_binomial_low_first", TopologyKind::ring, p));
    ASSERT_TRUE(high.verified && low.verified);
    for (const auto& s : high.per_step) EXPECT_EQ(s.max_link_load, 1) << "p=" << p << " step " << s.step;
    // Last step: ranks 0..p/2-1 each send p/2 links the + way; all of them cross link p/2-1 -> p/2.
    EXPECT_EQ(low.per_step.back().max_link_load, p / 2) << p;
    RunResult hc = run_cpu(make_config("broadcast_hypercube_low_first", TopologyKind::hypercube, p));
    EXPECT_EQ(hc.max_link_load, 1) << "on a hypercube either order is congestion-free";
  }
}

// Fig. 4-7: the hypercube broadcast mapped onto a balanced binary tree never shares a link.
TEST(Congestion, HypercubeBroadcastOnATreeIsCongestionFree) {
  for (int64_t p : {8, 64, 1024}) {
    RunResult r = run_cpu(make_config("broadcast_hypercube", TopologyKind::tree, p));
    ASSERT_TRUE(r.verified);
    EXPECT_EQ(r.max_link_load, 1) << p;
  }
}

// Link-hops add up the route lengths: hypercube all-reduce on a ring of 8 uses distances 1, 2, 4.
// Fig. 4-2's tree laid on its own links: the farthest-first binomial broadcast from 0 on the
// binomial-tree topology sends every message over one link, so its time is eq. 4-1 exactly. On the
// complete binary tree the same ranks are farther apart: longer routes share links.
TEST(Congestion, BinomialBroadcastOnTheBinomialTreeIsOneHopPerMessage) {
  for (int64_t p : {2, 8, 64, 1024}) {
    RunConfig c = make_config("broadcast_binomial", TopologyKind::binomial, p, "", 5);
    c.cost = CostParams{3, 2, 7, Routing::store_and_forward};
    RunResult r = run_cpu(c);
    ASSERT_TRUE(r.verified);
    EXPECT_EQ(r.link_hops, r.messages) << p;
    EXPECT_EQ(r.max_link_load, 1) << p;
    EXPECT_DOUBLE_EQ(r.time, (3 + 7 + 2.0 * 5) * double(ceil_log2(p))) << p;  // t_s + l (t_h + t_w m), l = 1
  }
  RunResult b = run_cpu(make_config("broadcast_binomial", TopologyKind::bintree, 15));
  ASSERT_TRUE(b.verified);
  EXPECT_GT(b.link_hops, b.messages);
  EXPECT_GT(b.max_link_load, 1);
}

TEST(Congestion, LinkHopsAreRouteLengths) {
  RunResult r = run_cpu(make_config("allreduce_hypercube", TopologyKind::ring, 8));
  EXPECT_EQ(r.per_step[0].link_hops, 8 * 1);
  EXPECT_EQ(r.per_step[1].link_hops, 8 * 2);
  EXPECT_EQ(r.per_step[2].link_hops, 8 * 4);
  EXPECT_EQ(r.link_hops, 56);
}
