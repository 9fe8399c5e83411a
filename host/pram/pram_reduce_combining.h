// CRCW-combining reduction in two steps: every processor writes its value to cell 0 at once (the
// combining rule folds them in processor order), then processor 0 reads cell 0. Under EREW/CREW
// the first step is a write conflict; under common CRCW the values differ; under priority or
// arbitrary CRCW one value wins and the result is wrong.
#pragma once
#include "ppsim/pram.h"

namespace ppsim {

struct PramReduceCombining {
  static constexpr const char* name = "pram_reduce_combining";
  static constexpr const char* description = "CRCW combining: all write A(0) at once, processor 0 reads it";
  static constexpr Operation op = Operation::reduce;
  static constexpr PramRule weakest_rule = PramRule::crcw_combining;
  static int steps(const PramParams& a) { return a.n > 1 ? 2 : 0; }
  PPSIM_HD static PramOps ops(const PramParams&, int64_t i, int step) {
    if (step == 1) return {-1, RegisterUpdate::keep, 0};
    if (i == 0) return {0, RegisterUpdate::load, -1};
    return {};
  }
};

}  // namespace ppsim
