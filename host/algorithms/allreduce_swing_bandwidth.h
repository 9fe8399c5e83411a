// Swing all-reduce, bandwidth-optimal variant (De Sensi et al., NSDI'24; swing_pattern.h): a
// reduce-scatter then an all-gather over Swing's peers, S = log2 p steps each. The m words are p
// blocks (the first m mod p of ceil(m/p) words, the rest floor(m/p)); block i is owned by the rank
// at position i, and the group a rank reaches through steps s .. S-1 owns an aligned range of 2^(S-s)
// positions (swing_position), so every message is one slice:
//   reduce-scatter, step s = 0 .. S-1: r sends its peer q = pi(r, s) the blocks of q's group of step
//     s+1 (the ranks q still reaches) and folds q's partial of its own group's blocks in; after it r
//     holds its own block, complete;
//   all-gather, step s = S-1 .. 0: r sends its group's blocks of step s+1 (complete) to q and takes
//     q's group's.
// Partials cover cyclic intervals of ranks, not ranges in processor order: ⊕ must be commutative.
// Every extent a power of two. Empty blocks (m < p) are not sent.
// 2 log2 p steps. Step s of either half sends at most W_s = the words of the first 2^(S-s-1) blocks
// over |rho(j)| links, at congestion c_s = (|rho(j)| + 1)/2 (swing_congestion). Cut-through, t_h = 0,
// m >= p (every block has a word, so every rank sends in every step; below that fewer messages
// share the links and no closed form is given):
//   T = sum_{s<S} (2 t_s + (2 c_s t_w + gamma) W_s),  W_s = 2^(S-s-1) m/p when p | m,
// which is 2 log2 p t_s + 2 t_w m (p-1)/p + gamma m (p-1)/p where every c_s is 1 (p <= 4 per extent).
#pragma once
#include "algorithms/recursive_halving.h"
#include "algorithms/swing_pattern.h"

namespace ppsim {

struct AllreduceSwingBandwidth : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_swing_bandwidth";
  static constexpr const char* description =
      "Swing (De Sensi et al. 2024): reduce-scatter then all-gather with Swing's peers, rotating over torus dimensions; 2 log2 p steps";
  static constexpr const char* formula_text =
      "sum_{s < log2 p} (2 t_s + (2 c_s t_w + gamma) W_s), W_s = 2^(log2 p - s - 1) m/p words (the first blocks), c_s = (|rho(j)| + 1)/2 "
      "(m >= p)";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies = topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::torus);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kNeedsPow2 | kCommutativeOnly;

  static int rounds(const AlgoParams& a) { return 2 * swing_steps(a); }
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (a.m < a.p) return no_formula();
    const int steps = swing_steps(a);
    const EvenSplit blocks{a.m, a.p};
    double t = 0;
    for (int s = 0; s < steps; ++s) {
      const double words = double(blocks.offset(int64_t{1} << (steps - s - 1))), congestion = double(swing_congestion(a, s));
      t += 2 * c.ts + (2 * congestion * c.tw + c.gamma) * words;
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int steps = swing_steps(a);
    const bool reducing = round <= steps;
    const int s = reducing ? round - 1 : 2 * steps - round;  // the all-gather undoes the steps in reverse
    const int64_t peer = swing_peer(a, id, s), count = int64_t{1} << (steps - s - 1);
    const EvenSplit blocks{a.m, a.p};
    // The aligned ranges of `count` positions that hold the two groups of step s + 1.
    const int64_t mine = (swing_position(a, id) / count) * count, theirs = (swing_position(a, peer) / count) * count;
    const int64_t from = reducing ? theirs : mine, into = reducing ? mine : theirs;
    const int64_t send_words = blocks.offset(from + count) - blocks.offset(from);
    const int64_t recv_words = blocks.offset(into + count) - blocks.offset(into);
    if (send_words > 0) out.add_send(peer, kData, blocks.offset(from), send_words);
    if (recv_words > 0) out.add_recv(peer, kData, blocks.offset(into), recv_words, reducing ? RecvMode::recv_op_slot : RecvMode::copy);
  }
};

}  // namespace ppsim
