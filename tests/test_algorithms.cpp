// The registry-driven suite: every registered algorithm x every topology it runs on x
// p in {1, 2, 3, 5, 8, 13, 64, 1000} (where the topology allows; the fat tree and the dragonfly
// take shapes of their own, p from 2 to 72) x several operators and roots,
// compared with the sequential reference. Configurations an algorithm declares it cannot run
// (p not 2^d, non-commutative operator where the fold order needs commutativity) must be
// refused with a ConfigError, never run silently.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "ppsim/run.h"
#include "rules/pull_rules.h"
#include "rules/pull_units.h"
#include "test_helpers.h"

using namespace ppsim;

namespace {

struct Case {
  std::string algo;
  TopologyKind kind;
  int64_t p;
  std::string dims;
  OperatorKind combine;
  int64_t root;
  bool random_input;
};

// Who runs a case: the CPU backend, the CUDA backend, or the CUDA backend's rounds executed on the
// host (the device logic, checked here without a GPU).
enum class Runner { cpu, cuda, cuda_host };

void PrintTo(const std::tuple<Runner, Case>& c, std::ostream* os);
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.algo << " on " << topology_name(c.kind) << " p=" << c.p << " " << c.dims << " " << operator_name(c.combine) << " root " << c.root
      << (c.random_input ? " random input" : "");
}

void PrintTo(const std::tuple<Runner, Case>& c, std::ostream* os) {
  const Runner r = std::get<0>(c);
  *os << (r == Runner::cuda ? "cuda: " : r == Runner::cuda_host ? "cuda rounds on the host: " : "cpu: ");
  PrintTo(std::get<1>(c), os);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string d = c.dims;
  for (auto& ch : d)
    if (ch == 'x') ch = '_';
  std::string name = c.algo + "_" + topology_name(c.kind) + "_p" + std::to_string(c.p) + (d.empty() ? "" : "_d" + d) + "_" +
                     operator_name(c.combine) + "_root" + std::to_string(c.root) + (c.random_input ? "_rnd" : "");
  for (auto& ch : name)
    if (ch == '-') ch = '_';  // cluster-fattree: a test name takes letters, digits and '_'
  return name;
}

// Grid shapes for p processors: a near-square 2-D shape and, where p is a cube, a 3-D one.
std::vector<std::string> grid_shapes(int64_t p) {
  std::vector<std::string> out;
  int64_t r = 1;
  for (int64_t x = 1; x * x <= p; ++x)
    if (p % x == 0) r = x;
  out.push_back(std::to_string(r) + "x" + std::to_string(p / r));
  for (int64_t c = 2; c * c * c <= p; ++c)
    if (c * c * c == p) out.push_back(std::to_string(c) + "x" + std::to_string(c) + "x" + std::to_string(c));
  return out;
}

// The fat tree, the dragonfly and the two-level clusters take their shapes from --dims: the small
// ones run with every operator and a random input, the larger ones with one operator, to keep the
// suite quick.
struct ModernShape {
  std::string dims;
  int64_t p;
  bool every_operator;
};
std::vector<ModernShape> modern_shapes(TopologyKind kind) {
  if (kind == TopologyKind::fattree)  // k-ary n-trees: KxN, p = k^n
    return {{"2x1", 2, false}, {"2x3", 8, true}, {"3x2", 9, true}, {"4x2", 16, false}, {"3x3", 27, false}};
  if (kind == TopologyKind::dragonfly)  // AxHxC: p = c a (a h + 1)
    return {{"1x1x1", 2, false}, {"1x2x1", 3, true}, {"2x1x1", 6, true}, {"2x2x1", 10, false}, {"4x2x2", 72, false}};
  if (kind == TopologyKind::cluster)  // NxGxK: N nodes of G accelerators, K NICs each, on K rails
    return {{"1x2", 2, false}, {"2x2x1", 4, true}, {"3x2x2", 6, true}, {"2x4x2", 8, false}, {"4x4x2", 16, false}, {"8x8x4", 64, false}};
  if (kind == TopologyKind::cluster_fattree)  // NxGxKxA: the NICs at the leaves of an A-ary fat tree
    return {{"2x1", 2, false}, {"2x2x1", 4, true}, {"3x2x1", 6, true}, {"2x4x2x2", 8, false}, {"4x4x2x2", 16, false}};
  return {};
}

