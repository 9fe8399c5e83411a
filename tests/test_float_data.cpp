// Floating-point data: --combine fsum (IEEE double in the word) and fsum32 (IEEE float in
// the word's low 32 bits). Reassociation changes bits, so a run is verified against the exact sum:
// each folded word within (n - 1) u Σ|x| of it, copies bit for bit. The checks here compute their
// own references, independently of ppsim's long accumulator (host/rules/exact_sum.h): random inputs in
// [-1, 1) are multiples of 2^-52 (2^-23 for floats) and iota inputs are integers, so the test scales
// every input and every result to an integer, sums exactly in 64 or 128 bits, rounds with the
// hardware's int -> double (float) conversion, and counts ulps with std::nextafter.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "rules/exact_sum.h"
#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "ppsim/run.h"
#include "test_helpers.h"

using namespace ppsim;

namespace {

__extension__ typedef __int128 Int128;

bool single(OperatorKind k) { return k == OperatorKind::fsum32; }
// A word's number, read with the test's own bit casts.
double value(OperatorKind k, uint64_t w) { return single(k) ? double(std::bit_cast<float>(uint32_t(w))) : std::bit_cast<double>(w); }
// 2^e times a number on the inputs' grid: an integer (asserted by the caller through `ok`).
int64_t scaled(double v, int e, bool& ok) {
  const double y = std::ldexp(v, e);
  ok = ok && y == std::trunc(y) && std::fabs(y) < 9e18;
  return int64_t(y);
}
int grid_exponent(OperatorKind k, const InputSpec& in) { return !in.random ? 0 : single(k) ? 23 : 52; }
int precision(OperatorKind k) { return single(k) ? 24 : 53; }

// The steps std::nextafter takes from got to want (in the word's format), capped.
int64_t ulps_between(OperatorKind k, double got, double want) {
  int64_t n = 0;
  if (std::isnan(got) || std::isnan(want)) return INT64_MAX;
  for (double x = got; x != want && n < (int64_t{1} << 20); ++n)
    x = single(k) ? double(std::nextafterf(float(x), float(want))) : std::nextafter(x, want);
  return n < (int64_t{1} << 20) ? n : INT64_MAX;
}

// The test's own reference and measurements of an allreduce's data buffer.
struct OwnCheck {
  int64_t max_ulps = 0;
  bool within_bound = true, on_grid = true, agree = true;
  double worst_ratio = 0;  // the largest error / bound
};
OwnCheck check_allreduce(const RunConfig& c, const std::vector<uint64_t>& data) {
  const OperatorKind k = c.combine;
  const int64_t p = c.params.p, m = c.params.m;
  const int e = grid_exponent(k, c.input);
  OwnCheck out;
  for (int64_t w = 0; w < m; ++w) {
    int64_t sum = 0, abs_sum = 0;  // |inputs| < 2^52 each, p <= 1000: no overflow
    for (int64_t i = 0; i < p; ++i) {
      const int64_t x = scaled(value(k, input_word(k, c.input, i, w, m)), e, out.on_grid);
      sum += x;
      abs_sum += x < 0 ? -x : x;
    }
    // Correctly rounded by the hardware's conversion; scaling back by 2^-e is exact.
    const double want = single(k) ? double(std::ldexp(float(sum), -e)) : std::ldexp(double(sum), -e);
    for (int64_t i = 0; i < p; ++i) {
      const uint64_t word = data[size_t(i * m + w)];
      if (word != data[size_t(w)]) out.agree = false;
      const double got = value(k, word);
      out.max_ulps = std::max(out.max_ulps, ulps_between(k, got, want));
      // |got - s| <= (p - 1) 2^-precision Σ|x|, times 2^(e + precision): integers throughout.
      const int64_t g = scaled(got, e, out.on_grid);
      const Int128 err = Int128(g > sum ? g - sum : sum - g) << precision(k), bound = Int128(p - 1) * abs_sum;
      if (err > bound) out.within_bound = false;
      if (bound > 0) out.worst_ratio = std::max(out.worst_ratio, double(err) / double(bound));
    }
  }
  return out;
}

RunConfig allreduce(const std::string& algo, OperatorKind k, int64_t p, int64_t m, uint64_t seed) {
  RunConfig c = testing_support::make_config(algo, TopologyKind::full, p, "", m, k);
  c.input = InputSpec{true, seed};
  return c;
}

// The allreduce algorithms whose every processor ends with the same bits: recursive doubling
// (partners fold the same two partials, lower id on the left), the trees (one reduction,
// broadcast), reduce-scatter + all-gather (each block reduced once, then copied), the ring
// all-gather with a local fold (everyone folds the same vectors in the same order). The combining
// ring is the exception: each processor folds the vectors in its own rotation.
const char* const kAgreeing[] = {"allreduce_hypercube", "allreduce_reduce_broadcast", "allreduce_rs_ag", "allreduce_ring_allgather"};
bool agrees_by_construction(const std::string& algo) {
  for (const char* a : kAgreeing)
    if (algo == a) return true;
  return false;
}

struct Case {
  std::string algo;
  OperatorKind k;
  int64_t p, m;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.algo << " " << operator_name(c.k) << " p=" << c.p << " m=" << c.m; }

std::vector<Case> allreduce_cases() {
  std::vector<Case> out;
  for (const char* algo :
       {"allreduce_hypercube", "allreduce_ring_combining", "allreduce_rs_ag", "allreduce_reduce_broadcast", "allreduce_ring_allgather"})
    for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32})
      for (int64_t p : {2, 3, 8, 13, 64, 1000}) {
        const bool split = std::string(algo) == "allreduce_rs_ag";  // m/p-word blocks, p = 2^d
        if (split && !is_pow2(p)) continue;
        for (int64_t m : split ? std::vector<int64_t>{p, 3 * p} : std::vector<int64_t>{1, 6})
          if (!(p == 1000 && m > 1 && std::string(algo) == "allreduce_ring_allgather")) out.push_back({algo, k, p, m});
      }
  return out;
}

