// Dimension-wise all-reduce on a torus or mesh (2D-ring; Themis's hierarchical form): a ring
// reduce-scatter along every line of one dimension, then along the next dimension on the shard it
// left, ..., then ring all-gathers back in the reverse order of dimensions. The dimensions go the
// fastest-varying first, as every grid algorithm here (grid_phases.h): the last extent of --dims,
// whose lines are runs of consecutive ranks (the accelerators of a node), then the one before.
// A ring or linear array is one dimension of p, and then this is allreduce_ring.
//
// Phase i works on dimension k_i = D-1-i of n_i ranks, on a shard of M words: the shard is split
// like allreduce_ring's chunks (the first M mod n_i of ceil(M/n_i) words, the rest floor) and
//   reduce-scatter, steps t = 1 .. n_i - 1: coordinate c passes its partial of chunk (c - t + 1) mod n_i
//     to c + 1 and folds c - 1's partial of chunk (c - t) mod n_i in; c then holds chunk c + 1,
//     which is its shard for phase i + 1 (the lines of the next dimension agree on c);
//   all-gather, steps t = 1 .. n_i - 1, in phase order D-1 .. 0: c passes the complete chunk
//     (c - t + 2) mod n_i to c + 1 and takes chunk (c - t + 1) mod n_i from c - 1.
// Partials go round a ring: ⊕ must be commutative. Empty chunks are not sent.
// 2 sum_i (n_i - 1) steps. Each rank sends M_i (n_i - 1)/n_i words in each half of phase i, with
// M_0 = m, M_(i+1) = M_i / n_i: 2 m (p-1)/p in all when p | m (the sum telescopes). Every message
// goes to the next coordinate of its line and no two share a link (on a mesh the wrap message
// crosses its line the other way alone), so with t_h = 0 the largest chunk of each step sets it:
//   T = sum_i (n_i - 1) (2 t_s + (2 t_w + gamma) C_i),  C_i = ceil(C_(i-1) / n_i), C_(-1) = m
// (a step whose largest chunk is empty costs nothing); p | m: 2 t_s sum_i (n_i - 1) + (2 t_w + gamma) m (p-1)/p.
#pragma once
#include "algorithms/grid_phases.h"
#include "algorithms/recursive_halving.h"

namespace ppsim {

struct AllreduceDimwise : AlgorithmDefaults {
  static constexpr const char* name = "allreduce_dimwise";
  static constexpr const char* description =
      "ring reduce-scatter along each dimension on the shard the last one left, then ring all-gathers back (2D-ring, Themis); any dims";
  static constexpr const char* formula_text =
      "sum_i (n_i - 1)(2 t_s + (2 t_w + gamma) C_i), C_i = ceil(C_(i-1)/n_i), C_(-1) = m, fastest dimension first; p | m: "
      "2 t_s sum (n_i - 1) + (2 t_w + gamma) m (p-1)/p";
  static constexpr Operation op = Operation::allreduce;
  static constexpr uint32_t topologies =
      topo_bit(TopologyKind::linear) | topo_bit(TopologyKind::ring) | topo_bit(TopologyKind::mesh) | topo_bit(TopologyKind::torus);
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kCommutativeOnly;

  // The phases: i = 0 .. D-1 on dimension D-1-i (a ring: one dimension of p).
  PPSIM_HD static int phases(const AlgoParams& a) { return a.ndims > 0 ? a.ndims : 1; }
  PPSIM_HD static int64_t extent(const AlgoParams& a, int i) { return a.ndims > 0 ? a.dims[a.ndims - 1 - i] : a.p; }
  PPSIM_HD static int64_t coord(const AlgoParams& a, int64_t id, int i) { return a.ndims > 0 ? grid_coord(a, id, a.ndims - 1 - i) : id; }
  PPSIM_HD static int64_t neighbour(const AlgoParams& a, int64_t id, int i, int64_t c) {
    return a.ndims > 0 ? grid_with_coord(a, id, a.ndims - 1 - i, pos_mod(c, extent(a, i))) : pos_mod(c, a.p);
  }

  static int rounds(const AlgoParams& a) {
    int r = 0;
    for (int i = 0; i < phases(a); ++i) r += int(2 * (extent(a, i) - 1));
    return r;
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    double t = 0;
    int64_t chunk = a.m;
    for (int i = 0; i < phases(a); ++i) {
      const int64_t n = extent(a, i);
      chunk = (chunk + n - 1) / n;
      t += double(n - 1) * (largest_message_time(c, chunk, true) + largest_message_time(c, chunk, false));
    }
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    // Which phase and half the round is in: the reduce-scatters 0 .. D-1, then the all-gathers D-1 .. 0.
    const int d = phases(a);
    int phase = -1, t = round;
    bool reducing = true;
    for (int j = 0; j < 2 * d && phase < 0; ++j) {
      const int i = j < d ? j : 2 * d - 1 - j, steps = int(extent(a, i) - 1);
      if (t <= steps) {
        phase = i;
        reducing = j < d;
      } else {
        t -= steps;
      }
    }
    if (phase < 0) return;
    // The shard phase `phase` works on: the chunk c + 1 of every earlier phase's shard.
    int64_t lo = 0, len = a.m;
    for (int i = 0; i < phase; ++i) {
      const EvenSplit split{len, extent(a, i)};
      const int64_t held = pos_mod(coord(a, id, i) + 1, extent(a, i));
      lo += split.offset(held);
      len = split.offset(held + 1) - split.offset(held);
    }
    const int64_t n = extent(a, phase), c = coord(a, id, phase), shift = reducing ? 1 : 2;
    const EvenSplit chunks{len, n};
    const int64_t out_chunk = pos_mod(c - t + shift, n), in_chunk = pos_mod(c - t + shift - 1, n);
    const int64_t out_words = chunks.offset(out_chunk + 1) - chunks.offset(out_chunk);
    const int64_t in_words = chunks.offset(in_chunk + 1) - chunks.offset(in_chunk);
    if (out_words > 0) out.add_send(neighbour(a, id, phase, c + 1), kData, lo + chunks.offset(out_chunk), out_words);
    if (in_words > 0)
      out.add_recv(neighbour(a, id, phase, c - 1), kData, lo + chunks.offset(in_chunk), in_words,
                   reducing ? RecvMode::recv_op_slot : RecvMode::copy);
  }
};

}  // namespace ppsim
