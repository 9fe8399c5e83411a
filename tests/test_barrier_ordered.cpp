// The barrier operation and the order-keeping reductions:
//   - knowledge tokens (ppsim/barrier_token.h): the merge is the union of two cyclic intervals,
//     checked against bit sets for every pair of tokens of small p, and never more;
//   - barrier_dissemination, k ports:  T = t_s ceil(log_{k+1} p), no words charged (Hensgen,
//     Finkel, Manber); barrier_binomial: T = 2 t_s ceil(log2 p); both on the CPU backend and on
//     the device rounds executed on the host, with identical times;
//   - wrong barriers (a round left out, the release left out, one signal dropped) fail verification;
//   - reduce_ordered:          T = ceil(log2 p)(t_s + t_w m + gamma m), any root, any operator;
//   - reduce_scatter_pairwise: T = (p - 1)(t_s + t_w m + gamma m), any operator;
//   - the audit: on a fully connected machine, every operation runs with every operator at every
//     root (0, p - 1, the middle) for p in {1, 2, 3, 5, 8, 13}, through its default algorithm;
//   - the command line: --op barrier / MPI_Barrier, and a non-commutative reduce at root 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <bitset>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/all.h"
#include "ppsim/bounds.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/engine.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

const int64_t kPs[] = {1, 2, 3, 5, 8, 13, 100};

struct Costs {
  double ts, tw, gamma;
};
const Costs kCosts[] = {{1, 1, 0}, {100, 7, 3}, {2.5, 1000, 0.5}};

RunConfig with_costs(RunConfig c, Costs k) {
  c.cost.ts = k.ts;
  c.cost.tw = k.tw;
  c.cost.th = 0;
  c.cost.gamma = k.gamma;
  return c;
}

// The run on the CPU backend and on the device rounds executed on the host (verifying where the
// buffers are, as a device does): both verified, with the same steps, figures and time.
RunResult run_both(const RunConfig& c) {
  RunResult cpu = run_cpu(c);
  RunConfig dev_config = c;
  dev_config.keep_buffers = false;
  RunResult dev = run_device_rounds_on_host(dev_config);
  EXPECT_TRUE(cpu.verified);
  EXPECT_TRUE(dev.verified);
  EXPECT_EQ(dev.steps, cpu.steps);
  EXPECT_EQ(dev.messages, cpu.messages);
  EXPECT_EQ(dev.words, cpu.words);
  EXPECT_EQ(dev.time, cpu.time);
  return cpu;
}

// ceil(log_b p), counted the slow way.
int ceil_log(int64_t p, int64_t b) {
  int r = 0;
  for (int64_t reach = 1; reach < p; reach *= b) ++r;
  return r;
}

// ---- knowledge tokens ----

// The ranks a token stands for, as a bit set (p <= 16).
std::bitset<16> ranks_of(uint64_t token, int64_t p) {
  std::bitset<16> s;
  for (int64_t x = 0; x < token_len(token); ++x) s.set(size_t((token_start(token) + x) % p));
  return s;
}

// The canonical token of a set of ranks that is one cyclic interval, or kTokenPoison.
uint64_t token_of(std::bitset<16> s, int64_t p) {
  if (int64_t(s.count()) == p) return token_full(p);
  int64_t starts = 0, start = 0;
  for (int64_t i = 0; i < p; ++i)
    if (s[size_t(i)] && !s[size_t((i + p - 1) % p)]) {
      ++starts;
      start = i;
    }
  return starts == 1 ? token_make(start, int64_t(s.count())) : kTokenPoison;
}

TEST(BarrierToken, MergeIsTheUnionOfTwoIntervalsAndNothingMore) {
  for (int64_t p = 1; p <= 9; ++p) {
    std::vector<uint64_t> tokens;
    for (int64_t s = 0; s < p; ++s)
      for (int64_t l = 1; l < p; ++l) tokens.push_back(token_make(s, l));
    tokens.push_back(token_full(p));
    for (uint64_t x : tokens)
      for (uint64_t y : tokens) {
        const uint64_t want = token_of(ranks_of(x, p) | ranks_of(y, p), p);
        ASSERT_EQ(token_merge(x, y, p), want) << "p=" << p << " (" << token_start(x) << "," << token_len(x) << ") with (" << token_start(y)
                                              << "," << token_len(y) << ")";
      }
  }
}

