// EREW broadcast by doubling (the group-operations slides, Procedure Broadcast): D starts in cell 0 and processor 0's
// register; in step j (0-based) processors 2^j .. 2^(j+1) - 1 read cell i - 2^j and write cell i,
// so the holders double every step. ceil(log2 N) steps; reads and writes hit distinct cells.
#pragma once
#include "ppsim/pram.h"

namespace ppsim {

struct PramBroadcast {
  static constexpr const char* name = "pram_broadcast";
  static constexpr const char* description = "EREW doubling from A(0): holders double each step, ceil(log2 N) steps";
  static constexpr Operation op = Operation::broadcast;
  static constexpr PramRule weakest_rule = PramRule::erew;
  static int steps(const PramParams& a) { return ceil_log2(a.n); }
  PPSIM_HD static PramOps ops(const PramParams& a, int64_t i, int step) {
    int64_t half = int64_t{1} << (step - 1);
    if (i < half || i >= 2 * half || i >= a.n) return {};
    return {i - half, RegisterUpdate::load, i};
  }
};

}  // namespace ppsim
