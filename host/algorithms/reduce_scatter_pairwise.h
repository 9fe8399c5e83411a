// Pairwise-exchange reduce-scatter that keeps processor order, any p: in step s = 1 .. p - 1
// processor j sends its block (j + s) mod p to processor (j + s) mod p. Processor b so hears from
// b - 1, b - 2, ..., 0 and then from p - 1, p - 2, ..., b + 1: the lower ids' blocks are folded
// onto the left of the result (which starts as b's own block), the higher ids' blocks, highest
// first, onto the left of a scratch partial (which starts as the identity); after the last step the
// result takes the scratch partial on its right. Any associative ⊕ (affine, interval).
//
//   p = 4, b = 1:  s = 1: from 0  result  0..1      s = 2: from 3  scratch 3
//                  s = 3: from 2  scratch 2..3      then  result 0..1 ⊕ 2..3
//
// p - 1 steps of m words, each combined: T = (p - 1)(t_s + t_w m + gamma m). The last fold of m
// words is local work, which the model does not charge.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ReduceScatterPairwise : AlgorithmDefaults {
  static constexpr const char* name = "reduce_scatter_pairwise";
  static constexpr const char* description = "step s: j sends block j+s to j+s; lower and higher ids folded apart, in processor order";
  static constexpr const char* formula_text = "(p - 1)(t_s + t_w m + gamma m)";
  static constexpr Operation op = Operation::reduce_scatter;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = topo_bit(TopologyKind::full);
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kHigher = 2;  // scratch: the fold of the blocks of ids above this one

  static int64_t scratch_words(const AlgoParams& a) { return a.m; }
  static int rounds(const AlgoParams& a) { return int(a.p - 1); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m + c.gamma * a.m) * double(a.p - 1); }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t to = pos_mod(id + round, a.p), from = pos_mod(id - round, a.p);
    out.add_send(to, kData, to * a.m, a.m);
    out.add_recv(from, from < id ? kResult : kHigher, 0, a.m, RecvMode::recv_op_slot);  // either way: on the left
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind k, int64_t id, LocalPhase phase, ProcBuffers& b) {
    for (int64_t w = 0; w < a.m; ++w) {
      if (phase == LocalPhase::before_first_step) {
        b.buf[kResult][w] = b.buf[kData][id * a.m + w];
        b.buf[kHigher][w] = operator_identity(k);
      } else {
        b.buf[kResult][w] = combine_dyn(k, b.buf[kResult][w], b.buf[kHigher][w]);
      }
    }
  }
};

}  // namespace ppsim