TEST(BarrierToken, NothingButATokenMerges) {
  const int64_t p = 8;
  const uint64_t full = token_full(p), one = token_make(3, 1);
  EXPECT_EQ(token_merge(full, one, p), full);
  // Not tokens: the words operators leave unset, zero, a start or a length out of range.
  for (uint64_t bad : {kPoison, kIntervalUnset, kIntervalError, uint64_t{0}, token_make(p, 1), token_make(0, 0), token_make(0, p + 1),
                       full & ~kTokenTag}) {
    EXPECT_FALSE(token_valid(bad, p));
    EXPECT_EQ(token_merge(bad, full, p), kTokenPoison);
    EXPECT_EQ(token_merge(full, bad, p), kTokenPoison);
  }
  // Two intervals with gaps on both sides: poison, and poison spoils whatever it meets.
  const uint64_t gap = token_merge(token_make(0, 2), token_make(4, 2), p);
  EXPECT_EQ(gap, kTokenPoison);
  EXPECT_EQ(token_merge(gap, full, p), kTokenPoison);
  EXPECT_NE(kTokenPoison, full);
}

// ---- barrier formulas ----

TEST(BarrierFormula, DisseminationIsCeilLogKPlus1OfPStartups) {
  for (int64_t p : kPs)
    for (int k = 1; k <= 3; ++k)
      for (Costs cost : kCosts) {
        SCOPED_TRACE("p=" + std::to_string(p) + " k=" + std::to_string(k));
        RunConfig c = with_costs(make_config("barrier_dissemination", TopologyKind::full, p), cost);
        if (k > 1) c.ports = PortSpec{PortModel::kport, k};
        c.params.kports = k;
        // Round r: every processor signals i + j (k+1)^(r-1) for the j <= k with j (k+1)^(r-1) < p.
        const int rounds = ceil_log(p, k + 1);
        int64_t messages = 0, d = 1;
        for (int r = 1; r <= rounds; ++r, d *= k + 1)
          for (int64_t j = 1; j <= k && j * d < p; ++j) messages += p;
        const RunResult r = run_both(c);
        EXPECT_EQ(r.steps, rounds);
        EXPECT_DOUBLE_EQ(r.time, cost.ts * rounds);
        EXPECT_DOUBLE_EQ(formula_time(c), r.time);
        EXPECT_EQ(r.messages, messages);
        EXPECT_EQ(r.words, 0);  // the tokens are the simulator's: not charged
        // It meets the lower bound: knowledge grows at most (k+1)-fold per step.
        EXPECT_DOUBLE_EQ(lower_bound_time(c), cost.ts * rounds);
        EXPECT_EQ(postal_lower_bound_steps(c), rounds);
      }
}

TEST(BarrierFormula, BinomialIsTwiceCeilLog2POfStartups) {
  for (int64_t p : kPs)
    for (Costs cost : kCosts) {
      SCOPED_TRACE("p=" + std::to_string(p));
      RunConfig c = with_costs(make_config("barrier_binomial", TopologyKind::full, p, "", 5), cost);
      const int rounds = 2 * ceil_log(p, 2);
      const RunResult r = run_both(c);
      EXPECT_EQ(r.steps, rounds);
      EXPECT_DOUBLE_EQ(r.time, cost.ts * rounds);
      EXPECT_DOUBLE_EQ(formula_time(c), r.time);
      EXPECT_EQ(r.messages, 2 * (p - 1));  // p - 1 arrivals up the tree, p - 1 releases down it
      EXPECT_EQ(r.words, 0);
      EXPECT_GE(r.time, lower_bound_time(c));
    }
}

// On a ring the signals share links, but they carry no words: congestion costs nothing.
TEST(BarrierFormula, CongestionCostsNothingWithoutWords) {
  RunConfig c = with_costs(make_config("barrier_dissemination", TopologyKind::ring, 13), {3, 10, 1});
  const RunResult r = run_both(c);
  EXPECT_GT(r.max_link_load, 1);
  EXPECT_DOUBLE_EQ(r.time, 3.0 * 4);
}

// The trace charges a barrier's messages what the report charges: no words (the token is the
// simulator's), on the CPU backend and the device rounds alike.
TEST(Barrier, TheTraceChargesNoWords) {
  RunConfig c = make_config("barrier_dissemination", TopologyKind::ring, 6);
  c.trace = true;
  for (const RunResult& r : {run_cpu(c), run_device_rounds_on_host(c)}) {
    ASSERT_TRUE(r.verified);
    EXPECT_EQ(r.words, 0);
    int64_t messages = 0;
    for (const TraceStep& s : r.trace)
      for (const TraceMessage& m : s.messages) {
        EXPECT_EQ(m.words, 0);
        ++messages;
      }
    EXPECT_EQ(messages, r.messages);
    EXPECT_GT(messages, 0);
  }
}

