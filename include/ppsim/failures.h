// Failures injected into a step-model run (--fail, --reroute): processors and links that stop at a
// given step. What a failure does to a message is one rule (rules/failure_rules.h) that the CPU
// backend and the device rounds both apply:
//   proc:P@S    from step S, processor P neither sends nor receives (nor does its local work after
//               the last step); a message it would send in step S or later is not sent, and one
//               that would reach it in step S or later is lost.
//   link:A-B@S  the link between topology nodes A and B, both directions, is down from step S: a
//               message whose route crosses it and that arrives in step S or later is lost, or
//               with reroute takes the first of its topology's other routes that is up.
// A lost message is dropped before it is matched: it loads no link, costs nothing, and its
// receive is not posted (an unmatched receive is then no schedule error). The device reads this
// struct as it is, so the lists have fixed sizes.
#pragma once
#include <cstdint>

#include "ppsim/hd.h"

namespace ppsim {

inline constexpr int kMaxFailures = 8;  // of each kind (the device takes the struct as a kernel argument)

struct FailedProc {
  int64_t proc, step;
};

// A link by its two end nodes (as the topology numbers them: processors 0..p-1, then switches) and
// the ids of its two directions (-1: none; a direct-link topology has no link ids, its link from a
// to b is the route between them).
struct FailedLink {
  int64_t a, b, step;
  int64_t id_ab, id_ba;
};

struct Failures {
  int32_t nproc = 0, nlink = 0;
  FailedProc proc[kMaxFailures] = {};
  FailedLink link[kMaxFailures] = {};
  bool reroute = false;

  PPSIM_HD bool any() const { return nproc > 0 || nlink > 0; }
  // Whether processor i is down in step t.
  PPSIM_HD bool proc_down(int64_t i, int64_t t) const {
    for (int n = 0; n < nproc; ++n)
      if (proc[n].proc == i && t >= proc[n].step) return true;
    return false;
  }
  // Whether directed link id is down in step t.
  PPSIM_HD bool link_down(int64_t id, int64_t t) const {
    for (int n = 0; n < nlink; ++n)
      if ((link[n].id_ab == id || link[n].id_ba == id) && t >= link[n].step) return true;
    return false;
  }
  // Whether any link is down in step t.
  PPSIM_HD bool links_down(int64_t t) const {
    for (int n = 0; n < nlink; ++n)
      if (t >= link[n].step) return true;
    return false;
  }
};

}  // namespace ppsim
