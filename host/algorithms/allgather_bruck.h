// Bruck all-gather (Bruck, Ho, Kipnis, Upfal, Weathersby 1997; MPICH's MPIR_Allgather_intra_brucks),
// any p. Processor i keeps what it has gathered in a scratch buffer rotated by i: slot t holds
// block (i + t) mod p, so the blocks it holds are always slots 0, 1, ... Single-port: step k
// (k = 0 .. ceil(log2 p) - 1) sends slots [0, min(2^k, p - 2^k)) to (i - 2^k) mod p and receives
// as many into slots [2^k, ...) from (i + 2^k) mod p; a local rotation at the end puts slot t into
// block (i + t) mod p. k-port (--ports K): round r, with s = (K+1)^r, sends slots [0, c_j) to
// i - j s for j = 1..K while j s < p, c_j = min(s, p - j s): ceil(log_{K+1} p) rounds.
// T = sum_r (t_s + t_w m min(s_r, p - s_r)), s_r = (K+1)^r (the largest message of round r is
// the j = 1 one); single-port at p = 2^d: t_s lg p + t_w m (p - 1) = lg p α + n (p-1)/p β
// (Thakur et al. 2005, n = p m).
#pragma once
#include "algorithms/algorithm_unit.h"

namespace ppsim {

struct AllgatherBruck : AlgorithmDefaults {
  static constexpr const char* name = "allgather_bruck";
  static constexpr const char* description =
      "Bruck: send what you hold to i - s, s = (k+1)^r, then rotate; any p, ceil(log_{k+1} p) rounds";
  static constexpr const char* formula_text =
      "sum_r (t_s + t_w m min(s_r, p - s_r)), s_r = (k+1)^r < p; k = 1, p = 2^d: t_s log p + t_w m (p - 1)";
  static constexpr Operation op = Operation::allgather;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = 0;
  static constexpr bool has_local = true;
  static constexpr int32_t kRotated = 1;  // scratch (after the all-gather's one buffer): slot t holds block (i + t) mod p

  // Sends per round: the k of k-port (1 otherwise), never more than a processor may post.
  PPSIM_HD static int64_t ports(const AlgoParams& a) { return a.kports < kMaxOps ? a.kports : kMaxOps; }
  static int64_t scratch_words(const AlgoParams& a) { return a.p * a.m; }
  static int rounds(const AlgoParams& a) {
    int n = 0;
    for (int64_t s = 1; s < a.p; s *= ports(a) + 1) ++n;
    return n;
  }
  static double formula(const AlgoParams& a, const CostParams& c) {
    double t = 0;
    for (int64_t s = 1; s < a.p; s *= ports(a) + 1) t += c.ts + c.tw * double(a.m) * double(s < a.p - s ? s : a.p - s);
    return t;
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    const int64_t k = ports(a);
    int64_t s = 1;  // blocks every processor holds when the round begins: (k+1)^(round-1)
    for (int r = 1; r < round; ++r) s *= k + 1;
    for (int64_t j = 1; j <= k && j * s < a.p; ++j) {  // partner j: the next c blocks after j s
      const int64_t c = s < a.p - j * s ? s : a.p - j * s;
      out.add_send(pos_mod(id - j * s, a.p), kRotated, 0, c * a.m);
      out.add_recv(pos_mod(id + j * s, a.p), kRotated, j * s * a.m, c * a.m, RecvMode::copy);
    }
  }
  PPSIM_HD static void local(const AlgoParams& a, OperatorKind, int64_t id, LocalPhase phase, ProcBuffers& b) {
    if (phase == LocalPhase::before_first_step) {  // own block into slot 0
      for (int64_t w = 0; w < a.m; ++w) b.buf[kRotated][w] = b.buf[kData][id * a.m + w];
      return;
    }
    for (int64_t t = 0; t < a.p; ++t)  // undo the rotation: slot t is block (id + t) mod p
      for (int64_t w = 0; w < a.m; ++w) b.buf[kData][pos_mod(id + t, a.p) * a.m + w] = b.buf[kRotated][t * a.m + w];
  }
};

}  // namespace ppsim
