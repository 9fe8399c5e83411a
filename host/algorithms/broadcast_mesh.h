// Mesh broadcast in phases (textbook §4.1.2, Fig. 4-5): the source broadcasts along its row with
// the farthest-first binomial tree of a linear array, then every processor of that row along its
// column (and, in 3-D, along the third dimension). Coordinates are relative to the source.
// sum_k ceil(log2 n_k) steps. T = (t_s + t_w m) sum_k ceil(log2 n_k) = (t_s + t_w m) log p on a
// sqrt p x sqrt p mesh  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct BroadcastMesh : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_mesh";
  static constexpr const char* description = "row, then column (then plane) binomial broadcast on a mesh or torus (Fig. 4-5)";
  static constexpr const char* formula_text = "(t_s + t_w m) sum_k ceil(log2 n_k)  [eq. 4-1]";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) {
    int r = 0;
    for (int k = 0; k < a.ndims; ++k) r += ceil_log2(a.dims[k]);
    return r;
  }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int local = 0;
    int k = grid_phase(a, round, local, [&](int j) { return ceil_log2(a.dims[j]); });
    if (k < 0) return;
    for (int j = 0; j < k; ++j)  // dimensions not yet reached: only the source's line takes part
      if (grid_coord(a, id, j) != grid_coord(a, a.root, j)) return;
    int64_t n = a.dims[k], rc = grid_coord(a, a.root, k);
    TreeStep s = tree_spread_step(pos_mod(grid_coord(a, id, k) - rc, n), n, local, true);
    if (s.role == TreeRole::idle) return;
    int64_t partner = grid_with_coord(a, id, k, pos_mod(s.partner + rc, n));
    if (s.role == TreeRole::send) out.add_send(partner, kData, 0, a.m);
    else out.add_recv(partner, kData, 0, a.m, RecvMode::copy);
  }
};

}  // namespace ppsim