class FloatAllreduce : public ::testing::TestWithParam<Case> {};

// Verified, every word within the bound, the reported largest error equal to the test's own
// count, and agreement reported as it is; the same bits and verdict from the device rounds run on
// the host, with the buffers brought back and with the device's own verification.
TEST_P(FloatAllreduce, ErrorsAreWithinTheBoundAndReportedExactly) {
  const Case& k = GetParam();
  RunConfig c = allreduce(k.algo, k.k, k.p, k.m, uint64_t(1000 + k.p + k.m));
  const RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified) << r.mismatches;
  const OwnCheck own = check_allreduce(c, r.buffers[0]);
  ASSERT_TRUE(own.on_grid);
  EXPECT_TRUE(own.within_bound) << "error/bound " << own.worst_ratio;
  EXPECT_LE(own.worst_ratio, 1.0);
  EXPECT_EQ(r.max_error_ulps, own.max_ulps);
  EXPECT_EQ(r.results_agree, own.agree ? Agreement::agree : Agreement::differ);
  if (agrees_by_construction(k.algo)) {
    EXPECT_EQ(r.results_agree, Agreement::agree);
  }

  const RunResult host_rounds = run_device_rounds_on_host(c);
  EXPECT_EQ(host_rounds.buffers, r.buffers);  // the backends agree bit for bit
  EXPECT_EQ(host_rounds.max_error_ulps, own.max_ulps);
  c.keep_buffers = false;  // verified where the buffers are: cuda/verify_bodies.h
  const RunResult device = run_device_rounds_on_host(c);
  EXPECT_TRUE(device.verified);
  EXPECT_TRUE(device.buffers.empty());
  EXPECT_EQ(device.max_error_ulps, own.max_ulps);
  EXPECT_EQ(device.results_agree, r.results_agree);
}

INSTANTIATE_TEST_SUITE_P(Allreduce, FloatAllreduce, ::testing::ValuesIn(allreduce_cases()), [](const auto& info) {
  return info.param.algo + "_" + operator_name(info.param.k) + "_p" + std::to_string(info.param.p) + "_m" + std::to_string(info.param.m);
});