void add_modern_cases(const AlgorithmInfo& a, TopologyKind kind, const std::vector<OperatorKind>& ops, std::vector<Case>& cases) {
  for (const ModernShape& s : modern_shapes(kind)) {
    std::vector<int64_t> roots = {0};
    if (operation_rooted(a.op)) roots.push_back(s.p - 1);
    // One operator on the larger shapes: interval, which catches any fold out of order, or sum where
    // the algorithm needs a commutative one.
    const OperatorKind one = a.commutative_only() ? OperatorKind::sum : OperatorKind::interval;
    for (OperatorKind op : s.every_operator ? ops : std::vector<OperatorKind>{one})
      for (int64_t root : roots) cases.push_back({a.name, kind, s.p, s.dims, op, root, false});
    if (s.every_operator) cases.push_back({a.name, kind, s.p, s.dims, OperatorKind::max, roots.back(), true});
  }
}

// `lean`: the CUDA backend's rounds executed on the host, which run about twice as long as the CPU
// backend (the p = 1000 cases took 160 of the suite's 245 seconds there, 80 on the CPU): at
// p = 1000 they run on the algorithm's own topologies only, with one operator, interval (it
// catches any fold out of order) or sum where the algorithm needs a commutative one, and no random
// input. Every smaller p takes every topology and operator, and the CPU backend every case.
std::vector<Case> all_cases(bool lean = false) {
  std::vector<Case> cases;
  const std::vector<int64_t> ps = {1, 2, 3, 5, 8, 13, 64, 1000};
  const std::vector<OperatorKind> ops = {OperatorKind::sum, OperatorKind::interval, OperatorKind::affine, OperatorKind::bxor};
  for (const auto& a : algorithms())
    for (int k = 0; k < kTopologyCount; ++k) {
      auto kind = TopologyKind(k);
      if (!a.runs_on(kind)) continue;
      if (!modern_shapes(kind).empty()) {
        add_modern_cases(a, kind, ops, cases);
        continue;
      }
      // A complete binary tree has 2^d - 1 processors: its own sizes, the largest standing in for 1000.
      const std::vector<int64_t> tree_ps = {1, 3, 7, 15, 63, 1000};
      for (int64_t p0 : kind == TopologyKind::bintree ? tree_ps : ps) {
        const int64_t p = kind == TopologyKind::bintree && p0 == 1000 ? 1023 : p0;
        if ((kind == TopologyKind::hypercube || kind == TopologyKind::tree || kind == TopologyKind::binomial) && !is_pow2(p)) continue;
        // A logical algorithm on a foreign topology: one operator suffices beyond p = 64. All-to-all
        // personalized moves up to p^3/2 words (eq. 4-7): at p = 1000 only on its own topologies.
        bool big_foreign = p0 == 1000 && !a.native_on(kind);
        if (p0 == 1000 && a.op == Operation::alltoall && !a.native_on(kind)) continue;
        if (p0 == 1000 && lean && !a.native_on(kind)) continue;
        if (p0 == 1000 && a.op == Operation::alltoall) big_foreign = true;
        std::vector<std::string> shapes =
            (kind == TopologyKind::mesh || kind == TopologyKind::torus) ? grid_shapes(p) : std::vector<std::string>{""};
        std::vector<int64_t> roots = {0};
        if (operation_rooted(a.op) && p > 1) {
          roots.push_back(p - 1);
          if (p == 13) roots.push_back(6);
        }
        // One operator and no random input: interval at a big foreign case, else `lean`'s.
        const bool one_operator = big_foreign || (lean && p0 == 1000);
        const OperatorKind only = big_foreign || !a.commutative_only() ? OperatorKind::interval : OperatorKind::sum;
        for (const auto& dims : shapes)
          for (OperatorKind op : ops) {
            if (one_operator && op != only) continue;
            for (int64_t root : roots) cases.push_back({a.name, kind, p, dims, op, root, false});
          }
        for (const auto& dims : shapes)
          if (!one_operator) cases.push_back({a.name, kind, p, dims, OperatorKind::max, roots.back(), true});
      }
    }
  return cases;
}

