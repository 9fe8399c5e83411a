// The shared-memory machine (the group-operations slides; docs/DESIGN.md §5): the slides' EREW broadcast, reduction and
// prefix in ceil(log2 N) steps, and every access rule's violation reported with step, cell and
// processors.
#include <gtest/gtest.h>

#include <string>

#include "ppsim/engine.h"
#include "ppsim/pram.h"

using namespace ppsim;

namespace {

PramConfig pram(const char* algo, PramRule rule, int64_t n, OperatorKind k = OperatorKind::sum, int64_t m = 1) {
  PramConfig c;
  c.rule = rule;
  c.algorithm = find_pram_algorithm(algo);
  c.params = PramParams{n, m};
  c.combine = k;
  return c;
}

std::string violation(const PramConfig& c) {
  try {
    run_pram(c);
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "";
}

// Every processor writes its register to cell 0 in step 1 (a reduce's registers all differ).
PramOps all_write_cell0(const PramParams&, int64_t, int) { return {-1, RegisterUpdate::keep, 0}; }
// Every processor loads cell 0 and writes it back to cell 0: equal values.
PramOps all_copy_cell0(const PramParams&, int64_t, int) { return {0, RegisterUpdate::load, 0}; }
// Processors 2 and 3 both write cell 1.
PramOps two_write_cell1(const PramParams&, int64_t i, int) { return i == 2 || i == 3 ? PramOps{-1, RegisterUpdate::keep, 1} : PramOps{}; }

}  // namespace

TEST(Pram, ErewAlgorithmsTakeCeilLog2NSteps) {
  for (const char* algo : {"pram_broadcast", "pram_reduce", "pram_scan"})
    for (int64_t n : {1, 2, 3, 5, 8, 13, 64, 1000})
      for (OperatorKind k : {OperatorKind::sum, OperatorKind::interval, OperatorKind::affine, OperatorKind::max})
        for (int64_t m : {1, 3}) {
          PramResult r = run_pram(pram(algo, PramRule::erew, n, k, m));
          EXPECT_TRUE(r.verified) << algo << " N=" << n;
          EXPECT_EQ(r.steps, ceil_log2(n)) << algo << " N=" << n;
        }
}

TEST(Pram, BroadcastDoublesTheHoldersEveryStep) {
  PramConfig c = pram("pram_broadcast", PramRule::erew, 8);
  c.trace = true;
  PramResult r = run_pram(c);
  ASSERT_EQ(r.trace.size(), 4u);
  const uint64_t unset = operator_unset(OperatorKind::sum);
  for (size_t j = 0; j < 4; ++j) {
    int64_t holders = 0;
    for (int64_t i = 0; i < 8; ++i) holders += r.trace[j].registers[size_t(i)] != unset;
    EXPECT_EQ(holders, int64_t{1} << j) << "after step " << j;
  }
}

TEST(Pram, ConcurrentAlgorithmsRunUnderTheirRules) {
  EXPECT_TRUE(run_pram(pram("pram_broadcast_concurrent", PramRule::crew, 100)).verified);
  EXPECT_TRUE(run_pram(pram("pram_broadcast_concurrent", PramRule::crcw_priority, 100)).verified);
  EXPECT_TRUE(run_pram(pram("pram_reduce_combining", PramRule::crcw_combining, 100, OperatorKind::interval)).verified);
  EXPECT_THROW(run_pram(pram("pram_reduce_combining", PramRule::crcw_priority, 8)), ConfigError);
}

TEST(Pram, EveryRuleViolationNamesStepCellAndProcessors) {
  EXPECT_EQ(violation(pram("pram_broadcast_concurrent", PramRule::erew, 8)),
            "step 1: processors 1 and 2 both read cell 0, which the EREW rule forbids");
  PramConfig w = pram("pram_reduce", PramRule::erew, 8);
  w.test_ops_override = two_write_cell1;
  EXPECT_EQ(violation(w), "step 1: processors 2 and 3 both write cell 1, which the EREW rule forbids");
  EXPECT_EQ(violation(pram("pram_reduce_combining", PramRule::crew, 8)),
            "step 1: processors 0 and 1 both write cell 0, which the CREW rule forbids");
  EXPECT_EQ(violation(pram("pram_reduce_combining", PramRule::crcw_common, 8)),
            "step 1: processors 0 and 1 write different values to cell 0, which the common CRCW rule forbids");
}

TEST(Pram, ConcurrentWriteRulesDecideTheValue) {
  const int64_t n = 6;
  auto a = [&](int64_t i) { return input_word(OperatorKind::interval, {}, i, 0, 1); };
  auto cell0 = [&](PramRule rule) {
    PramConfig c = pram("pram_reduce", rule, n, OperatorKind::interval);
    c.test_ops_override = all_write_cell0;
    return run_pram(c).cells[0];
  };
  EXPECT_EQ(cell0(PramRule::crcw_priority), a(0));                                // the lowest-numbered writer
  EXPECT_EQ(cell0(PramRule::crcw_arbitrary), a(n - 1));                           // ppsim's arbitrary choice: the last writer
  EXPECT_EQ(cell0(PramRule::crcw_combining), interval_make(0, uint32_t(n - 1)));  // folded in order
  PramConfig same = pram("pram_broadcast", PramRule::crcw_common, n);
  same.test_ops_override = all_copy_cell0;  // equal values are fine under the common rule
  EXPECT_EQ(violation(same), "");
  EXPECT_EQ(run_pram(same).cells[0], input_word(OperatorKind::sum, {}, 0, 0, 1));
}
