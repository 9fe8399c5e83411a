// Broadcast by a binomial scatter and a recursive-doubling all-gather as Open MPI 4.1 runs it at any p
// (coll_tuned bcast algorithm 8, ompi_coll_base_bcast_intra_scatter_allgather). Ranks are relative
// to the root; blocks are broadcast_van_de_geijn_ompi's (ceil(m/p) words, the last ones short or
// empty), and so is the scatter (D = ceil(lg p) steps). The all-gather runs D levels, mask = 2^k:
//   exchange: rank v and v ^ mask (where it exists) swap what they hold, the blocks of
//     [T, min(T + mask, p)), T = v rounded down to a multiple of mask;
//   where p is no power of two, the ranks of the last, incomplete pair of subtrees (the lower one
//     [T, T + mask) complete, the upper one holding n = p mod mask ranks: bit k of p set and
//     n > 0) finish the level by recursive halving: for rh = mask/2 .. 1, in every subtree of 2rh
//     ranks rooted at t, rank v < t + n with v ^ rh >= t + n, v ^ rh > v, sends the upper subtree's
//     blocks [T + mask, p) to v ^ rh. Open MPI's test uses n for every t, so the rh with 2rh <= n
//     send nothing: the level has k - floor(lg n) such steps, one each here.
// When m < p Open MPI runs its basic linear broadcast instead (as broadcast_van_de_geijn_ompi).
// Empty blocks: the exchange and the halving send them (0-byte messages), ppsim's messages carry at
// least one word (step_rules.h), so they are left out here, as in broadcast_van_de_geijn_ompi; a step
// whose messages are all empty costs nothing. Nothing is combined: no gamma.
//   m >= p: T = scatter(as unit 9) + sum_{k < D} [ (t_s + t_w min(2^k c, m))
//               + (bit k of p and n_k = p mod 2^k > 0 ? (k - floor(lg n_k)) (t_s + t_w U_k) : 0) ],
//           c = ceil(m/p), U_k = m - min((p - n_k) c, m) (the upper subtree's words; 0: no cost).
//   m < p:  T = (p - 1)(t_s + t_w m).
#pragma once
#include "algorithms/broadcast_van_de_geijn_ompi.h"

namespace ppsim {

struct BroadcastScatterAllgatherOmpi : AlgorithmDefaults {
  static constexpr const char* name = "broadcast_scatter_allgather_ompi";
  static constexpr const char* description =
      "Open MPI's binomial scatter + recursive-doubling all-gather broadcast (coll_tuned 8) at any p: halving steps fill the ranks an incomplete subtree leaves out; linear when m < p";
  static constexpr const char* formula_text =
      "m >= p: scatter as coll_tuned 9 + sum_{k < ceil(lg p)} [t_s + t_w min(2^k c, m) + h_k (t_s + t_w U_k)], c = ceil(m/p), "
      "n_k = p mod 2^k, h_k = k - floor(lg n_k) where bit k of p is set and n_k > 0 (else 0), U_k = m - min((p - n_k) c, m); "
      "m < p: (p - 1)(t_s + t_w m)";
  static constexpr Operation op = Operation::broadcast;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;

  PPSIM_HD static bool linear(const AlgoParams& a) { return a.m < a.p; }  // Open MPI: count < comm size
  // The halving steps that send at level k (mask 2^k): k - floor(lg n) where the level's last pair
  // of subtrees is incomplete (n = p mod 2^k ranks in the upper one), else none.
  PPSIM_HD static int halving_steps(int64_t p, int k) {
    const int64_t mask = int64_t{1} << k, n = p % mask;
    return ((p >> k) & 1) && n > 0 ? k - floor_log2(n) : 0;
  }
  PPSIM_HD static int rounds(const AlgoParams& a) {
    if (linear(a)) return int(a.p - 1);
    const int d = ceil_log2(a.p);
    int r = 2 * d;
    for (int k = 0; k < d; ++k) r += halving_steps(a.p, k);
    return r;
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    if (linear(a)) return double(a.p - 1) * (c.ts + c.tw * double(a.m));
    const CeilSplit blocks{a.m, a.p};
    const int d = ceil_log2(a.p);
    double t = 0;
    for (int s = 1; s <= d; ++s) {  // the scatter: rank 0's message, blocks [h, min(2h, p)), is the largest
      const int64_t h = int64_t{1} << (d - s), end = 2 * h < a.p ? 2 * h : a.p;
      t += largest_message_time(c, blocks.offset(end) - blocks.offset(h), false);
    }
    for (int k = 0; k < d; ++k) {
      const int64_t mask = int64_t{1} << k;
      t += largest_message_time(c, blocks.offset(mask), false);  // rank 0's blocks [0, mask), the largest
      const int h = halving_steps(a.p, k);
      if (h > 0) t += h * largest_message_time(c, a.m - blocks.offset(a.p - a.p % mask), false);
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    if (linear(a)) {
      BroadcastVanDeGeijnOmpi::ops(a, id, round, out);
      return;
    }
    const CeilSplit blocks{a.m, a.p};
    const int d = ceil_log2(a.p);
    if (round <= d) {  // the scatter: unit 9's, the same slices
      BroadcastVanDeGeijn::ops_of(a, id, round, blocks, out);
      return;
    }
    // Which level k and which of its steps (0: the exchange; j >= 1: halving with rh = mask >> j).
    int k = 0, j = round - d - 1;
    while (j > halving_steps(a.p, k)) j -= 1 + halving_steps(a.p, k++);
    const int64_t mask = int64_t{1} << k, v = pos_mod(id - a.root, a.p);
    if (j == 0) {
      const int64_t partner = v ^ mask;
      if (partner >= a.p) return;
      const int64_t mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
      const int64_t send = blocks.offset(mine + mask < a.p ? mine + mask : a.p) - blocks.offset(mine);
      const int64_t recv = blocks.offset(theirs + mask < a.p ? theirs + mask : a.p) - blocks.offset(theirs);
      const int64_t to = pos_mod(partner + a.root, a.p);
      if (send > 0) out.add_send(to, kData, blocks.offset(mine), send);
      if (recv > 0) out.add_recv(to, kData, blocks.offset(theirs), recv, RecvMode::copy);
      return;
    }
    // Halving inside the lower subtree [t0, t0 + mask) of the last, incomplete pair.
    const int64_t t0 = a.p - a.p % (2 * mask), n = a.p % mask;
    if (v < t0 || v >= t0 + mask) return;
    const int64_t rh = mask >> j, root_of = v & ~(2 * rh - 1), other = v ^ rh;
    const int64_t first = blocks.offset(t0 + mask), words = a.m - first;
    if (words == 0) return;
    if (other > v && v < root_of + n && other >= root_of + n)
      out.add_send(pos_mod(other + a.root, a.p), kData, first, words);
    else if (other < v && other < root_of + n && v >= root_of + n)
      out.add_recv(pos_mod(other + a.root, a.p), kData, first, words, RecvMode::copy);
  }
};

}  // namespace ppsim
