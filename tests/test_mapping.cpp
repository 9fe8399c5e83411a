// Logical topologies on physical ones (textbook §2.7): the mappings' dilation and congestion, and
// algorithms run through them.
#include <gtest/gtest.h>

#include <set>

#include "ppsim/engine.h"
#include "ppsim/mapping.h"
#include "test_helpers.h"

using namespace ppsim;

namespace {

Mapping mapping(MapKind kind, Topology logical, Topology physical) {
  Mapping m;
  m.kind = kind;
  m.logical = logical;
  m.physical = physical;
  return m;
}

RunConfig mapped(const char* algo, Mapping m, int64_t words = 2) {
  const std::string dims = topology_dims(m.logical);
  RunConfig c = testing_support::make_config(algo, m.logical.kind, dims.empty() ? m.logical.p : 0, dims, words, OperatorKind::interval);
  c.mapped = true;
  c.mapping = m;
  return c;
}

}  // namespace

TEST(Mapping, GrayCodeBasics) {
  for (int64_t i = 0; i < 1024; ++i) {
    EXPECT_EQ(gray_inverse(gray_code(i)), i);
    EXPECT_EQ(__builtin_popcountll(uint64_t(gray_code(i) ^ gray_code((i + 1) % 1024))), 1) << i;  // neighbours differ in one bit
  }
  EXPECT_EQ(gray_code(2), 3);  // the 3-bit code 000 001 011 010 110 111 101 100 (Fig. 2-30)
  EXPECT_EQ(gray_code(7), 4);
}

// §2.7.1: a ring of 2^d on a hypercube, and a 2^r x 2^s torus on a hypercube, both with dilation 1
// and congestion 1; a linear array on a mesh (Fig. 2-32a) likewise.
TEST(Mapping, TextbookEmbeddingsHaveDilationAndCongestionOne) {
  for (int64_t p : {4, 16, 64, 256}) {
    Topology cube = make_topology(TopologyKind::hypercube, p, "");
    MappingMetrics ring = mapping_metrics(mapping(MapKind::gray, make_topology(TopologyKind::ring, p, ""), cube));
    EXPECT_TRUE(ring.computed);
    EXPECT_EQ(ring.dilation, 1) << p;
    EXPECT_EQ(ring.congestion, 1) << p;
    EXPECT_DOUBLE_EQ(ring.expansion, 1.0);
  }
  for (const char* dims : {"4x4", "2x8", "8x8", "4x16"}) {
    Topology torus = make_topology(TopologyKind::torus, 0, dims);
    MappingMetrics m = mapping_metrics(mapping(MapKind::gray, torus, make_topology(TopologyKind::hypercube, torus.p, "")));
    EXPECT_EQ(m.dilation, 1) << dims;
    EXPECT_EQ(m.congestion, 1) << dims;
  }
  for (const char* dims : {"4x4", "3x5", "8x8"}) {
    Topology mesh = make_topology(TopologyKind::mesh, 0, dims);
    MappingMetrics m = mapping_metrics(mapping(MapKind::snake, make_topology(TopologyKind::linear, mesh.p, ""), mesh));
    EXPECT_EQ(m.dilation, 1) << dims;
    EXPECT_EQ(m.congestion, 1) << dims;
  }
}

// §2.7.1 item 4: a 16-node hypercube on a 4x4 mesh, rows holding 2-cubes in Gray order, meets the
// bisection bound sqrt p / 2 = 2 on congestion (bisection p/2 = 8 links over sqrt p = 4).
TEST(Mapping, HypercubeOnAMeshMeetsTheBisectionBoundAtSixteen) {
  MappingMetrics m =
      mapping_metrics(mapping(MapKind::gray, make_topology(TopologyKind::hypercube, 16, ""), make_topology(TopologyKind::mesh, 0, "4x4")));
  EXPECT_EQ(m.congestion, 2);
  EXPECT_GE(m.congestion, 16 / 2 / 4);  // the bound itself
}

TEST(Mapping, AlgorithmsRunThroughMappings) {
  // The ring all-gather stays congestion-free on a hypercube through the Gray code.
  RunResult ring = run_cpu(mapped(
      "allgather_ring", mapping(MapKind::gray, make_topology(TopologyKind::ring, 32, ""), make_topology(TopologyKind::hypercube, 32, ""))));
  EXPECT_TRUE(ring.verified);
  EXPECT_EQ(ring.max_link_load, 1);
  EXPECT_EQ(ring.link_hops, ring.messages);  // every message one hop
  // Without the mapping (identity on a hypercube) the ring's neighbours are up to log p hops apart.
  RunConfig plain = testing_support::make_config("allgather_ring", TopologyKind::hypercube, 32, "", 2, OperatorKind::interval);
  EXPECT_GT(run_cpu(plain).link_hops, ring.link_hops);
  // A hypercube algorithm on a torus through the inverse Gray code, and a mesh algorithm on a hypercube.
  EXPECT_TRUE(run_cpu(mapped("allreduce_hypercube", mapping(MapKind::gray, make_topology(TopologyKind::hypercube, 64, ""),
                                                            make_topology(TopologyKind::torus, 0, "8x8"))))
                  .verified);
  EXPECT_TRUE(run_cpu(mapped("allgather_mesh", mapping(MapKind::gray, make_topology(TopologyKind::torus, 0, "4x8"),
                                                       make_topology(TopologyKind::hypercube, 32, ""))))
                  .verified);
}

TEST(Mapping, MapsArePermutationsAndBadOnesAreRefused) {
  Mapping snake = mapping(MapKind::snake, make_topology(TopologyKind::ring, 15, ""), make_topology(TopologyKind::mesh, 0, "3x5"));
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 15; ++i) seen.insert(map_node(snake, i));
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_NE(mapping_rejects(mapping(MapKind::gray, make_topology(TopologyKind::ring, 12, ""), make_topology(TopologyKind::mesh, 0, "3x4"))),
            "");
  EXPECT_NE(
      mapping_rejects(mapping(MapKind::identity, make_topology(TopologyKind::ring, 12, ""), make_topology(TopologyKind::ring, 16, ""))),
      "");
  EXPECT_NE(
      mapping_rejects(mapping(MapKind::snake, make_topology(TopologyKind::ring, 16, ""), make_topology(TopologyKind::hypercube, 16, ""))),
      "");
}