// The visible difference: on the same inputs, recursive doubling and a left-to-right fold (the
// ring all-gather's) end with different bits in some word, and the combining ring leaves its
// processors disagreeing — each result still within the bound.
TEST(FloatData, AlgorithmsDifferInBits) {
  for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32}) {
    bool algorithms_differ = false, ring_disagrees = false;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const RunResult tree = run_cpu(allreduce("allreduce_hypercube", k, 64, 16, seed));
      const RunResult fold = run_cpu(allreduce("allreduce_ring_allgather", k, 64, 16, seed));
      const RunResult ring = run_cpu(allreduce("allreduce_ring_combining", k, 64, 16, seed));
      ASSERT_TRUE(tree.verified && fold.verified && ring.verified);
      for (int64_t w = 0; w < 16; ++w) algorithms_differ = algorithms_differ || tree.buffers[0][size_t(w)] != fold.buffers[0][size_t(w)];
      ring_disagrees = ring_disagrees || ring.results_agree == Agreement::differ;
    }
    EXPECT_TRUE(algorithms_differ) << operator_name(k);
    EXPECT_TRUE(ring_disagrees) << operator_name(k);
  }
}

// iota inputs are small integers: every sum is exact in any order, so every algorithm gives the
// integer sum bit for bit, with no error at all.
TEST(FloatData, IotaSumsAreExact) {
  for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32})
    for (const char* algo : {"allreduce_hypercube", "allreduce_ring_combining", "allreduce_reduce_broadcast"}) {
      RunConfig c = testing_support::make_config(algo, TopologyKind::ring, 100, "", 3, k);
      const RunResult r = run_cpu(c);
      ASSERT_TRUE(r.verified);
      EXPECT_EQ(r.max_error_ulps, 0);
      EXPECT_EQ(r.results_agree, Agreement::agree);
      for (int64_t w = 0; w < 3; ++w) {
        double want = 0;  // word w of processor i is i*3 + w + 1
        for (int64_t i = 0; i < 100; ++i) want += double(i * 3 + w + 1);
        EXPECT_EQ(value(k, r.buffers[0][size_t(77 * 3 + w)]), want);
      }
    }
}

// A word beyond the bound fails verification (host and device); a word moved within the bound
// passes and shows in the largest error; a copy (broadcast) must match bit for bit.
TEST(FloatData, DetectsACorruptedWord) {
  for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32}) {
    SCOPED_TRACE(operator_name(k));
    RunConfig c = allreduce("allreduce_hypercube", k, 16, 3, 5);
    RunResult r = run_cpu(c);
    ASSERT_TRUE(r.verified);
    auto word_of = [k](double v) {
      return k == OperatorKind::fsum32 ? uint64_t(std::bit_cast<uint32_t>(float(v))) : std::bit_cast<uint64_t>(v);
    };
    auto next_up = [](uint64_t w) { return w + 1; };  // one ulp further from zero (sign and magnitude)
    std::vector<std::vector<uint64_t>> bad = r.buffers;
    uint64_t& slot = bad[0][size_t(5 * 3 + 1)];
    const uint64_t good = slot;
    // Beyond: the sum of 16 inputs in [-1, 1) is off by 1 (the bound is below 16 * 15 * 2^-24).
    slot = word_of(value(k, good) + 1.0);
    Verification v = verify_buffers(c, bad);
    EXPECT_EQ(v.mismatches, 1);
    ASSERT_EQ(v.first.size(), 1u);
    EXPECT_EQ(v.first[0].proc, 5);
    EXPECT_EQ(v.first[0].word, 1);
    EXPECT_EQ(device_mismatches_on_host(c, bad), 1);
    // Within: one ulp more, which the test's own check still finds within the bound.
    slot = next_up(good);
    const OwnCheck own = check_allreduce(c, bad[0]);
    ASSERT_TRUE(own.within_bound);
    v = verify_buffers(c, bad);
    EXPECT_EQ(v.mismatches, 0);
    EXPECT_EQ(int64_t(v.max_ulps), own.max_ulps);
    EXPECT_EQ(v.disagreements, 1);  // processor 5's word no longer equals processor 0's
    EXPECT_EQ(device_mismatches_on_host(c, bad), 0);

    // A broadcast copies: one ulp off is a mismatch.
    RunConfig b = testing_support::make_config("broadcast_binomial", TopologyKind::full, 16, "", 3, k, 2);
    b.input = InputSpec{true, 5};
    RunResult rb = run_cpu(b);
    ASSERT_TRUE(rb.verified);
    EXPECT_EQ(rb.max_error_ulps, 0);
    EXPECT_EQ(rb.results_agree, Agreement::agree);
    rb.buffers[0][size_t(7 * 3)] = next_up(rb.buffers[0][size_t(7 * 3)]);
    EXPECT_EQ(verify_buffers(b, rb.buffers).mismatches, 1);
    EXPECT_EQ(device_mismatches_on_host(b, rb.buffers), 1);
  }
}

