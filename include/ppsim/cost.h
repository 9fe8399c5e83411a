// Linear message-cost models (textbook §2.5.1; docs/DESIGN.md §3). Units: t_s, t_h, t_w in time units
// (per message, per hop, per word); m in words; l in links; c = congestion (messages sharing the
// busiest link of the route in the same step).
//
//   cut-through        : T = t_s + l*t_h + t_w*m*c
//   store-and-forward  : T = t_s + l*(t_h + t_w*m*c)
//
// Link classes (--tw-class): a topology sorts its links into classes (host/machine/topologies/unit.h), and a
// class may have its own per-word time. The term t_w*m*c then becomes the largest
// t_w(class(l)) * m * load(l) over the links l of the route, computed in that order; with no class
// given it is t_w * m * c exactly as before.
#pragma once
#include <cstdint>

#include "ppsim/hd.h"
#include "ppsim/stragglers.h"

namespace ppsim {

enum class Routing : int8_t { cut_through, store_and_forward };

// linear: the step model above; loggp: LogGP/LogGOPS per-processor clocks (host/loggp/loggp.h), as
// LogGOPSim computes them, from the algorithm's rounds (a round's operations wait for the receives
// of the processor's earlier rounds).
enum class CostModel : int8_t { linear, loggp };

// LogGOPSim's parameters and defaults: nanoseconds, bytes (a word is 8 bytes).
struct LogGPParams {
  uint64_t L = 2500;   // wire latency
  uint64_t o = 1500;   // CPU overhead per message
  uint64_t g = 1000;   // NIC gap between messages
  uint64_t G = 6;      // NIC gap per byte
  uint64_t O = 0;      // CPU overhead per byte
  uint64_t S = 65535;  // largest eager message; larger ones use the rendezvous protocol
};
inline constexpr int64_t kBytesPerWord = 8;

// The most link classes a topology has (a fat tree's levels: at most 31 under the 2^31 limit on p).
inline constexpr int kMaxLinkClasses = 32;

struct CostParams {
  double ts = 1.0;  // startup per message
  double tw = 1.0;  // per word per link
  double th = 0.0;  // per hop
  Routing routing = Routing::cut_through;
  double gamma = 0.0;  // per combined word: a message whose receive combines c words adds gamma * c
  // Per-word times of link classes: bit k of tw_class_set says class k has tw_class[k]; a class
  // without one costs tw. No bit set: the per-word term is tw * m * c.
  uint32_t tw_class_set = 0;
  double tw_class[kMaxLinkClasses] = {};
  CostModel model = CostModel::linear;
  LogGPParams loggp = {};  // model == loggp
  Stragglers stragglers = {};  // processors that work slower, in either model (stragglers.h)

  // Per-class startup times (NCCL's protocols, --protocol; protocol.h): bit k of ts_class_set says
  // class k has ts_class[k]; a message's startup is then the largest over the links of its route.
  // No bit set: every message starts with ts.
  uint32_t ts_class_set = 0;
  double ts_class[kMaxLinkClasses] = {};

  PPSIM_HD double tw_of_class(int k) const { return (tw_class_set >> k) & 1u ? tw_class[k] : tw; }
  PPSIM_HD double ts_of_class(int k) const { return (ts_class_set >> k) & 1u ? ts_class[k] : ts; }
  void set_class_tw(int k, double value) {
    tw_class[k] = value;
    tw_class_set |= 1u << k;
  }
};

// A message over `hops` links that starts in `startup` (t_s, or its link-class form), whose per-word
// term (t_w*m*c, or its link-class form) is `word_time`, and whose receive combines `combined` words
// into the receiver's slots.
PPSIM_HD inline double message_time_of(const CostParams& c, double startup, double word_time, int64_t hops, int64_t combined = 0) {
  double t = c.routing == Routing::cut_through ? startup + double(hops) * c.th + word_time : startup + double(hops) * (c.th + word_time);
  return combined ? t + c.gamma * double(combined) : t;
}

// A message of `words` words over `hops` links whose busiest link carries `congestion` messages in
// its step, every link costing tw per word.
PPSIM_HD inline double message_time(const CostParams& c, int64_t words, int64_t hops, int64_t congestion, int64_t combined = 0) {
  return message_time_of(c, c.ts, c.tw * double(words) * double(congestion), hops, combined);
}

}  // namespace ppsim
