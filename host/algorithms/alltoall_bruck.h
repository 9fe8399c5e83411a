// Bruck all-to-all with radix r = --radix (Bruck et al. 1997, the index algorithm; MPICH's
// MPIR_Alltoall_intra_brucks for r = 2), any p. A local rotation first puts the block for
// (i + k) mod p into slot k of the result buffer. A block in slot k must travel k forward: write k
// in base r; for each digit position x (R = r^x < p, ceil(log_r p) of them) and each digit value
// z = 1..r-1 with z R < p, the slots whose digit x is z go to (i + z R) mod p, which puts the ones
// from (i - z R) mod p in their place. The slots with digit x = z are runs of R slots every r R,
// the last run cut short by p: one strided slice. At the end slot k holds the block from
// (i - k) mod p, and a local reflection puts it there.
// Single-port: one step per (x, z). k-port (--ports K): the z of one position go K to a round,
// so K >= r - 1 gives ceil(log_r p) rounds of r - 1 sends. A round costs t_s + t_w m times its
// largest message, that of its smallest z, and the message of (x, z) carries
//   c(x, z) = floor(p / rR) R + min(R, max(0, p mod rR - z R))  blocks
// (the k in [0, p) whose digit x is z). T = sum over rounds (t_s + t_w m c(x, z_first));
// r = 2, p = 2^d: every c is p/2, T = lg p α + (n/2) lg p β (n = p m).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AlltoallBruck : AlgorithmDefaults {
  static constexpr const char* name = "alltoall_bruck";
  static constexpr const char* description =
      "Bruck: rotate, move the blocks whose base-r digit x is z by z r^x, reflect; any p, --radix r; k >= r - 1 ports: a round a digit";
  static constexpr const char* formula_text =
      "sum over rounds (t_s + t_w m c(x, z)), c(x, z) = #{j < p : digit x of j is z}; r = 2, p = 2^d: (t_s + t_w m p/2) log p";
  static constexpr Operation op = Operation::alltoall;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;

  PPSIM_HD static int64_t ports(const AlgoParams& a) { return a.kports < kMaxOps ? a.kports : kMaxOps; }
  // The digit values z >= 1 that occur at a position of weight R: z R < p.
  PPSIM_HD static int64_t digit_values(const AlgoParams& a, int64_t R) { return (a.p - 1) / R < a.radix - 1 ? (a.p - 1) / R : a.radix - 1; }
  // Blocks k in [0, p) whose digit of weight R is z.
  PPSIM_HD static int64_t blocks(const AlgoParams& a, int64_t R, int64_t z) {
    const int64_t period = a.radix * R, tail = a.p % period - z * R;
    return (a.p / period) * R + (tail < 0 ? 0 : tail < R ? tail : R);
  }
  // Rounds of the position of weight R: its digit values, K to a round.
  PPSIM_HD static int64_t position_rounds(const AlgoParams& a, int64_t R) { return (digit_values(a, R) + ports(a) - 1) / ports(a); }

  static const char* rejects(const AlgoParams& a) { return a.radix < 2 ? "alltoall_bruck needs --radix 2 or more" : nullptr; }
  static int rounds(const AlgoParams& a) {
    int64_t n = 0;
    for (int64_t R = 1; R < a.p; R *= a.radix) n += position_rounds(a, R);
    return int(n);
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    double t = 0;
    for (int64_t R = 1; R < a.p; R *= a.radix)
      for (int64_t z = 1; z <= digit_values(a, R); z += ports(a)) t += c.ts + c.tw * double(a.m) * double(blocks(a, R, z));
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    int64_t R = 1, left = round;  // find the position (weight R) and the round within it
    while (left > position_rounds(a, R)) {
      left -= position_rounds(a, R);
      R *= a.radix;
    }
    const int64_t first = (left - 1) * ports(a) + 1, nz = digit_values(a, R), run = R * a.m, stride = a.radix * R * a.m;
    for (int64_t z = first; z < first + ports(a) && z <= nz; ++z) {  // slots with digit z: runs of R every rR
      const int64_t len = blocks(a, R, z) * a.m, count = (len + run - 1) / run;
      out.add_send_strided(pos_mod(id + z * R, a.p), kResult, z * run, count > 1 ? run : len, stride, count);
      out.add_recv_strided(pos_mod(id - z * R, a.p), kResult, z * run, count > 1 ? run : len, stride, count, RecvMode::copy);
      if (out.overflow) return;
      out.send[out.nsend - 1].len = out.recv[out.nrecv - 1].len = len;  // the last run cut short by p
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    uint64_t* slot = b.buf[kResult];
    if (phase == LocalPhase::before_first_step) {  // slot k: the block for (id + k) mod p
      for (int64_t k = 0; k < a.p; ++k)
        for (int64_t w = 0; w < a.m; ++w) slot[k * a.m + w] = b.buf[kData][pos_mod(id + k, a.p) * a.m + w];
      return;
    }
    // Slot k holds the block from (id - k) mod p, which belongs in block (id - k) mod p: k <-> id - k
    // is its own inverse, so swapping each pair once puts every block in place.
    for (int64_t k = 0; k < a.p; ++k) {
      const int64_t j = pos_mod(id - k, a.p);
      if (k < j)
        for (int64_t w = 0; w < a.m; ++w) {
          const uint64_t x = slot[k * a.m + w];
          slot[k * a.m + w] = slot[j * a.m + w];
          slot[j * a.m + w] = x;
        }
    }
  }
};

}  // namespace ppsim