// The configuration of a case: m words (2p where the algorithm splits its message into p parts),
// a shift of p/2 + 1, a multicast to every other processor, k sources where p = 2^d, and the port
// model the algorithm needs.
RunConfig case_config(const Case& k) {
  const AlgorithmInfo* info = find_algorithm(k.algo);
  const int64_t m = info->needs_m_divisible_by_p() ? 2 * k.p : 2;  // message splitting: m/p words per part
  RunConfig c = testing_support::make_config(k.algo, k.kind, k.dims.empty() ? k.p : 0, k.dims, m, k.combine, k.root);
  c.params.shift = k.p > 2 ? k.p / 2 + 1 : 1;
  if (info->op == Operation::multicast) {  // every other processor from the root, as far as that goes
    c.params.group_stride = 2;
    c.params.group_size = k.p % 2 == 1 ? (k.p + 1) / 2 : k.p / 2;
  }
  if (info->op == Operation::kbroadcast || info->op == Operation::kscatter) c.params.sources = is_pow2(k.p) ? std::min<int64_t>(4, k.p) : 1;
  c.input = InputSpec{k.random_input, 12345};
  if (c.algorithm->sends_per_step > 1) c.ports = PortSpec{PortModel::kport, c.algorithm->sends_per_step};
  if (c.algorithm->needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
  return c;
}

// One suite, compiled once, instantiated per backend (Kokkos style); the CUDA instantiation skips
// with the reason when this machine has no usable device.
class AlgorithmSuite : public ::testing::TestWithParam<std::tuple<Runner, Case>> {};

TEST_P(AlgorithmSuite, MatchesTheSequentialReference) {
  const Runner runner = std::get<0>(GetParam());
  const Case& k = std::get<1>(GetParam());
  auto run = [runner](RunConfig c) {
    if (runner == Runner::cuda_host) {  // the device's own verification (the CPU instantiation checks on the host)
      c.keep_buffers = false;
      return run_device_rounds_on_host(c);
    }
    return run_simulation(c, runner == Runner::cuda ? Backend::cuda : Backend::cpu);
  };
  if (runner == Runner::cuda) {
    static const CudaStatus status = cuda_status();
    if (!status.usable) GTEST_SKIP() << "CUDA backend: " << status.why;
  }
  const RunConfig c = case_config(k);
  std::string why = algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine);
  if (!why.empty()) {
    // Only the declared limitations may refuse a configuration.
    bool declared = c.algorithm->own_limit(c.params) != nullptr || (c.algorithm->needs_pow2() && !is_pow2(k.p)) ||
                    (!operator_commutative(k.combine) &&
                     (c.algorithm->commutative_only() || (c.algorithm->root_zero_if_noncommutative() && k.root != 0)));
    EXPECT_TRUE(declared) << why;
    EXPECT_THROW(run(c), ConfigError);
    return;
  }
  RunResult r = run(c);
  EXPECT_EQ(r.backend, runner == Runner::cuda ? "cuda" : runner == Runner::cuda_host ? "cuda-host" : "cpu");
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.mismatches, 0);
  EXPECT_EQ(r.steps, c.algorithm->rounds(c.params));
  EXPECT_EQ(int64_t(r.per_step.size()), r.steps);
  int64_t messages = 0, words = 0;
  for (const auto& s : r.per_step) {
    messages += s.messages;
    words += s.words;
  }
  EXPECT_EQ(messages, r.messages);
  EXPECT_EQ(words, r.words);
  if (k.p == 1) {
    EXPECT_EQ(r.messages, 0);
  }
}

std::string backend_case_name(const ::testing::TestParamInfo<std::tuple<Runner, Case>>& info) {
  return case_name(::testing::TestParamInfo<Case>(std::get<1>(info.param), info.index));
}

INSTANTIATE_TEST_SUITE_P(Cpu, AlgorithmSuite, ::testing::Combine(::testing::Values(Runner::cpu), ::testing::ValuesIn(all_cases())),
                         backend_case_name);
INSTANTIATE_TEST_SUITE_P(Cuda, AlgorithmSuite, ::testing::Combine(::testing::Values(Runner::cuda), ::testing::ValuesIn(all_cases())),
                         backend_case_name);
INSTANTIATE_TEST_SUITE_P(CudaRoundsOnHost, AlgorithmSuite,
                         ::testing::Combine(::testing::Values(Runner::cuda_host), ::testing::ValuesIn(all_cases(true))), backend_case_name);

// The CPU backend's two step paths, the pull step and the records, give the same report and the
// same buffers bit for bit on every case (the floating-point times compared as bits too), and the
// pull step runs every case it takes: a message that did not arrive as it expected would send the
// run back to the records without a word.
class StepPathSuite : public ::testing::TestWithParam<Case> {};

