// Mesh all-to-all reduction (textbook exercise 4.4: Alg. 4-6 run backwards): a ring reduction along
// the slowest dimension first (columns of a 2-D mesh) on units of all the blocks of one row, then
// along the next on units of the row's blocks, ... so each unit stays a contiguous run. Ring order:
// ⊕ must be commutative. T = t_s sum_k (n_k - 1) + t_w m (p - 1); 2 t_s (sqrt p - 1) + t_w m (p - 1)
// on a sqrt p x sqrt p torus.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/block_patterns.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct ReduceScatterMesh : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_mesh";
  static constexpr const char* description = "ring reductions along columns, then rows (exercise 4.4)";
  static constexpr const char* formula_text = "t_s sum_k (n_k - 1) + (t_w + gamma) m (p - 1)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = kCommutativeOnly;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) {
    int r = 0;
    for (int k = 0; k < a.ndims; ++k) r += int(a.dims[k] - 1);
    return r;
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return c.ts * rounds(a) + (c.tw + c.gamma) * double(a.m) * double(a.p - 1);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int k = 0;  // the slowest dimension first
    while (k < a.ndims && round > a.dims[k] - 1) round -= int(a.dims[k] - 1), ++k;
    if (k >= a.ndims) return;
    const int64_t n = a.dims[k], c = grid_coord(a, id, k), unit_blocks = grid_stride(a, k);
    const int64_t base = id - id % (n * unit_blocks);  // first block of the range still being reduced
    line_rs_step(n, c, grid_with_coord(a, id, k, pos_mod(c - 1, n)), grid_with_coord(a, id, k, pos_mod(c + 1, n)), kData, base * a.m,
                 unit_blocks * a.m, round, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::after_last_step)
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][id * a.m + w];
  }
};

}  // namespace ppsim
