// Circular q-shift on a mesh or torus in row-major numbering (textbook §4.6.1, Fig. 4-22): every
// value first moves q mod C places along its row (the shorter way), the values that went round
// the end of their row take one compensating step down a column, then every value moves
// floor(q / C) rows (the shorter way). Steps: min(s, C - s) + [s > 0] + min(t, R - t) with
// s = q mod C, t = floor(q / C) mod R, at most floor(sqrt p / 2) + 1 + floor(sqrt p / 2) on a square
// torus. T = (t_s + t_w m) x steps <= (t_s + t_w m)(sqrt p + 1).
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct ShiftMesh : AlgorithmDefaults {
  static constexpr const char* name = "shift_mesh";
  static constexpr const char* description = "row shift, compensating column step, column shift (Fig. 4-22); 2-D";
  static constexpr const char* formula_text = "(t_s + t_w m)(min(s, C-s) + [s > 0] + min(t, R-t)) <= (t_s + t_w m)(sqrt p + 1)";
  static constexpr Operation op = Operation::shift;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kTransit = 2;  // scratch: a value in the middle of a pipelined phase

  struct Plan {
    int64_t row_shift, row_steps, row_dir, carry_steps, col_shift, col_steps, col_dir;
  };
  PPSIM_HD static Plan plan(const AlgoParams& a) {
    const int64_t R = a.ndims == 2 ? a.dims[0] : 1, C = a.ndims == 2 ? a.dims[1] : a.p;
    const int64_t q = pos_mod(a.shift, a.p), s = q % C, t = (q / C) % R;
    Plan pl;
    pl.row_shift = s;
    pl.row_steps = s <= C - s ? s : C - s;
    pl.row_dir = s <= C - s ? 1 : -1;
    pl.carry_steps = s > 0 && R > 1 ? 1 : 0;
    pl.col_shift = t;
    pl.col_steps = t <= R - t ? t : R - t;
    pl.col_dir = t <= R - t ? 1 : -1;
    return pl;
  }
  static int rounds(const AlgoParams& a) {
    Plan pl = plan(a);
    return int(pl.row_steps + pl.carry_steps + pl.col_steps);
  }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  // One pipelined move along dimension k by dir, step `step` of `steps` (values wait in kTransit).
  PPSIM_HD static void pipeline(const AlgoParams& a, int64_t id, int k, int64_t dir, int64_t step, int64_t steps, StepOps& out) {
    const int64_t n = a.dims[k], c = grid_coord(a, id, k);
    out.add_send(grid_with_coord(a, id, k, pos_mod(c + dir, n)), step == 1 ? kResult : kTransit, 0, a.m);
    out.add_recv(grid_with_coord(a, id, k, pos_mod(c - dir, n)), step == steps ? kResult : kTransit, 0, a.m, RecvMode::copy);
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const Plan pl = plan(a);
    const int row_dim = a.ndims - 1, col_dim = 0;
    if (round <= pl.row_steps) return pipeline(a, id, row_dim, pl.row_dir, round, pl.row_steps, out);
    round -= int(pl.row_steps);
    if (round <= pl.carry_steps) {  // values now in columns < s went round the end of their row
      const int64_t R = a.dims[col_dim], r = grid_coord(a, id, col_dim);
      if (grid_coord(a, id, row_dim) >= pl.row_shift) return;
      out.add_send(grid_with_coord(a, id, col_dim, pos_mod(r + 1, R)), kResult, 0, a.m);
      out.add_recv(grid_with_coord(a, id, col_dim, pos_mod(r - 1, R)), kResult, 0, a.m, RecvMode::copy);
      return;
    }
    round -= int(pl.carry_steps);
    pipeline(a, id, col_dim, pl.col_dir, round, pl.col_steps, out);
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)  // the value each processor holds starts as its own
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][w];
  }
  static int64_t scratch_words(const AlgoParams& a) { return a.m; }
  static const char* rejects(const AlgoParams& a) { return a.ndims == 2 ? nullptr : "shift_mesh handles 2-D meshes (--dims RxC)"; }
};

}  // namespace ppsim