TEST_P(StepPathSuite, PullStepGivesTheRecordsBitForBit) {
  RunConfig c = case_config(GetParam());
  // Messages long enough for the pull step to take routed topologies too (up to p = 64).
  if (c.params.p <= 64) c.params.m *= 8;
  c.cost.tw = 0.3;  // every term of the time in play
  c.cost.th = 0.7;
  c.cost.gamma = 0.1;
  c.cost.stragglers.factor = 3;  // the middle processor's sends take three times as long
  c.cost.stragglers.listed = 1;
  c.cost.stragglers.list[0] = GetParam().p / 2;
  RunConfig records = c;
  records.step_path = StepPath::records;
  const RunResult a = run_cpu(c), b = run_cpu(records);
  EXPECT_EQ(b.step_path, "records");
  if (const char* why = pull_step_refusal(c)) {
    EXPECT_EQ(a.step_path, "records") << why;
  } else {
    EXPECT_EQ(a.step_path, "pull");
  }
  EXPECT_TRUE(a.verified);
  EXPECT_EQ(a.buffers, b.buffers);
  ASSERT_EQ(a.per_step.size(), b.per_step.size());
  for (size_t s = 0; s < a.per_step.size(); ++s) {
    const StepStats &x = a.per_step[s], &y = b.per_step[s];
    EXPECT_EQ(x.messages, y.messages) << "step " << x.step;
    EXPECT_EQ(x.words, y.words) << "step " << x.step;
    EXPECT_EQ(x.link_hops, y.link_hops) << "step " << x.step;
    EXPECT_EQ(x.max_link_load, y.max_link_load) << "step " << x.step;
    EXPECT_EQ(std::bit_cast<uint64_t>(x.time), std::bit_cast<uint64_t>(y.time)) << "step " << x.step << ": " << x.time << " against " << y.time;
  }
  EXPECT_EQ(std::bit_cast<uint64_t>(a.time), std::bit_cast<uint64_t>(b.time));
}

