// All-reduce with the hypercube all-to-all broadcast pattern (textbook §4.3, eq. 4-5): in step r
// processor i exchanges its m-word partial with i ^ 2^(r-1) and folds the two (the lower ids on
// the left, so any associative ⊕ works). T = (t_s + t_w m) log p  [eq. 4-5].
//
// Any p (textbook exercise 4.1): with p' = 2^floor(log2 p) and e = p - p', first the pairs
// (2j, 2j+1), j < e, fold into the odd member; the p' survivors run the pattern on virtual ranks
// (odd 2j+1 -> j, i >= 2e -> i - e, monotone so order is kept); last each odd member hands the
// result back to its even partner. log p' + 2 steps, T = (t_s + t_w m)(floor(log2 p) + 2).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AllreduceHypercube : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_hypercube";
  static constexpr const char* description = "recursive doubling with combining (eq. 4-5); pairs fold first when p is not 2^d";
  static constexpr const char* formula_text = "(t_s + t_w m) log p + gamma m log p  [eq. 4-5]; +2 steps (one combining) if p is not 2^d";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = kAllTopologies;
  static constexpr uint32_t flags = 0;

  PPSIM_HD static int rounds(const AlgoParams& a) { return floor_log2(a.p) + (is_pow2(a.p) ? 0 : 2); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    return (c.ts + c.tw * a.m) * rounds(a) + c.gamma * double(a.m) * (floor_log2(a.p) + (is_pow2(a.p) ? 0 : 1));
  }

  // At most one send and one receive a round, whatever the parameters: its ops fit a BasicOps<1, 1>.
  static constexpr int max_sends = 1, max_recvs = 1;
  template <class Ops>
  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, Ops& out) {
    int d = floor_log2(a.p);
    int64_t extra = a.p - (int64_t{1} << d);
    if (extra > 0) {
      bool paired = id < 2 * extra, odd = (id & 1) != 0;
      if (round == 1 || round == d + 2) {
        if (!paired) return;
        bool to_odd = round == 1;  // fold into the odd member first, hand back last
        if (odd == to_odd) out.add_recv(id ^ 1, kData, 0, a.m, to_odd ? RecvMode::recv_op_slot : RecvMode::copy);
        else out.add_send(id ^ 1, kData, 0, a.m);
        return;
      }
      if (paired && !odd) return;  // folded away until the last step
      round -= 1;
    }
    int64_t v = id < 2 * extra ? id / 2 : id - extra;
    int64_t pv = v ^ (int64_t{1} << (round - 1));
    int64_t partner = pv < extra ? 2 * pv + 1 : pv + extra;
    out.add_send(partner, kData, 0, a.m);
    out.add_recv(partner, kData, 0, a.m, fold_mode(id, partner));
  }
};

}  // namespace ppsim