// Every registered algorithm runs with fsum and fsum32: the folding operations verified within the
// bound, the copying ones (broadcast, allgather, alltoall, scatter, gather, shift, ...) with no
// error at all; the CPU and the device rounds on the host end with the same bits and verdict.
TEST(FloatData, EveryAlgorithmVerifies) {
  struct Machine {
    TopologyKind kind;
    int64_t p;
    const char* dims;
  };
  const Machine machines[] = {{TopologyKind::full, 8, ""},      {TopologyKind::full, 13, ""},   {TopologyKind::ring, 8, ""},
                              {TopologyKind::hypercube, 8, ""}, {TopologyKind::mesh, 0, "2x4"}, {TopologyKind::torus, 0, "3x3"},
                              {TopologyKind::bintree, 7, ""},   {TopologyKind::cluster, 0, "2x4"}, {TopologyKind::cluster_fattree, 0, "4x2x2x2"}};
  for (const auto& a : algorithms()) {
    int ran = 0;
    for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32})
      for (const Machine& at : machines) {
        if (!a.runs_on(at.kind)) continue;
        RunConfig c = testing_support::make_config(a.name, at.kind, at.p, at.dims, 2, k);
        const int64_t p = c.params.p;
        if (a.needs_m_divisible_by_p()) c.params.m = 2 * p;
        if (operation_rooted(a.op)) c.params.root = p - 1;
        c.input = InputSpec{true, 99};
        c.params.shift = p / 2 + 1;
        if (a.op == Operation::multicast) {
          c.params.group_stride = 2;
          c.params.group_size = p % 2 ? (p + 1) / 2 : p / 2;
        }
        if (a.op == Operation::kbroadcast || a.op == Operation::kscatter) c.params.sources = is_pow2(p) ? 4 : 1;
        if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
        if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
        if (!algorithm_rejects(a, c.topology, c.params, k).empty()) continue;
        SCOPED_TRACE(std::string(a.name) + " " + operator_name(k) + " on " + topology_shape(c.topology));
        ++ran;
        const RunResult r = run_cpu(c);
        EXPECT_TRUE(r.verified) << r.mismatches;
        const bool folds =
            a.op == Operation::reduce || a.op == Operation::allreduce || a.op == Operation::reduce_scatter || a.op == Operation::scan;
        if (!folds) {
          EXPECT_EQ(r.max_error_ulps, 0);
        }
        EXPECT_GE(r.max_error_ulps, 0);
        const RunResult h = run_device_rounds_on_host(c);
        EXPECT_EQ(h.buffers, r.buffers);
        c.keep_buffers = false;
        const RunResult d = run_device_rounds_on_host(c);
        EXPECT_TRUE(d.verified);
        EXPECT_EQ(d.max_error_ulps, r.max_error_ulps);
        EXPECT_EQ(d.results_agree, r.results_agree);
      }
    EXPECT_GT(ran, 0) << a.name << " never ran";
  }
}