// The operator a user names does not apply to a barrier: every one gives the same tokens.
TEST(Barrier, TheOperatorDoesNotApply) {
  RunConfig c = make_config("barrier_dissemination", TopologyKind::full, 13);
  const RunResult base = run_cpu(c);
  ASSERT_TRUE(base.verified);
  for (int k = 0; k < kOperatorCount; ++k) {
    c.combine = OperatorKind(k);
    c.input = InputSpec{true, 99};
    const RunResult r = run_both(c);
    EXPECT_EQ(r.buffers, base.buffers) << operator_name(OperatorKind(k));
  }
}

// ---- wrong barriers fail ----

using OpsFn = void (*)(const AlgoParams&, int64_t, int, StepOps&);

// What every processor truly knows at the end of a schedule, worked out without tokens: who it has
// heard from through chains of messages (a send reads the start of its round).
std::vector<std::vector<bool>> causal_knowledge(const AlgoParams& a, int rounds, OpsFn ops) {
  const size_t p = size_t(a.p);
  std::vector<std::vector<bool>> know(p, std::vector<bool>(p, false));
  for (size_t i = 0; i < p; ++i) know[i][i] = true;
  for (int r = 1; r <= rounds; ++r) {
    std::vector<std::vector<bool>> next = know;
    for (int64_t i = 0; i < a.p; ++i) {
      StepOps step;
      ops(a, i, r, step);
      for (int n = 0; n < step.nsend; ++n)
        for (size_t x = 0; x < p; ++x)
          if (know[size_t(i)][x]) next[size_t(step.send[n].to)][x] = true;
    }
    know = std::move(next);
  }
  return know;
}

bool knows_everyone(const std::vector<bool>& k) {
  for (bool b : k)
    if (!b) return false;
  return true;
}

// The run with the algorithm's ops replaced, on both backends (equal verdicts). Soundness: every
// processor whose token says it has heard from everyone truly has, so a run that verifies is a
// barrier. Returns the mismatches (the processors that could leave too early, or false alarms).
int64_t mismatches_with(RunConfig c, OpsFn ops) {
  c.test_ops_override = ops;
  const RunResult cpu = run_cpu(c);
  const auto know = causal_knowledge(c.params, c.algorithm->rounds(c.params), ops);
  for (int64_t i = 0; i < c.params.p; ++i)
    if (cpu.buffers[kData][size_t(i)] == token_full(c.params.p)) {
      EXPECT_TRUE(knows_everyone(know[size_t(i)])) << "processor " << i;
    }
  c.keep_buffers = false;
  const RunResult dev = run_device_rounds_on_host(c);
  EXPECT_EQ(dev.verified, cpu.verified);
  EXPECT_EQ(dev.mismatches, cpu.mismatches);
  EXPECT_EQ(cpu.verified, cpu.mismatches == 0);
  return cpu.mismatches;
}

bool is_a_barrier(const RunConfig& c, OpsFn ops) {
  for (const auto& k : causal_knowledge(c.params, c.algorithm->rounds(c.params), ops))
    if (!knows_everyone(k)) return false;
  return true;
}

// Dissemination without its last round, or without its first.
void without_last_round(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  if (round != BarrierDissemination::rounds(a)) BarrierDissemination::ops(a, id, round, out);
}
void without_first_round(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  if (round != 1) BarrierDissemination::ops(a, id, round, out);
}
// The binomial barrier's arrivals gathered to 0, but never released.
void without_release(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  if (round <= ceil_log2(a.p)) BarrierBinomial::ops(a, id, round, out);
}

// An algorithm's ops less the signals `dropped` names (sender and receiver agree on them).
bool (*g_dropped)(int64_t from, int64_t to, int round) = nullptr;
template <class Unit>
void with_drops(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  StepOps all;
  Unit::ops(a, id, round, all);
  for (int n = 0; n < all.nsend; ++n)
    if (!g_dropped(id, all.send[n].to, round)) out.add_send(all.send[n].to, kData, 0, 1);
  for (int n = 0; n < all.nrecv; ++n)
    if (!g_dropped(all.recv[n].from, id, round)) out.add_recv(all.recv[n].from, kData, 0, 1, all.recv[n].act[0].mode);
}
bool drop_1_to_2_in_round_1(int64_t from, int64_t to, int round) { return round == 1 && from == 1 && to == 2; }
uint64_t g_drop_seed = 0;
bool drop_one_in_eight(int64_t from, int64_t to, int round) {
  return (splitmix64(g_drop_seed * 0x9E3779B97F4A7C15ULL ^ uint64_t(from) << 40 ^ uint64_t(to) << 8 ^ uint64_t(round)) & 7) == 0;
}

