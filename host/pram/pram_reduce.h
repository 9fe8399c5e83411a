// EREW reduction (the group-operations slides, Procedure Reduction): every cell starts with its processor's value; in
// step j (0-based) processor i with i mod 2^(j+1) = 0 reads cell i + 2^j, folds it in on the right
// and writes cell i. Processor 0 ends with a_0 ⊕ ... ⊕ a_(N-1). ceil(log2 N) steps.
#pragma once
#include "ppsim/pram.h"

namespace ppsim {

struct PramReduce {
  static constexpr const char* name = "pram_reduce";
  static constexpr const char* description = "EREW pairwise folding towards processor 0, ceil(log2 N) steps";
  static constexpr Operation op = Operation::reduce;
  static constexpr PramRule weakest_rule = PramRule::erew;
  static int steps(const PramParams& a) { return ceil_log2(a.n); }
  PPSIM_HD static PramOps ops(const PramParams& a, int64_t i, int step) {
    int64_t half = int64_t{1} << (step - 1);
    if (i % (2 * half) != 0 || i + half >= a.n) return {};
    return {i + half, RegisterUpdate::reg_op_read, i};
  }
};

}  // namespace ppsim
