// Operators: the interval and affine rules of docs/DESIGN.md §6.
#include <gtest/gtest.h>

#include "ppsim/operators.h"
#include "ppsim/report.h"

using namespace ppsim;

TEST(Operators, IntervalCombinesOnlyAdjacentRangesInOrder) {
  uint64_t a = interval_make(0, 2), b = interval_make(3, 5), c = interval_make(4, 6);
  EXPECT_EQ(combine<OperatorKind::interval>(a, b), interval_make(0, 5));
  EXPECT_EQ(combine<OperatorKind::interval>(b, a), kIntervalError);  // out of order
  EXPECT_EQ(combine<OperatorKind::interval>(b, c), kIntervalError);  // overlapping
  EXPECT_EQ(combine<OperatorKind::interval>(a, c), kIntervalError);  // gap
  EXPECT_EQ(combine<OperatorKind::interval>(kIntervalError, b), kIntervalError);
  EXPECT_EQ(combine<OperatorKind::interval>(kIntervalUnset, b), kIntervalError);
  EXPECT_EQ(combine<OperatorKind::interval>(kIntervalIdentity, b), b);
  EXPECT_EQ(word_text(OperatorKind::interval, interval_make(3, 3)), "3");
  EXPECT_EQ(word_text(OperatorKind::interval, interval_make(0, 9)), "0:9");
}

TEST(Operators, AffineIsCompositionAssociativeNotCommutative) {
  auto f = [](uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; };
  auto apply = [](uint64_t g, uint32_t x) { return uint32_t(g >> 32) * x + uint32_t(g); };
  uint64_t g1 = f(3, 5), g2 = f(7, 11), g3 = f(13, 2);
  for (uint32_t x : {0u, 1u, 12345u, 0xFFFFFFFFu})  // (g1 ⊕ g2)(x) = g2(g1(x))
    EXPECT_EQ(apply(combine<OperatorKind::affine>(g1, g2), x), apply(g2, apply(g1, x)));
  EXPECT_EQ(combine<OperatorKind::affine>(combine<OperatorKind::affine>(g1, g2), g3),
            combine<OperatorKind::affine>(g1, combine<OperatorKind::affine>(g2, g3)));
  EXPECT_NE(combine<OperatorKind::affine>(g1, g2), combine<OperatorKind::affine>(g2, g1));
  EXPECT_EQ(combine<OperatorKind::affine>(operator_identity(OperatorKind::affine), g1), g1);
}

TEST(Operators, IdentitiesAreNeutral) {
  for (int k = 0; k < kOperatorCount; ++k) {
    auto op = OperatorKind(k);
    uint64_t x = input_word(op, InputSpec{true, 7}, 3, 1, 4);
    EXPECT_EQ(combine_dyn(op, operator_identity(op), x), x) << k;
    EXPECT_EQ(combine_dyn(op, x, operator_identity(op)), x) << k;
  }
}

TEST(Operators, InputsDependOnProcessorWordAndSeed) {
  EXPECT_EQ(input_word(OperatorKind::sum, {}, 2, 1, 4), 2u * 4 + 1 + 1);
  EXPECT_NE(input_word(OperatorKind::sum, {true, 1}, 2, 1, 4), input_word(OperatorKind::sum, {true, 2}, 2, 1, 4));
  EXPECT_EQ(input_word(OperatorKind::interval, {true, 1}, 9, 5, 8), interval_make(9, 9));
}
