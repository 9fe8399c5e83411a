// Order-keeping reduction to any root for any p: a binomial tree over aligned blocks of absolute
// ids. At level k the ids fall into blocks [j 2^k, (j+1) 2^k) (the last one cut at p); a block's
// partial is held by the root if the block contains it, else by the block's lowest id. Round k + 1
// merges the blocks 2j and 2j+1 of level k: the holder of the one that does not hold the merged
// partial sends to the one that does, which folds it in on its side. Every partial is a run of
// consecutive ids, so the fold keeps processor order and any associative ⊕ (affine, interval)
// works at any root in ceil(log2 p) steps (reduce_binomial's ranks relative to the root put ids
// p - 1 and 0 side by side, which is why it needs root 0 for a non-commutative ⊕).
//
//   p = 6, root 4:  round 1: 1 -> 0, 3 -> 2, 5 -> 4   (blocks {0,1} {2,3} {4,5})
//                   round 2: 2 -> 0                   ({0..3}; {4,5} has no sibling block)
//                   round 3: 0 -> 4                   ({0..5} contains the root: 4 folds 0..3 on its left)
//
// T = ceil(log2 p) (t_s + t_w m + gamma m): each round's messages are m words, all combined.
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct ReduceOrdered : AlgorithmDefaults {
  static constexpr const char* name = "reduce_ordered";
  static constexpr const char* description = "binomial tree over aligned blocks of ids, any root; folds in processor order (any operator)";
  static constexpr const char* formula_text = "(t_s + t_w m + gamma m) ceil(log2 p)";
  static constexpr Operation op = Operation::reduce;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native =
      topo_bit(TopologyKind::linear) | topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::full) | kProcessorTrees | kGridTopologies;
  static constexpr uint32_t flags = 0;

  static int rounds(const AlgoParams& a) { return ceil_log2(a.p); }
  static double formula(const AlgoParams& a, const CostParams& c) { return (c.ts + c.tw * a.m + c.gamma * a.m) * rounds(a); }

  // Who holds the partial of block `block` of level `level` (its ids: block << level onwards).
  PPSIM_HD static int64_t holder(int64_t block, int level, int64_t root) { return (root >> level) == block ? root : block << level; }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int level = round - 1;  // round r merges pairs of level r - 1 blocks
    const int64_t mine = id >> level;
    if (holder(mine, level, a.root) != id) return;  // its partial went to another holder earlier
    const int64_t sibling = mine ^ 1;
    if ((sibling << level) >= a.p) return;  // the block past the last id: nothing to merge
    const int64_t other = holder(sibling, level, a.root);
    if (holder(mine >> 1, level + 1, a.root) == id) out.add_recv(other, kData, 0, a.m, fold_mode(id, other));
    else out.add_send(other, kData, 0, a.m);
  }
};

}  // namespace ppsim
