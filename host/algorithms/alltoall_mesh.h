// All-to-all personalized on a 2-D mesh (textbook §4.5.2, eq. 4-8): a ring all-to-all along every
// row on units of R blocks (all blocks for one column), then along every column on units of C
// blocks (all blocks for one processor of the column). The textbook's regrouping between the
// phases is done by the receives themselves: a phase-1 unit arrives ordered by row and is written
// with stride C into the phase-2 layout. Scratch: phase-1 units [0, p m), phase-2 units [p m, 2 p m),
// both ordered by position relative to the holder. (C-1) + (R-1) steps.
// T = sum (t_s + t_w m R (C-i)) + sum (t_s + t_w m C (R-i)) = (2 t_s + t_w m p)(sqrt p - 1) on a
// square mesh  [eq. 4-8].
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

struct AlltoallMesh : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_mesh";
  static constexpr const char* description = "ring all-to-all along rows, regroup, then along columns (eq. 4-8); 2-D";
  static constexpr const char* formula_text =
      "sum_i (t_s + t_w m R (C-i)) + sum_i (t_s + t_w m C (R-i)) = (2 t_s + t_w m p)(sqrt p - 1)  [eq. 4-8]";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kGridTopologies;
  static constexpr uint32_t native = kGridTopologies;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kUnits = 2;  // scratch

  static int64_t scratch_words(const AlgoParams& a) { return 2 * a.p * a.m; }
  static const char* rejects(const AlgoParams& a) { return a.ndims == 2 ? nullptr : "alltoall_mesh handles 2-D meshes (--dims RxC)"; }
  static int rounds(const AlgoParams& a) { return a.ndims == 2 ? int(a.dims[0] - 1 + a.dims[1] - 1) : 0; }
  static double formula(const AlgoParams& a, const CostParams& c) {
    const int64_t R = a.dims[0], C = a.dims[1];
    double t = 0;
    for (int64_t i = 1; i < C; ++i) t += c.ts + c.tw * double(a.m * R * (C - i));
    for (int64_t i = 1; i < R; ++i) t += c.ts + c.tw * double(a.m * C * (R - i));
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t R = a.dims[0], C = a.dims[1], r = id / C, c = id % C, m = a.m, second = a.p * m;
    if (round < C) {  // phase 1 along the row: units of R blocks, slot k for column c + k
      const int64_t i = round, blocks = C - i, unit = R * m;
      out.add_send(r * C + pos_mod(c + 1, C), kUnits, unit, blocks * unit);
      // The first unit is for my column, from column c - i: scatter its R blocks (ordered by row
      // relative to r) into the phase-2 layout [relative row][source column].
      out.add_recv_strided(r * C + pos_mod(c - 1, C), kUnits, second + pos_mod(c - i, C) * m, m, C * m, blocks * R, RecvMode::copy);
      out.restrict_last_action(0, unit);
      if (blocks > 1) {
        out.add_action(kUnits, unit, RecvMode::copy);
        out.restrict_last_action(unit, (blocks - 1) * unit);
      }
      return;
    }
    const int64_t i = round - (C - 1), blocks = R - i, unit = C * m;  // phase 2 along the column
    out.add_send(pos_mod(r + 1, R) * C + c, kUnits, second + unit, blocks * unit);
    out.add_recv(pos_mod(r - 1, R) * C + c, kResult, pos_mod(r - i, R) * unit, blocks * unit, RecvMode::copy);
    out.restrict_last_action(0, unit);
    if (blocks > 1) {
      out.add_action(kUnits, second + unit, RecvMode::copy);
      out.restrict_last_action(unit, (blocks - 1) * unit);
    }
  }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    const int64_t R = a.dims[0], C = a.dims[1], r = id / C, c = id % C, m = a.m, second = a.p * m;
    uint64_t *send = b.buf[kData], *recv = b.buf[kResult], *units = b.buf[kUnits];
    for (int64_t j = 0; j < R; ++j)    // relative row j
      for (int64_t k = 0; k < C; ++k)  // relative column k
        for (int64_t w = 0; w < m; ++w) {
          const int64_t dest = pos_mod(r + j, R) * C + pos_mod(c + k, C);
          if (phase == LocalPhase::before_first_step) {
            units[(k * R + j) * m + w] = send[dest * m + w];                       // phase-1 unit k, block j
            if (k == 0) units[second + (j * C + c) * m + w] = send[dest * m + w];  // my own column needs no phase 1
          } else if (j == 0) {
            recv[(r * C + k) * m + w] = units[second + k * m + w];  // from my own row
          }
        }
  }
};

}  // namespace ppsim
