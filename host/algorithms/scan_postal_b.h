// Lin–Yeh Algorithm B: prefix of n elements on p < n processors in the k-port postal model.
// Processors 0 .. n - p*floor(n/p) - 1 hold ceil(n/p) consecutive elements, the rest floor(n/p).
// Before step 1 each PE folds its own elements into c and keeps its first element in d; then it
// runs Algorithm A's schedule on c, folding every received partial into both c and d; after step
// m, d = v(0) ⊕ ... ⊕ (its first element), and it expands its own prefixes locally:
// u(first) = d, u(e) = u(e-1) ⊕ v(e). m = min{ j | G(j) >= p } steps (Theorem 1 bound for p).
#pragma once
#include "algorithms/scan_postal_a.h"

namespace ppsim {

struct ScanPostalB : AlgorithmDefaults {
  static constexpr const char* name = "scan_postal_b";
  static constexpr const char* description = "k-port postal prefix of n elements on p <= n processors (Lin–Yeh Algorithm B)";
  static constexpr const char* formula_text = "min{ j | G(j) >= p } steps  [Lin–Yeh Theorem 1]";
  static constexpr Operation op = Operation::scan;
  static constexpr uint32_t topologies = kAllTopologies;
  static constexpr uint32_t native = 0;
  static constexpr uint32_t flags = kPostalNative;
  static constexpr bool has_local = true;

  static int rounds(const AlgoParams& a) { return ScanPostalA::rounds(a); }
  // The local scans of the largest share (ceil(n/p) elements) before and after the steps.
  static int64_t local_combined_words(const AlgoParams& a) { return 2 * (scan_count(a, 0) - 1) * a.m; }
  // two folds a step (the partial passed on and the prefix kept), and the local scans
  static double formula(const AlgoParams& a, const CostParams& c) {
    return a.lambda > 1 ? double(rounds(a)) : (c.ts + (c.tw + 2 * c.gamma) * a.m) * rounds(a) + c.gamma * double(local_combined_words(a));
  }

  PPSIM_HD static void ops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
    ScanPostalA::postal_prefix_ops(a, id, round, kPartial, true, out);
  }

  PPSIM_HD static void local(const AlgoParams& a, OperatorKind k, int64_t id, LocalPhase phase, ProcBuffers& b) {
    const int64_t count = scan_count(a, id), m = a.m;
    uint64_t *v = b.buf[kData], *c = b.buf[kPartial], *d = b.buf[kPrefix];
    for (int64_t w = 0; w < m; ++w) {
      if (phase == LocalPhase::before_first_step) {  // c = v(first) ⊕ ... ⊕ v(last), d = v(first)
        uint64_t fold = v[w];
        for (int64_t e = 1; e < count; ++e) fold = combine_dyn(k, fold, v[e * m + w]);
        c[w] = fold;
        d[w] = v[w];
      } else {  // u(first) = d, u(e) = u(e-1) ⊕ v(e), in place
        v[w] = d[w];
        for (int64_t e = 1; e < count; ++e) v[e * m + w] = combine_dyn(k, v[(e - 1) * m + w], v[e * m + w]);
      }
    }
  }
};

}  // namespace ppsim
