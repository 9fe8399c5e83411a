// Swing's peers (De Sensi, Bonato, Saam, Hoefler, "Swing: Short-cutting Rings for Higher Bandwidth
// Allreduce", NSDI'24), shared by allreduce_swing_latency and allreduce_swing_bandwidth.
//
// One dimension of n = 2^L ranks (a ring, or one extent of a torus). In its step j (0 .. L-1) the
// coordinate c pairs with
//   pi(c, j) = c + rho(j) (c even),  c - rho(j) (c odd)   (mod n),
//   rho(j)   = sum_{i=0..j} (-2)^i = (1 - (-2)^(j+1)) / 3 = 1, -1, 3, -5, 11, -21, ...
// rho(j) is odd, so the peer of an even coordinate is odd and pi(pi(c, j), j) = c: a matching.
// |rho(j)| = (2^(j+1) + (-1)^j) / 3 < n/2 for j < L (n = 2: 1 = n/2, the one link), so the
// shorter way round is that many links: recursive doubling's 2^j shrunk by about 3.
//
// A torus of extents n_0 x ... x n_(D-1), each 2^(L_k): S = sum_k L_k = log2 p steps that rotate over
// the dimensions, the fastest-varying first as in every grid algorithm here (grid_phases.h):
// cycle 0 takes step 0 of dimension D-1, then of D-2, ..., 0; cycle 1 takes step 1 of each, and
// a dimension whose L_k steps are spent drops out of the rotation. A step changes one coordinate, by
// the one-dimensional rule on that coordinate (its parity decides the direction).
//
// Groups, for the bandwidth-optimal variant. G(r, s) = the ranks r reaches through steps s .. S-1;
// G(r, s) = G(r, s+1) + G(pi(r, s), s+1), 2^(S-s) ranks, and the G(., s) partition the ranks. They
// nest as the aligned ranges of a binary position: position(r) has, at bit S-1-s, a half-bit h that
// is the same on all of G(r, s+1) and differs on G(pi(r, s), s+1). In one dimension, at its step j <
// L-1: within G(c, j+1) every hop flips the parity and moves by rho(t) = rho(j+1) (mod 2^(j+2)) for
// t > j, so the even members of G(c, j+1) share one residue e mod 2^(j+2): e = c for even c, c -
// rho(j+1) for odd c. The peer's group has e + 2^(j+1) (rho(j+1) - rho(j) = (-2)^(j+1)), so h = bit
// j+1 of e; at j = L-1 the groups are single coordinates and h = c mod 2. A group of step s is then
// the 2^(S-s) positions that agree with position(r) above bit S-1-s.
#pragma once
#include "algorithms/algorithm_unit.h"
#include "algorithms/grid_phases.h"

namespace ppsim {

// Dimensions and extents: a torus's --dims, anything else one dimension of p.
PPSIM_HD inline int swing_ndims(const AlgoParams& a) { return a.ndims > 0 ? a.ndims : 1; }
PPSIM_HD inline int64_t swing_extent(const AlgoParams& a, int k) { return a.ndims > 0 ? a.dims[k] : a.p; }
PPSIM_HD inline int64_t swing_stride(const AlgoParams& a, int k) { return a.ndims > 0 ? grid_stride(a, k) : 1; }

// rho(j) = (1 - (-2)^(j+1)) / 3.
PPSIM_HD inline int64_t swing_rho(int j) {
  const int64_t power = int64_t{1} << (j + 1);
  return (1 - ((j + 1) % 2 == 0 ? power : -power)) / 3;
}

// pi(c, j) on a ring of n coordinates.
PPSIM_HD inline int64_t swing_peer_coord(int64_t c, int j, int64_t n) {
  return pos_mod(c % 2 == 0 ? c + swing_rho(j) : c - swing_rho(j), n);
}

// Steps in all: log2 p for extents that are powers of two.
PPSIM_HD inline int swing_steps(const AlgoParams& a) {
  int s = 0;
  for (int k = 0; k < swing_ndims(a); ++k) s += floor_log2(swing_extent(a, k));
  return s;
}

// Which dimension step s (0-based) works on, and its step j within that dimension.
struct SwingStep {
  int dim, j;
};
PPSIM_HD inline SwingStep swing_step(const AlgoParams& a, int s) {
  for (int cycle = 0; cycle < 64; ++cycle)
    for (int k = swing_ndims(a) - 1; k >= 0; --k)
      if (cycle < floor_log2(swing_extent(a, k)) && s-- == 0) return SwingStep{k, cycle};
  return SwingStep{-1, 0};  // past the last step
}

// The rank `id` pairs with in step s.
PPSIM_HD inline int64_t swing_peer(const AlgoParams& a, int64_t id, int s) {
  const SwingStep st = swing_step(a, s);
  const int64_t n = swing_extent(a, st.dim), stride = swing_stride(a, st.dim), c = (id / stride) % n;
  return id + (swing_peer_coord(c, st.j, n) - c) * stride;
}

// The half-bit h of coordinate c at its dimension's step j (see the top of this file).
PPSIM_HD inline int64_t swing_half(int64_t c, int j, int64_t n) {
  if (int64_t{2} << j >= n) return c % 2;  // j = L - 1
  const int64_t even_residue = pos_mod(c % 2 == 0 ? c : c - swing_rho(j + 1), int64_t{4} << j);
  return (even_residue >> (j + 1)) & 1;
}

// position(id): bit S-1-s is the half-bit of step s. Distinct ranks get distinct positions.
PPSIM_HD inline int64_t swing_position(const AlgoParams& a, int64_t id) {
  const int steps = swing_steps(a);
  int64_t position = 0;
  int s = 0;
  for (int cycle = 0; s < steps; ++cycle)
    for (int k = swing_ndims(a) - 1; k >= 0; --k)
      if (cycle < floor_log2(swing_extent(a, k))) {
        const int64_t n = swing_extent(a, k), c = (id / swing_stride(a, k)) % n;
        position |= swing_half(c, cycle, n) << (steps - 1 - s);
        ++s;
      }
  return position;
}

// The congestion of step s when every rank sends: each message crosses |rho(j)| links of its line,
// and a link carries the messages of the coordinates of one parity among the |rho(j)| before it,
// (|rho(j)| + 1) / 2 at most - a load every message meets on its first link (the ring's and the
// torus's shorter-way routes; an extent of 2 has one link each way).
PPSIM_HD inline int64_t swing_congestion(const AlgoParams& a, int s) {
  const SwingStep st = swing_step(a, s);
  const int64_t rho = swing_rho(st.j);
  return ((rho < 0 ? -rho : rho) + 1) / 2;
}

}  // namespace ppsim
