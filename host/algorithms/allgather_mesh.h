// Mesh all-to-all broadcast (textbook Alg. 4-6, Fig. 4-10): a ring all-to-all broadcast along every
// row (n_X - 1 steps of m words), then along every column with the whole row's blocks (n_Y - 1
// steps of n_X m words), then along the third dimension in 3-D. Row-major numbering keeps every
// gathered group contiguous. T = t_s sum_k (n_k - 1) + t_w m (p - 1); on a sqrt p x sqrt p torus
// 2 t_s (sqrt p - 1) + t_w m (p - 1)  [eq. 4-3].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct AllgatherMesh : AlgorithmDefaults {
  static constexpr const char* name = "allgather_mesh";
  static constexpr const char* description = "ring all-to-all broadcast along rows, then columns (Alg. 4-6)";
  static constexpr const char* formula_text = "t_s sum_k (n_k - 1) + t_w m (p - 1)  [eq. 4-3]";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) {
    int r = 0;
    for (int k = 0; k < a.ndims; ++k) r += int(a.dims[k] - 1);
    return r;
  }
  static double formula(const AlgoParams& a, const CostParams& c) { return c.ts * rounds(a) + c.tw * double(a.m) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int local = 0;
    int k = grid_phase(a, round, local, [&](int j) { return int(a.dims[j] - 1); });
    if (k < 0) return;
    int64_t n = a.dims[k], c = grid_coord(a, id, k);
    int64_t unit = grid_stride(a, k) * a.m;      // words this processor holds per line member
    int64_t base = id - id % grid_stride(a, k);  // first id of my group
    auto group_offset = [&](int64_t coord) { return grid_with_coord(a, base, k, coord) * a.m; };
    out.add_send(grid_with_coord(a, id, k, c + 1 == n ? 0 : c + 1), kData, group_offset(pos_mod(c - local + 1, n)), unit);
    out.add_recv(grid_with_coord(a, id, k, c == 0 ? n - 1 : c - 1), kData, group_offset(pos_mod(c - local, n)), unit, RecvMode::copy);
  }
};

}  // namespace ppsim