// A correct barrier the algorithm does not run: dissemination the other way round.
void mirrored(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  const int64_t d = int64_t{1} << (round - 1);
  out.add_send(pos_mod(id - d, a.p), kData, 0, 1);
  out.add_recv(pos_mod(id + d, a.p), kData, 0, 1, RecvMode::recv_op_slot);
}
// k ports with the receives of a round farthest first: the first token to arrive does not touch
// what is known, the merge gives up (poison) and the run fails although the barrier is correct.
void farthest_first(const AlgoParams& a, int64_t id, int round, StepOps& out) {
  int64_t d = 1;
  for (int r = 1; r < round; ++r) d *= a.kports + 1;
  for (int64_t j = 1; j <= a.kports && j * d < a.p; ++j) out.add_send(pos_mod(id + j * d, a.p), kData, 0, 1);
  for (int64_t j = a.kports; j >= 1; --j)
    if (j * d < a.p) out.add_recv(pos_mod(id - j * d, a.p), kData, 0, 1, RecvMode::recv_op_slot);
}

TEST(BarrierVerification, WrongBarriersFail) {
  g_dropped = drop_1_to_2_in_round_1;
  for (int64_t p : {2, 3, 5, 8, 13, 100}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const RunConfig dis = make_config("barrier_dissemination", TopologyKind::full, p);
    for (OpsFn wrong : {without_last_round, without_first_round}) {
      EXPECT_FALSE(is_a_barrier(dis, wrong));
      EXPECT_GT(mismatches_with(dis, wrong), 0);
    }
    // Only processor 0 has heard from everyone: every other one would leave too early.
    const RunConfig bin = make_config("barrier_binomial", TopologyKind::full, p);
    EXPECT_FALSE(is_a_barrier(bin, without_release));
    EXPECT_EQ(mismatches_with(bin, without_release), p - 1);
    if (p >= 4) {  // 1 -> 2 dropped in round 1: processor 2 never hears from 1 before it leaves
      EXPECT_FALSE(is_a_barrier(dis, with_drops<BarrierDissemination>));
      EXPECT_GT(mismatches_with(dis, with_drops<BarrierDissemination>), 0);
    }
    EXPECT_TRUE(is_a_barrier(dis, mirrored));
    EXPECT_EQ(mismatches_with(dis, mirrored), 0);  // a correct schedule of another shape passes
  }
}

// Soundness over many schedules: both barriers with signals dropped at random (one in eight), on
// k = 1..3 ports; mismatches_with checks every processor whose token is full against the causal
// knowledge, and every schedule that is no barrier must fail.
TEST(BarrierVerification, RandomlyBrokenSchedulesNeverVerify) {
  g_dropped = drop_one_in_eight;
  int broken = 0, intact = 0;
  for (int64_t p = 2; p <= 21; ++p)
    for (int k = 1; k <= 3; ++k)
      for (uint64_t seed = 0; seed < 6; ++seed) {
        g_drop_seed = seed * 131 + uint64_t(p) * 7 + uint64_t(k);
        RunConfig dis = make_config("barrier_dissemination", TopologyKind::full, p);
        dis.ports = PortSpec{PortModel::kport, k};
        dis.params.kports = k;
        const RunConfig bin = make_config("barrier_binomial", TopologyKind::full, p);
        for (const auto& [c, ops] :
             {std::pair<RunConfig, OpsFn>{dis, with_drops<BarrierDissemination>}, {bin, with_drops<BarrierBinomial>}}) {
          SCOPED_TRACE(std::string(c.algorithm->name) + " p=" + std::to_string(p) + " k=" + std::to_string(k) + " seed " +
                       std::to_string(seed));
          const int64_t bad = mismatches_with(c, ops);
          if (is_a_barrier(c, ops)) ++intact;
          else {
            ++broken;
            EXPECT_GT(bad, 0);
          }
        }
      }
  EXPECT_GT(broken, 200);  // the drops do break most schedules...
  EXPECT_GT(intact, 10);   // ...but not all
}