// Long columns: the device sums blocks of rows and joins them (cuda/verify_bodies.h), the host
// sums each column in one pass; both find the same largest error, and the exclusive scan's first
// element is the identity. Reduce-scatter, reduce and scans at p = 1000 (four blocks per column).
TEST(FloatData, LongColumnsVerifyInBlocksAsInOnePass) {
  struct Run {
    const char* algo;
    TopologyKind kind;
    int64_t p;
    bool exclusive;
  };
  for (const Run& at :
       {Run{"scan_ring", TopologyKind::ring, 1000, false}, Run{"scan_ring", TopologyKind::ring, 1000, true},
        Run{"scan_hypercube", TopologyKind::hypercube, 1024, false}, Run{"reduce_binomial", TopologyKind::full, 1000, false},
        Run{"reduce_scatter_ring", TopologyKind::ring, 600, false}})
    for (OperatorKind k : {OperatorKind::fsum, OperatorKind::fsum32}) {
      SCOPED_TRACE(std::string(at.algo) + " " + operator_name(k) + (at.exclusive ? " exclusive" : ""));
      RunConfig c = testing_support::make_config(at.algo, at.kind, at.p, "", 3, k, 7);
      c.input = InputSpec{true, 11};
      c.params.exclusive = at.exclusive;
      const RunResult r = run_cpu(c);
      EXPECT_TRUE(r.verified);
      EXPECT_GT(r.max_error_ulps, 0);  // a thousand terms of [-1, 1) do not all add exactly
      c.keep_buffers = false;
      const RunResult d = run_device_rounds_on_host(c);
      EXPECT_TRUE(d.verified);
      EXPECT_EQ(d.max_error_ulps, r.max_error_ulps);
      RunResult bad = r;  // and the device finds a word beyond the bound
      const int32_t b = at.algo == std::string("reduce_scatter_ring") ? 1 : 0;
      uint64_t& w = bad.buffers[size_t(b)][size_t(7 * 3 + 1)];
      w = k == OperatorKind::fsum ? std::bit_cast<uint64_t>(value(k, w) + 0.5)
                                  : uint64_t(std::bit_cast<uint32_t>(float(value(k, w) + 0.5)));
      EXPECT_EQ(verify_buffers(c, bad.buffers).mismatches, 1);
      EXPECT_EQ(device_mismatches_on_host(c, bad.buffers), 1);
    }
}

// The long accumulator rounds once, correctly, in either format.
uint64_t exact_sum(std::initializer_list<double> xs, const FloatFormat& f) {
  ExactSum s;
  s.clear();
  for (double x : xs) s.add(x);
  return s.rounded(f);
}
double exact_double(std::initializer_list<double> xs) { return std::bit_cast<double>(exact_sum(xs, binary64())); }
float exact_float(std::initializer_list<double> xs) { return std::bit_cast<float>(uint32_t(exact_sum(xs, binary32()))); }

