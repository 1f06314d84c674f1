#include "suggest/early_stopping/learning_curve.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using namespace vernier::suggest::testing;  // NOLINT: curve builders.

TEST(LearningCurveTest, LastStepIgnoresTheOrderOfPoints) {
  EXPECT_EQ(LastStep(At(1, {{5, 0.1}, {9, 0.2}, {7, 0.3}})), 9);
  EXPECT_FALSE(LastStep(At(1, {})).has_value());
}

TEST(LearningCurveTest, BestValueUpToAStepFollowsTheGoal) {
  const LearningCurve curve = At(1, {{1, 0.5}, {2, 0.2}, {3, 0.9}, {4, 0.1}});
  EXPECT_EQ(BestValueUpTo(curve, 2, v1::MetricSpec::MAXIMIZE), 0.5);
  EXPECT_EQ(BestValueUpTo(curve, 4, v1::MetricSpec::MAXIMIZE), 0.9);
  EXPECT_EQ(BestValueUpTo(curve, 2, v1::MetricSpec::MINIMIZE), 0.2);
  EXPECT_EQ(BestValueUpTo(curve, 4, v1::MetricSpec::MINIMIZE), 0.1);
  EXPECT_FALSE(BestValueUpTo(curve, 0, v1::MetricSpec::MAXIMIZE).has_value());
}

TEST(LearningCurveTest, RunningAverageCountsRepeatedStepsAndOnlyStepsUpToTheLimit) {
  const LearningCurve curve = At(1, {{3, 6.0}, {1, 1.0}, {1, 2.0}, {8, 100.0}});
  EXPECT_DOUBLE_EQ(*RunningAverageUpTo(curve, 1), 1.5);
  EXPECT_DOUBLE_EQ(*RunningAverageUpTo(curve, 7), 3.0);
  EXPECT_DOUBLE_EQ(*RunningAverageUpTo(curve, 8), 27.25);
  EXPECT_FALSE(RunningAverageUpTo(curve, 0).has_value());
}

TEST(LearningCurveTest, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({7}), 7);
}

TEST(LearningCurveTest, ValuesByStepSortsAndAveragesRepeatedSteps) {
  const StepValues by_step = ValuesByStep(At(1, {{3, 1}, {2, 3}, {1, 5}, {2, 1}}));
  EXPECT_EQ(by_step.steps, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(by_step.values, (std::vector<double>{5, 2, 1}));
  EXPECT_TRUE(ValuesByStep(At(1, {})).steps.empty());
}

TEST(LearningCurveTest, RoughnessIsTheTravelBeyondTheNetChangePerStep) {
  // One way, however it bends: no roughness.
  EXPECT_DOUBLE_EQ(Roughness(Running(1, {1.0, 0.4, 0.35, 0.34, 0.1}), 5), 0);
  // 1, 3, 1, 3: travelled 6, net 2, over 3 differences.
  EXPECT_DOUBLE_EQ(Roughness(Running(1, {1, 3, 1, 3}), 4), 4.0 / 3);
  // Only the steps up to the limit: 1, 3, 1 travelled 4, net 0.
  EXPECT_DOUBLE_EQ(Roughness(Running(1, {1, 3, 1, 3}), 3), 2);
  // Fewer than three steps.
  EXPECT_DOUBLE_EQ(Roughness(Running(1, {1, 3}), 2), 0);
  EXPECT_DOUBLE_EQ(Roughness(At(1, {}), 5), 0);
  // In step order whatever the order of the points, and the reports at one
  // step averaged (step 2: 2): 1, 2, 1 travelled 2, net 0.
  EXPECT_DOUBLE_EQ(Roughness(At(1, {{3, 1}, {2, 3}, {1, 1}, {2, 1}}), 3), 1);
}

TEST(LearningCurveTest, IsBetterValueIsStrict) {
  EXPECT_TRUE(IsBetterValue(2, 1, v1::MetricSpec::MAXIMIZE));
  EXPECT_FALSE(IsBetterValue(1, 1, v1::MetricSpec::MAXIMIZE));
  EXPECT_TRUE(IsBetterValue(1, 2, v1::MetricSpec::MINIMIZE));
  EXPECT_FALSE(IsBetterValue(1, 1, v1::MetricSpec::MINIMIZE));
}

}  // namespace
}  // namespace vernier::suggest