TEST(BarrierVerification, ATokenThatCannotMergeIsAFalseAlarmNeverAPass) {
  RunConfig c = make_config("barrier_dissemination", TopologyKind::full, 64);
  c.ports = PortSpec{PortModel::kport, 3};
  c.params.kports = 3;
  EXPECT_TRUE(is_a_barrier(c, farthest_first));
  EXPECT_GT(mismatches_with(c, farthest_first), 0);
}

// ---- order-keeping reductions ----

TEST(OrderedFormula, ReduceOrderedIsCeilLog2PMessagesAtAnyRoot) {
  for (int64_t p : kPs)
    for (int64_t root : {int64_t(0), p - 1, p / 2})
      for (int64_t m : {1, 7, 64})
        for (OperatorKind k : {OperatorKind::interval, OperatorKind::affine, OperatorKind::sum})
          for (Costs cost : kCosts) {
            SCOPED_TRACE("p=" + std::to_string(p) + " root=" + std::to_string(root) + " m=" + std::to_string(m) + " " + operator_name(k));
            RunConfig c = with_costs(make_config("reduce_ordered", TopologyKind::full, p, "", m, k, root), cost);
            const RunResult r = m == 7 ? run_both(c) : run_cpu(c);
            EXPECT_TRUE(r.verified);
            EXPECT_EQ(r.steps, ceil_log(p, 2));
            EXPECT_DOUBLE_EQ(r.time, ceil_log(p, 2) * (cost.ts + cost.tw * double(m) + cost.gamma * double(m)));
            EXPECT_DOUBLE_EQ(formula_time(c), r.time);
            EXPECT_EQ(r.messages, p - 1);  // a tree: every processor but the root sends once
          }
}

TEST(OrderedFormula, ReduceScatterPairwiseIsPMinus1Steps) {
  for (int64_t p : kPs)
    for (int64_t m : {1, 7})
      for (OperatorKind k : {OperatorKind::interval, OperatorKind::affine, OperatorKind::max})
        for (Costs cost : kCosts) {
          SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " " + operator_name(k));
          RunConfig c = with_costs(make_config("reduce_scatter_pairwise", TopologyKind::full, p, "", m, k), cost);
          const RunResult r = m == 7 ? run_both(c) : run_cpu(c);
          EXPECT_TRUE(r.verified);
          EXPECT_EQ(r.steps, p - 1);
          EXPECT_DOUBLE_EQ(r.time, double(p - 1) * (cost.ts + cost.tw * double(m) + cost.gamma * double(m)));
          EXPECT_DOUBLE_EQ(formula_time(c), r.time);
          EXPECT_EQ(r.words, p * (p - 1) * m);
        }
}

// The default keeps the textbook algorithms where they apply and turns to the order-keeping ones
// where a non-commutative operator needs them.
TEST(OrderedDefaults, NonCommutativeOperatorsAwayFromRootZero) {
  const Topology full = make_topology(TopologyKind::full, 13, "");
  auto default_name = [&](Operation op, OperatorKind k, int64_t root) {
    const AlgorithmInfo* a = default_algorithm(op, full, params_for(full, 1, root), k);
    return a ? std::string(a->name) : std::string("none");
  };
  EXPECT_EQ(default_name(Operation::reduce, OperatorKind::affine, 2), "reduce_ordered");
  EXPECT_EQ(default_name(Operation::reduce, OperatorKind::interval, 12), "reduce_ordered");
  EXPECT_EQ(default_name(Operation::reduce, OperatorKind::affine, 0), "reduce_binomial");
  EXPECT_EQ(default_name(Operation::reduce, OperatorKind::sum, 2), "reduce_binomial");
  EXPECT_EQ(default_name(Operation::reduce_scatter, OperatorKind::interval, 0), "reduce_scatter_pairwise");
  EXPECT_EQ(default_name(Operation::reduce_scatter, OperatorKind::sum, 0), "reduce_scatter_ring");
  EXPECT_EQ(default_name(Operation::barrier, OperatorKind::sum, 0), "barrier_dissemination");
  // reduce_binomial itself still refuses what it cannot do.
  EXPECT_NE(algorithm_rejects(*find_algorithm("reduce_binomial"), full, params_for(full, 1, 2), OperatorKind::affine), "");
}

// ---- the audit ----

