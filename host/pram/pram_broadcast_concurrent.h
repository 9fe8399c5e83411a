// CREW broadcast in one step: every processor reads cell 0 at once (a concurrent read, which EREW
// forbids) and writes its own cell.
#pragma once
#include "ppsim/pram.h"

namespace ppsim {

struct PramBroadcastConcurrent {
  static constexpr const char* name = "pram_broadcast_concurrent";
  static constexpr const char* description = "CREW: all processors read A(0) in one step";
  static constexpr Operation op = Operation::broadcast;
  static constexpr PramRule weakest_rule = PramRule::crew;
  static int steps(const PramParams& a) { return a.n > 1 ? 1 : 0; }
  PPSIM_HD static PramOps ops(const PramParams&, int64_t i, int) {
    if (i == 0) return {};
    return {0, RegisterUpdate::load, i};
  }
};

}  // namespace ppsim