TEST(ExactSum, RoundsOnceToNearestEven) {
  const double u = std::ldexp(1.0, -53);
  EXPECT_EQ(exact_double({1, u}), 1.0);                               // a tie: to even
  EXPECT_EQ(exact_double({1, u, std::ldexp(1.0, -105)}), 1 + 2 * u);  // just above the tie
  EXPECT_EQ(exact_double({1, u, -std::ldexp(1.0, -105)}), 1.0);       // just below
  EXPECT_EQ(exact_double({1 + 2 * u, u}), 1 + 4 * u);                 // a tie: to even, upwards
  EXPECT_EQ(exact_double({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);     // no overflow on the way
  EXPECT_EQ(exact_double({DBL_MAX, DBL_MAX}), INFINITY);              // overflow at the end
  EXPECT_EQ(exact_double({-DBL_MAX, -DBL_MAX}), -INFINITY);
  EXPECT_EQ(exact_double({DBL_TRUE_MIN, DBL_TRUE_MIN}), 2 * DBL_TRUE_MIN);  // subnormals are exact
  EXPECT_EQ(exact_double({DBL_MIN, -DBL_TRUE_MIN}), DBL_MIN - DBL_TRUE_MIN);
  // 0.1, 0.2 and 0.3 are 3602879701896397 * 2^-55, 3602879701896397 * 2^-54 and 5404319552844595 *
  // 2^-54: exactly 2^-55 (rounded sums in either order give 2^-54 or 0).
  EXPECT_EQ(exact_double({0.1, 0.2, -0.3}), std::ldexp(1.0, -55));
  EXPECT_FALSE(std::signbit(exact_double({1, -1})));  // x + (-x) is +0
  EXPECT_TRUE(std::isnan(exact_double({1, NAN})));
  EXPECT_EQ(exact_double({INFINITY, 1}), INFINITY);
  // fsum32 rounds the exact sum to a float once: 1 + 2^-24 + 2^-60 is above the tie between 1 and
  // 1 + 2^-23, while rounding to a double first (1 + 2^-24) and then to a float would give 1.
  EXPECT_EQ(exact_float({1, std::ldexp(1.0, -24), std::ldexp(1.0, -60)}), 1 + std::ldexp(1.0f, -23));
  EXPECT_EQ(exact_float({FLT_MAX, FLT_MAX}), INFINITY);
  EXPECT_EQ(exact_float({FLT_TRUE_MIN, std::ldexp(1.0, -150)}), FLT_TRUE_MIN * 2);  // 1.5 subnormal ulps: to even
  EXPECT_EQ(exact_float({std::ldexp(1.0, -150)}), 0.0f);                            // half the least subnormal: to even, 0
  EXPECT_EQ(exact_float({-std::ldexp(1.0, -149) * 0.75}), -FLT_TRUE_MIN);
}

// Against the test's own exact sum (128-bit integers, then the compiler's correctly rounded
// conversion) on numbers of many magnitudes and signs.
TEST(ExactSum, MatchesIntegerSumsOfManyMagnitudes) {
  uint64_t state = 42;
  for (int trial = 0; trial < 200; ++trial) {
    ExactSum s;
    s.clear();
    Int128 sum = 0;  // in units of 2^-30: each term mant * 2^shift, |mant| < 2^52, shift in [-30, 30], below 2^112
    for (int i = 0; i < 300; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int64_t mant = int64_t(state >> 11) - (int64_t{1} << 52);
      const int shift = int((state >> 3) % 61) - 30;
      s.add(std::ldexp(double(mant), shift));
      sum += Int128(mant) * (Int128(1) << (shift + 30));
    }
    EXPECT_EQ(std::bit_cast<double>(s.rounded(binary64())), std::ldexp(double(sum), -30)) << trial;
  }
}

// The command line: one line of text, the JSON fields, and refusals.
std::string run_ppsim(const std::string& args, int& code) {
  const std::string out = ::testing::TempDir() + "ppsim_float_out";
  const std::string cmd = std::string("'") + PPSIM_EXE + "' " + args + " >'" + out + "' 2>/dev/null </dev/null";
  const int status = std::system(cmd.c_str());
  code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

TEST(FloatData, CommandLineReportsErrorAndAgreement) {
  int code = 0;
  const std::string base = "run --backend cpu --topology full --p 13 --op allreduce --m 2 --input random:3 ";
  nlohmann::json d = nlohmann::json::parse(run_ppsim(base + "--algo allreduce_ring_combining --combine fsum --json -", code));
  ASSERT_EQ(code, 0);
  EXPECT_TRUE(d["verified"].get<bool>());
  EXPECT_GE(d["max_error_ulps"].get<int64_t>(), 0);
  EXPECT_TRUE(d["results_agree"].is_boolean());
  EXPECT_EQ(d["config"]["input"], "random:3");
  EXPECT_TRUE(d["final"]["buffers"]["data"][0][0].is_number_float());
  d = nlohmann::json::parse(run_ppsim(base + "--combine sum --json -", code));
  EXPECT_TRUE(d["max_error_ulps"].is_null());
  EXPECT_EQ(d["results_agree"], true);
  d = nlohmann::json::parse(
      run_ppsim("run --backend cpu --topology ring --p 5 --op scan --combine fsum32 --input random:3:0:8 --json -", code));
  ASSERT_EQ(code, 0);
  EXPECT_TRUE(d["results_agree"].is_null());
  EXPECT_EQ(d["config"]["input"], "random:3:0:8");
  const std::string text = run_ppsim(base + "--combine fsum32", code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("fsum32, input random:3: largest error "), std::string::npos) << text;
  run_ppsim(base + "--combine sum --input random:3:0:1", code);
  EXPECT_EQ(code, 2);  // a range is for the floating-point operators
  run_ppsim(base + "--combine fsum --input random:3:1:0", code);
  EXPECT_EQ(code, 2);
  run_ppsim(base + "--combine fsum32 --input random:3:0:1e39", code);
  EXPECT_EQ(code, 2);  // beyond the largest float
  run_ppsim("run --machine pram-erew --op scan --p 8 --combine fsum", code);
  EXPECT_EQ(code, 2);  // the PRAM compares bit for bit
}

}  // namespace
