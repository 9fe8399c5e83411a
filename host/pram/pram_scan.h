// EREW prefix (the group-operations slides, Procedure Prefix): every cell starts with its processor's value; in step j
// (0-based) every processor i >= 2^j reads cell i - 2^j (the fold of the 2^j values before its
// own range), folds it in on the left and writes cell i. ceil(log2 N) steps.
#pragma once
#include "ppsim/pram.h"

namespace ppsim {

struct PramScan {
  static constexpr const char* name = "pram_scan";
  static constexpr const char* description = "EREW doubling prefix: read A(i - 2^j), fold on the left, ceil(log2 N) steps";
  static constexpr Operation op = Operation::scan;
  static constexpr PramRule weakest_rule = PramRule::erew;
  static int steps(const PramParams& a) { return ceil_log2(a.n); }
  PPSIM_HD static PramOps ops(const PramParams&, int64_t i, int step) {
    int64_t dist = int64_t{1} << (step - 1);
    if (i < dist) return {};
    return {i - dist, RegisterUpdate::read_op_reg, i};
  }
};

}  // namespace ppsim
