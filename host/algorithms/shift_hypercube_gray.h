// Circular q-shift on a ring embedded in a hypercube by the reflected Gray code (textbook §4.6.2,
// eq. 4-11). Run it as --logical ring --map gray on a hypercube: positions i live on nodes G(i).
// q is a sum of powers of two; each phase moves every value 2^j positions. Positions 2^j apart
// (j >= 1) are two hypercube links apart, so such a phase takes two one-link steps through the node
// that flips the lower of the two differing bits (those intermediates are a permutation: no node
// gets two values); a 1-shift takes one step. Steps: 2 popcount(q) - [q odd] <= 2 log p - 1, every
// step congestion-free.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "ppsim/mapping.h"

namespace ppsim {

// kForwardBackward: also consider shifting backwards (shift_hypercube_gray_fb.h).
template <bool kForwardBackward>
struct ShiftHypercubeGrayT : AlgorithmDefaults {
  static constexpr Operation op = Operation::shift;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::linear);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2;
  static constexpr bool has_local = true;
  static constexpr int32_t kTransit = 2;  // scratch: the value resting on an intermediate node

  PPSIM_HD static int64_t steps_for(int64_t x) {
    int64_t s = 0;
    for (int j = 0; (x >> j) != 0; ++j)
      if ((x >> j) & 1) s += j == 0 ? 1 : 2;
    return s;
  }
  // The amount and direction used: forward by q, or (fb) backward by p - q when cheaper.
  PPSIM_HD static void plan(const AlgoParams& a, int64_t& amount, int64_t& dir) {
    const int64_t q = pos_mod(a.shift, a.p);
    amount = q;
    dir = 1;
    if (kForwardBackward && q != 0 && steps_for(a.p - q) < steps_for(q)) {
      amount = a.p - q;
      dir = -1;
    }
  }
  static int64_t scratch_words(const AlgoParams& a) { return a.m; }
  static int rounds(const AlgoParams& a) {
    int64_t amount, dir;
    plan(a, amount, dir);
    return int(steps_for(amount));
  }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m) * rounds(a); }

  PPSIM_HD static int64_t dest(const AlgoParams& a, int64_t i, int64_t dist) { return pos_mod(i + dist, a.p); }
  // The position whose node lies between G(i) and G(i + dist): flip the lower differing bit.
  PPSIM_HD static int64_t via(const AlgoParams& a, int64_t i, int64_t dist) {
    const int64_t g = gray_code(i), diff = g ^ gray_code(dest(a, i, dist));
    return gray_inverse(g ^ (diff & -diff));
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t i, int round, StepOps& out) {
    int64_t amount, dir;
    plan(a, amount, dir);
    for (int j = 62; j >= 0; --j) {  // phases: the powers of two of the amount, largest first
      if (((amount >> j) & 1) == 0) continue;
      const int64_t dist = dir * (int64_t{1} << j);
      const int cost = j == 0 ? 1 : 2;
      if (round > cost) {
        round -= cost;
        continue;
      }
      if (j == 0) {  // neighbours on the ring are neighbours in the cube
        out.add_send(dest(a, i, dist), kResult, 0, a.m);
        out.add_recv(dest(a, i, -dist), kResult, 0, a.m, RecvMode::copy);
      } else if (round == 1) {  // to the intermediate node; receive the value that rests on mine
        out.add_send(via(a, i, dist), kResult, 0, a.m);
        const int d = ceil_log2(a.p);
        for (int b = 0; b < d; ++b) {
          const int64_t cand = gray_inverse(gray_code(i) ^ (int64_t{1} << b));
          if (via(a, cand, dist) == i) {
            out.add_recv(cand, kTransit, 0, a.m, RecvMode::copy);
            break;
          }
        }
      } else {  // from the intermediate node to the destination
        const int d = ceil_log2(a.p);
        for (int b = 0; b < d; ++b) {
          const int64_t cand = gray_inverse(gray_code(i) ^ (int64_t{1} << b));
          if (via(a, cand, dist) == i) {
            out.add_send(dest(a, cand, dist), kTransit, 0, a.m);
            break;
          }
        }
        out.add_recv(via(a, dest(a, i, -dist), dist), kResult, 0, a.m, RecvMode::copy);
      }
      return;
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step)  // the value a position holds starts as its own
      for (int64_t w = 0; w < a.m; ++w) b.buf[kResult][w] = b.buf[kData][w];
  }
};

struct ShiftHypercubeGray : ShiftHypercubeGrayT<false> {
  static constexpr const char* name = "shift_hypercube_gray";
  static constexpr const char* description = "ring on a hypercube by Gray code; a phase per power of two of q (eq. 4-11)";
  static constexpr const char* formula_text = "(t_s + t_w m)(2 popcount(q) - [q odd]) <= (t_s + t_w m)(2 log p - 1)  [eq. 4-11]";
};

}  // namespace ppsim
