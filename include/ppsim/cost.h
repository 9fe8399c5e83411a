// Linear message-cost models (textbook §2.5.1; docs/DESIGN.md §3). Units: t_s, t_h, t_w in time units
// (per message, per hop, per word); m in words; l in links; c = congestion (messages sharing the
// busiest link of the route in the same step).
//
//   cut-through        : T = t_s + l*t_h + t_w*m*c
//   store-and-forward  : T = t_s + l*(t_h + t_w*m*c)
#pragma once
#include "ppsim/hd.h"

namespace ppsim {

enum class Routing : int8_t { cut_through, store_and_forward };

struct CostParams {
  double ts = 1.0;  // startup per message
  double tw = 1.0;  // per word per link
  double th = 0.0;  // per hop
  Routing routing = Routing::cut_through;
  double gamma = 0.0;  // per combined word: a message whose receive combines c words adds gamma * c
};

// A message of `words` words over `hops` links whose busiest link carries `congestion` messages in
// its step, and whose receive combines `combined` words into the receiver's slots.
PPSIM_HD inline double message_time(const CostParams& c, int64_t words, int64_t hops, int64_t congestion, int64_t combined = 0) {
  double wc = c.tw * double(words) * double(congestion);
  double t = c.routing == Routing::cut_through ? c.ts + double(hops) * c.th + wc : c.ts + double(hops) * (c.th + wc);
  return combined ? t + c.gamma * double(combined) : t;
}

}  // namespace ppsim
