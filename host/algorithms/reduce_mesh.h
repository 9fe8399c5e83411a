// Mesh reduction in phases: every row folds to the root's column (nearest-first binomial tree of a
// linear array), then that column folds to the root (then the plane, in 3-D). Folding rows before
// columns keeps row-major processor order, so with root 0 any associative ⊕ works.
// sum_k ceil(log2 n_k) steps. T = (t_s + t_w m) sum_k ceil(log2 n_k)  [eq. 4-1].
#pragma once
#include "algorithms/tree_pattern.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct ReduceMesh : AlgorithmDefaults {
  static constexpr const char* name = "reduce_mesh";
  static constexpr const char* description = "row, then column (then plane) binomial reduction on a mesh or torus";
  static constexpr const char* formula_text = "(t_s + (t_w + gamma) m) sum_k ceil(log2 n_k)  [eq. 4-1]";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = kRootZeroIfNoncommutative;

  static int rounds(const AlgoParams& a) { return BroadcastMesh::rounds(a); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + (c.tw + c.gamma) * a.m) * rounds(a); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int local = 0;
    int k = grid_phase(a, round, local, [&](int j) { return ceil_log2(a.dims[j]); });
    if (k < 0) return;
    for (int j = k + 1; j < a.ndims; ++j)  // dimensions already folded: only the root's line goes on
      if (grid_coord(a, id, j) != grid_coord(a, a.root, j)) return;
    int64_t n = a.dims[k], rc = grid_coord(a, a.root, k);
    TreeStep s = tree_collect_step(pos_mod(grid_coord(a, id, k) - rc, n), n, local, true);
    if (s.role == TreeRole::idle) return;
    int64_t partner = grid_with_coord(a, id, k, pos_mod(s.partner + rc, n));
    if (s.role == TreeRole::send) out.add_send(partner, kData, 0, a.m);
    else out.add_recv(partner, kData, 0, a.m, fold_mode(id, partner));
  }
};

}  // namespace ppsim