// The configuration an algorithm needs beyond the operation's defaults: ports, m split in p parts.
RunConfig audit_config(const AlgorithmInfo& a, const Topology& t, OperatorKind k, int64_t root) {
  RunConfig c;
  c.topology = t;
  c.algorithm = &a;
  c.params = params_for(t, a.needs_m_divisible_by_p() ? 2 * t.p : 2, root);
  c.combine = k;
  c.input = InputSpec{true, 2024};
  c.threads = 1;
  if (a.sends_per_step > 1) c.ports = PortSpec{PortModel::kport, a.sends_per_step};
  if (a.needs_all_port()) c.ports = PortSpec{PortModel::all, kMaxOps};
  return c;
}

// Every operation, every operator, roots 0, p - 1 and the middle, p in {1, 2, 3, 5, 8, 13}, on a
// fully connected machine: the default algorithm (what `ppsim run` picks with no --algo) accepts
// and verifies on both backends, and every other algorithm that accepts verifies too. The one
// excuse is the registry's own: an operation whose every algorithm declares p = 2^d.
TEST(Audit, EveryOperationTakesEveryOperatorAtEveryRoot) {
  int checked = 0;
  for (int o = 0; o < kOperationCount; ++o) {
    const Operation op = Operation(o);
    bool pow2_only = true, any = false;
    for (const auto& a : algorithms())
      if (a.op == op) {
        any = true;
        pow2_only = pow2_only && a.needs_pow2();
      }
    ASSERT_TRUE(any) << operation_name(op) << " has no algorithm";
    for (int64_t p : {1, 2, 3, 5, 8, 13}) {
      if (pow2_only && !is_pow2(p)) continue;
      const Topology full = make_topology(TopologyKind::full, p, "");
      for (int kk = 0; kk < kOperatorCount; ++kk)
        for (int64_t root : {int64_t(0), p - 1, p / 2}) {
          const OperatorKind k = OperatorKind(kk);
          SCOPED_TRACE(std::string(operation_name(op)) + " p=" + std::to_string(p) + " " + operator_name(k) + " root " +
                       std::to_string(root));
          const AlgorithmInfo* chosen = default_algorithm(op, full, params_for(full, 2, root), k);
          if (!chosen) {
            ADD_FAILURE() << "no algorithm accepts this";
            continue;
          }
          RunConfig c = audit_config(*chosen, full, k, root);
          c.params.m = 2;  // what `ppsim run` gives it: single-port, m as asked
          c.ports = PortSpec{};
          EXPECT_EQ(algorithm_rejects(*chosen, full, c.params, k), "") << chosen->name;
          const RunResult r = run_both(c);
          EXPECT_TRUE(r.verified) << chosen->name;
          for (const auto& a : algorithms()) {
            if (a.op != op || &a == chosen) continue;
            const RunConfig other = audit_config(a, full, k, root);
            if (!algorithm_rejects(a, full, other.params, k).empty()) continue;
            EXPECT_TRUE(run_cpu(other).verified) << a.name;
          }
          ++checked;
        }
    }
  }
  EXPECT_GT(checked, kOperationCount * kOperatorCount * 3 * 3);
}

// ---- the command line ----

// `ppsim ARGS` (stderr folded into stdout): its exit code and output.
std::pair<int, std::string> ppsim_cli(const std::string& args) {
  const std::string cmd = std::string("'") + PPSIM_EXE + "' " + args + " --backend cpu 2>&1 </dev/null";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, ""};
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.append(chunk, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Cli, BarrierAndOrderedReduceRun) {
  // The case that asked for reduce_ordered: refused (exit 2) while reduce_binomial was the only choice.
  auto [code, out] = ppsim_cli("run --topology full --p 13 --op reduce --combine affine --root 2");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("reduce_ordered"), std::string::npos) << out;
  EXPECT_NE(out.find("verified: yes"), std::string::npos) << out;
  std::tie(code, out) = ppsim_cli("run --topology full --p 13 --op MPI_Barrier --ports 3 --ts 2");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("barrier_dissemination (barrier)"), std::string::npos) << out;
  EXPECT_NE(out.find("steps 2, time 4"), std::string::npos) << out;  // ceil(log_4 13) = 2 rounds of t_s = 2
  EXPECT_NE(out.find("words 0"), std::string::npos) << out;
  std::tie(code, out) = ppsim_cli("run --topology ring --p 6 --op barrier --algo barrier_binomial --combine interval");
  EXPECT_EQ(code, 0) << out;
}

}  // namespace