// The cases the algorithms accept (the registry suite checks the refusals).
std::vector<Case> accepted_cases() {
  std::vector<Case> out;
  for (const Case& k : all_cases(true)) {
    const RunConfig c = case_config(k);
    if (algorithm_rejects(*c.algorithm, c.topology, c.params, c.combine).empty()) out.push_back(k);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cpu, StepPathSuite, ::testing::ValuesIn(accepted_cases()), case_name);

// A round of one-hop messages needs no link count (rules::one_hop_cost), and the pull step guesses
// such rounds from a sample of 64 processors. Here the sample is wrong: on a ring of 200, every
// processor exchanges a word with its neighbour i ^ 1, but 2 and 5 (neither sampled) exchange
// across 3 and 4, whose own exchange then shares a link with theirs. Each round proves the guess
// wrong and is costed again with its loads counted: both backends give the record path's report
// (the busiest link carries 2), bit for bit.
void pairs_with_one_long_pair(const AlgoParams& a, int64_t proc, int, StepOps& out) {
  int64_t partner = proc ^ 1;
  if (proc >= 2 && proc <= 5) partner = 7 - proc;  // 2 with 5, 3 with 4
  if (proc >= a.p || partner >= a.p) return;
  out.add_send(partner, 0, 0, a.m);
  out.add_recv(partner, 0, 0, a.m, RecvMode::copy);
}
// The ops `ops` on `kind` of p processors, a word each, run by the pull step of both backends
// (whose guess of some round is wrong) and by the record path: the same buffers and, step by step,
// the same busiest link (2, the guess's error), link-hops and time, bit for bit.
void expect_wrong_guess_costed_again(TopologyKind kind, int64_t p, void (*ops)(const AlgoParams&, int64_t, int, StepOps&)) {
  RunConfig c = testing_support::make_config("broadcast_binomial", kind, p, "", 1);
  c.test_ops_override = ops;
  c.verify = false;  // (not a broadcast)
  c.cost.tw = 0.3;
  c.cost.th = 0.7;
  RunConfig records = c;
  records.step_path = StepPath::records;
  const RunResult pulled = run_cpu(c), recorded = run_cpu(records), device = run_device_rounds_on_host(c);
  EXPECT_EQ(pulled.step_path, "pull");
  EXPECT_EQ(device.step_path, "pull");
  EXPECT_EQ(recorded.max_link_load, 2);
  for (const RunResult* r : {&pulled, &device}) {
    EXPECT_EQ(r->buffers, recorded.buffers);
    ASSERT_EQ(r->per_step.size(), recorded.per_step.size());
    for (size_t s = 0; s < r->per_step.size(); ++s) {
      EXPECT_EQ(r->per_step[s].max_link_load, recorded.per_step[s].max_link_load) << "step " << s + 1;
      EXPECT_EQ(r->per_step[s].link_hops, recorded.per_step[s].link_hops) << "step " << s + 1;
      EXPECT_EQ(std::bit_cast<uint64_t>(r->per_step[s].time), std::bit_cast<uint64_t>(recorded.per_step[s].time)) << "step " << s + 1;
    }
  }
}
TEST(StepPaths, AWrongOneHopGuessIsCostedAgain) { expect_wrong_guess_costed_again(TopologyKind::ring, 200, pairs_with_one_long_pair); }

// On the hypercube a round whose messages all cross one XOR distance k needs no link count either:
// their dimension-order routes share no link (rules::sends_xor_distance). Here the sample of 64 is
// wrong: on 256 processors every processor exchanges a word with i ^ 3, but four that the sample
// misses (a, a ^ 3, a ^ 65, a ^ 66) exchange across 66 and 65, and a's route takes the link of
// dimension 1 out of a that a ^ 1's route to a ^ 2 takes too. The guess of distance 3 is checked,
// broken, and the round costed again with its loads counted: both backends give the record path's
// report (the busiest link carries 2), bit for bit; the E-cube all-to-all guesses every round.
int64_t g_xor_odd = -1;  // a: the first of the four the sample misses
void xor_pairs_with_one_odd_group(const AlgoParams& a, int64_t proc, int, StepOps& out) {
  const int64_t x = proc ^ g_xor_odd;  // the four pair across 66 (a with a ^ 66, a ^ 3 with a ^ 65)
  const int64_t partner = proc ^ (x == 0 || x == 3 || x == 65 || x == 66 ? 66 : 3);
  if (proc >= a.p || partner >= a.p) return;
  out.add_send(partner, 0, 0, a.m);
  out.add_recv(partner, 0, 0, a.m, RecvMode::copy);
}
TEST(StepPaths, AWrongXorDistanceGuessIsCostedAgain) {
  const int64_t p = 256, sample = rules::round_sample_size(p);
  std::vector<bool> sampled(size_t(p), false);
  for (int64_t k = 0; k < sample; ++k) sampled[size_t(rules::sampled_processor(0, p, sample, k))] = true;
  for (int64_t a = 0; a < p && g_xor_odd < 0; ++a)
    if (!sampled[size_t(a)] && !sampled[size_t(a ^ 3)] && !sampled[size_t(a ^ 65)] && !sampled[size_t(a ^ 66)]) g_xor_odd = a;
  ASSERT_GE(g_xor_odd, 0);
  expect_wrong_guess_costed_again(TopologyKind::hypercube, p, xor_pairs_with_one_odd_group);
}

// The units the pull step reads directly, into ops of their own size (rules/pull_units.h): on
// every accepted case of the registry, in every round, every processor's ops fit the room its unit
// declares, and read directly they are the dispatch's, field by field.
TEST(PullUnits, OpsFitTheirRoomAndAreTheDispatchs) {
  int64_t checked = 0;
  for (const Case& k : accepted_cases()) {
    const RunConfig c = case_config(k);
    rules::with_ops_source(c.algorithm->id, true, [&](auto src) {
      using Src = decltype(src);
      if constexpr (!Src::any) {
        for (int r = 1; r <= c.algorithm->rounds(c.params); ++r)
          for (int64_t i = 0; i < c.params.p; ++i) {
            StepOps all;
            ASSERT_TRUE(rules::read_round_ops(c.algorithm->id, nullptr, c.params, i, r, all));
            typename Src::Ops own;
            ASSERT_TRUE(rules::read_ops<Src>(c.algorithm->id, nullptr, c.params, i, r, own))
                << c.algorithm->name << " p = " << c.params.p << ", processor " << i << ", round " << r << ": " << all.nsend << " sends, "
                << all.nrecv << " receives";
            ASSERT_EQ(own.nsend, all.nsend);
            ASSERT_EQ(own.nrecv, all.nrecv);
            for (int n = 0; n < all.nsend; ++n) {
              const Send &x = own.send[n], &y = all.send[n];
              EXPECT_TRUE(x.to == y.to && x.src_off == y.src_off && x.len == y.len && x.run == y.run && x.stride == y.stride && x.buf == y.buf);
            }
            for (int n = 0; n < all.nrecv; ++n) {
              const Recv &x = own.recv[n], &y = all.recv[n];
              ASSERT_TRUE(x.from == y.from && x.len == y.len && x.nact == y.nact);
              for (int q = 0; q < x.nact; ++q) {
                const RecvAction &u = x.act[q], &v = y.act[q];
                EXPECT_TRUE(u.dst_off == v.dst_off && u.run == v.run && u.stride == v.stride && u.buf == v.buf && u.mode == v.mode &&
                            u.msg_off == v.msg_off && u.words == v.words);
              }
            }
            ++checked;
          }
      }
    });
  }
  EXPECT_GT(checked, 10000);  // every unit of the list, on many shapes
}

// The verification is not a check that cannot fail: corrupt one word and it reports it.
TEST(Verification, DetectsACorruptedWord) {
  RunConfig c = testing_support::make_config("allreduce_hypercube", TopologyKind::hypercube, 16, "", 3, OperatorKind::interval);
  RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  r.buffers[0][5 * 3 + 1] = interval_make(0, 14);
  Verification v = verify_buffers(c, r.buffers);
  EXPECT_EQ(v.mismatches, 1);
  ASSERT_EQ(v.first.size(), 1u);
  EXPECT_EQ(v.first[0].proc, 5);
  EXPECT_EQ(v.first[0].word, 1);
}

// Every operation that has algorithms gets a default on every topology where one applies.
TEST(Registry, DefaultsAndNamesAreConsistent) {
  for (const auto& a : algorithms()) {
    EXPECT_EQ(find_algorithm(a.name), &a);
    EXPECT_NE(std::string(a.description), "");
    EXPECT_NE(std::string(a.formula_text), "");
    EXPECT_NE(a.topologies, 0u);
    EXPECT_EQ(a.native & ~a.topologies, 0u) << a.name;
  }
  Topology ring13 = make_topology(TopologyKind::ring, 13, "");
  AlgoParams a = params_for(ring13, 1, 0);
  ASSERT_NE(default_algorithm(Operation::allgather, ring13, a, OperatorKind::sum), nullptr);
  EXPECT_STREQ(default_algorithm(Operation::allgather, ring13, a, OperatorKind::sum)->name, "allgather_ring");
  Topology hc = make_topology(TopologyKind::hypercube, 16, "");
  EXPECT_STREQ(default_algorithm(Operation::broadcast, hc, params_for(hc, 1, 3), OperatorKind::sum)->name, "broadcast_hypercube");
  // The fat tree and the dragonfly have the fully connected machine's defaults: every operation has
  // one where p = 2^d, and the one-step shift and (p = 2^d) pairwise exchange are among them.
  for (const Topology& t : {make_topology(TopologyKind::fattree, 0, "4x2"), make_topology(TopologyKind::dragonfly, 0, "1x3x2")})
    for (int o = 0; o < kOperationCount; ++o) {
      bool any = false;
      for (const auto& algo : algorithms()) any = any || algo.op == Operation(o);
      if (any) {
        EXPECT_NE(default_algorithm(Operation(o), t, params_for(t, 1, 0), OperatorKind::sum), nullptr)
            << operation_name(Operation(o)) << " on " << topology_shape(t);
      }
    }
  auto default_name = [](Operation op, const Topology& t) {
    const AlgorithmInfo* d = default_algorithm(op, t, params_for(t, 1, 0), OperatorKind::sum);
    return std::string(d ? d->name : "none");
  };
  const Topology fat = make_topology(TopologyKind::fattree, 0, "4x2"), fly = make_topology(TopologyKind::dragonfly, 0, "4x2x2");
  EXPECT_EQ(default_name(Operation::broadcast, fat), "broadcast_binomial");
  EXPECT_EQ(default_name(Operation::allgather, fat), "allgather_ring");
  EXPECT_EQ(default_name(Operation::alltoall, fat), "alltoall_xor_ecube");
  EXPECT_EQ(default_name(Operation::shift, fat), "shift_ecube");
  EXPECT_EQ(default_name(Operation::shift, fly), "shift_ecube");
  EXPECT_EQ(default_name(Operation::alltoall, fly), "alltoall_ring");  // p = 72 is not 2^d
}

}  // namespace
