#include "suggest/early_stopping/learning_curve.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
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

TEST(LearningCurveTest, ReachUpToIsTheLastStepAndTheBestValueUpToAStepInOnePass) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> step(0, 30);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int round = 0; round < 200; ++round) {
    // In any order, steps repeated: as reports may come.
    LearningCurve curve = At(1, {});
    const int count = static_cast<int>(step(rng) % 12);
    for (int i = 0; i < count; ++i) curve.points.push_back({step(rng), value(rng)});
    for (v1::MetricSpec::Goal goal :
         {v1::MetricSpec::MINIMIZE, v1::MetricSpec::MAXIMIZE, v1::MetricSpec::GOAL_UNSPECIFIED}) {
      for (int64_t limit : {int64_t{-1}, int64_t{0}, int64_t{7}, int64_t{15}, int64_t{30}}) {
        const CurveReach reach = ReachUpTo(curve, limit, goal);
        EXPECT_EQ(reach.last_step, LastStep(curve));
        EXPECT_EQ(reach.best, BestValueUpTo(curve, limit, goal));
      }
    }
  }
  const CurveReach none = ReachUpTo(At(1, {}), 5, v1::MetricSpec::MINIMIZE);
  EXPECT_FALSE(none.last_step.has_value());
  EXPECT_FALSE(none.best.has_value());
  const CurveReach later = ReachUpTo(At(1, {{4, 0.5}, {6, 0.1}}), 3, v1::MetricSpec::MINIMIZE);
  EXPECT_EQ(later.last_step, 6);
  EXPECT_FALSE(later.best.has_value());
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
  // Already in step order, one report a step: taken as they are.
  const StepValues in_order = ValuesByStep(At(1, {{0, 4}, {2, 3}, {5, 7}}));
  EXPECT_EQ(in_order.steps, (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(in_order.values, (std::vector<double>{4, 3, 7}));
  // In order but a step repeated at the end: averaged.
  const StepValues repeated = ValuesByStep(At(1, {{1, 4}, {2, 3}, {2, 5}}));
  EXPECT_EQ(repeated.steps, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(repeated.values, (std::vector<double>{4, 4}));
}

TEST(LearningCurveTest, RoughnessIsTheTravelBeyondTheNetChangePerStep) {
  // One way, however it bends: no roughness.
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(Running(1, {1.0, 0.4, 0.35, 0.34, 0.1})), 5), 0);
  // 1, 3, 1, 3: travelled 6, net 2, over 3 differences.
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(Running(1, {1, 3, 1, 3})), 4), 4.0 / 3);
  // Only the steps up to the limit: 1, 3, 1 travelled 4, net 0.
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(Running(1, {1, 3, 1, 3})), 3), 2);
  // Fewer than three steps.
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(Running(1, {1, 3})), 2), 0);
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(At(1, {})), 5), 0);
  // In step order whatever the order of the points, and the reports at one
  // step averaged (step 2: 2): 1, 2, 1 travelled 2, net 0.
  EXPECT_DOUBLE_EQ(Roughness(ValuesByStep(At(1, {{3, 1}, {2, 3}, {1, 1}, {2, 1}})), 3), 1);
}

TEST(LearningCurveTest, StepNoiseIsTheMedianStepAsADeviation) {
  const double to_deviation = 1 / (0.6745 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(StepNoise(std::vector<double>{}), 0);
  EXPECT_DOUBLE_EQ(StepNoise(std::vector<double>{1}), 0);
  // Steps 2, 2 and 0.5: the median is 2, whatever the order.
  EXPECT_DOUBLE_EQ(StepNoise(std::vector<double>{1, 3, 1, 1.5}), 2 * to_deviation);
  // A steep start is one step of many.
  EXPECT_NEAR(StepNoise(std::vector<double>{10, 1, 1.1, 1, 1.1}), 0.1 * to_deviation, 1e-12);
}

TEST(LearningCurveTest, ReportNoiseIsTheMedianStepOverTheLastHalf) {
  const double to_deviation = 1 / (0.6745 * std::sqrt(2.0));
  // Fewer than four steps.
  EXPECT_DOUBLE_EQ(ReportNoise(ValuesByStep(Running(1, {1, 3, 1})), 3), 0);
  EXPECT_DOUBLE_EQ(ReportNoise(ValuesByStep(At(1, {})), 5), 0);
  // The last half, at least three values: 3, 1, 3 (differences 2, 2).
  EXPECT_DOUBLE_EQ(ReportNoise(ValuesByStep(Running(1, {1, 3, 1, 3, 1, 3})), 6), 2 * to_deviation);
  // The steep start is not noise: the last four values step by 0.1.
  const StepValues settling = ValuesByStep(Running(1, {10, 5, 1, 1.1, 1, 1.1, 1, 1.1}));
  EXPECT_NEAR(ReportNoise(settling, 8), 0.1 * to_deviation, 1e-12);
  // Only the steps up to the limit: 5, 1, 1.1 (differences 4 and 0.1).
  EXPECT_NEAR(ReportNoise(settling, 4), 2.05 * to_deviation, 1e-12);
  // A rare spike is not the noise: 1, 1.1, 1, 5, 1, 1.1 steps by 0.1 but twice.
  EXPECT_NEAR(
      ReportNoise(ValuesByStep(Running(1, {1, 1.1, 1, 1.1, 1, 1.1, 1, 1.1, 1, 5, 1, 1.1})), 12),
      0.1 * to_deviation, 1e-12);
}

TEST(LearningCurveTest, ChanceOfALuckyReportGrowsWithTheReportsLeft) {
  // One report whose mean is the bar: a coin.
  EXPECT_NEAR(ChanceOfALuckyReport(0.9, 0.1, 0.9, 1, v1::MetricSpec::MINIMIZE), 0.5, 1e-12);
  // The bar one noise better than the last value: 0.158655 a report.
  const double one = 0.5 * std::erfc(1 / std::sqrt(2.0));
  EXPECT_NEAR(ChanceOfALuckyReport(1.0, 0.1, 0.9, 1, v1::MetricSpec::MINIMIZE), one, 1e-12);
  EXPECT_NEAR(ChanceOfALuckyReport(1.0, 0.1, 0.9, 2, v1::MetricSpec::MINIMIZE),
              1 - (1 - one) * (1 - one), 1e-12);
  EXPECT_NEAR(ChanceOfALuckyReport(0.9, 0.1, 1.0, 2, v1::MetricSpec::MAXIMIZE),
              1 - (1 - one) * (1 - one), 1e-12);
  // A bar far behind the last value is beaten at once.
  EXPECT_NEAR(ChanceOfALuckyReport(1.0, 0.1, 2.0, 1, v1::MetricSpec::MINIMIZE), 1, 1e-12);
  // No noise, or no report left: no luck.
  EXPECT_DOUBLE_EQ(ChanceOfALuckyReport(1.0, 0, 0.9, 10, v1::MetricSpec::MINIMIZE), 0);
  EXPECT_DOUBLE_EQ(ChanceOfALuckyReport(1.0, 0.1, 0.9, 0, v1::MetricSpec::MINIMIZE), 0);
}

StepValues StepsOf(std::vector<double> values) {
  StepValues by_step;
  for (size_t i = 0; i < values.size(); ++i) by_step.steps.push_back(static_cast<int64_t>(i) + 1);
  by_step.values = std::move(values);
  return by_step;
}

TEST(LearningCurveTest, ChanceOfALuckySwingCountsTheLastHalfsLargeChanges) {
  // A log loss calm at 0.12 but for one spike to 0.7 in its second half:
  // 2 of its last 5 changes (steps 6 to 10) are at least sqrt(2) x 0.06,
  // the gap to a bar of 0.06, so a report reaches it with a chance of
  // 0.5 x 2 / 5 = 0.2.
  const StepValues spiky = StepsOf({0.2, 0.15, 0.13, 0.12, 0.12, 0.12, 0.7, 0.12, 0.121, 0.12});
  const LuckySwings one = ChanceOfALuckySwing(spiky, 10, 0.06, 1, v1::MetricSpec::MINIMIZE);
  EXPECT_EQ(one.large, 2);
  EXPECT_EQ(one.changes, 5);
  EXPECT_NEAR(one.chance, 0.2, 1e-12);
  EXPECT_NEAR(ChanceOfALuckySwing(spiky, 10, 0.06, 3, v1::MetricSpec::MINIMIZE).chance,
              1 - 0.8 * 0.8 * 0.8, 1e-12);
  // Up to step 6 the spike is not there yet; a gap wider than the swings
  // (a bar of 0.0) is out of their reach.
  EXPECT_EQ(ChanceOfALuckySwing(spiky, 6, 0.06, 10, v1::MetricSpec::MINIMIZE).large, 0);
  EXPECT_DOUBLE_EQ(ChanceOfALuckySwing(spiky, 6, 0.06, 10, v1::MetricSpec::MINIMIZE).chance, 0);
  EXPECT_DOUBLE_EQ(ChanceOfALuckySwing(spiky, 10, -0.3, 10, v1::MetricSpec::MINIMIZE).chance, 0);
  // A spike in the first half only (a steep start) does not count.
  const StepValues steep = StepsOf({0.9, 0.3, 0.13, 0.12, 0.12, 0.12, 0.121, 0.12, 0.12, 0.12});
  EXPECT_DOUBLE_EQ(ChanceOfALuckySwing(steep, 10, 0.06, 10, v1::MetricSpec::MINIMIZE).chance, 0);
  // Maximised: the same swings of an accuracy, judged upwards.
  const StepValues accuracy = StepsOf({0.8, 0.85, 0.87, 0.88, 0.88, 0.88, 0.3, 0.88, 0.879, 0.88});
  EXPECT_NEAR(ChanceOfALuckySwing(accuracy, 10, 0.94, 1, v1::MetricSpec::MAXIMIZE).chance, 0.2,
              1e-12);
  // Too short a curve, no report left, or a last value already past the
  // bar: nothing.
  EXPECT_DOUBLE_EQ(
      ChanceOfALuckySwing(StepsOf({0.2, 0.7, 0.12}), 3, 0.06, 10, v1::MetricSpec::MINIMIZE).chance,
      0);
  EXPECT_DOUBLE_EQ(ChanceOfALuckySwing(spiky, 10, 0.06, 0, v1::MetricSpec::MINIMIZE).chance, 0);
  EXPECT_DOUBLE_EQ(ChanceOfALuckySwing(spiky, 10, 0.13, 10, v1::MetricSpec::MINIMIZE).chance, 0);
}

TEST(LearningCurveTest, LatticeStepFindsTheStepOfCounts) {
  // Error rates on 719 validation images, written with six decimals.
  std::vector<double> rates;
  for (int errors : {40, 12, 13, 13, 15, 19, 11, 30, 29, 14, 12, 200, 17, 16}) {
    rates.push_back(std::round(1e6 * errors / 719.0) / 1e6);
  }
  EXPECT_NEAR(LatticeStep(rates), 1 / 719.0, 1e-4 / 719);
  // Accuracies computed as 1 - errors / n (not exact in binary), in any
  // order, negated (a maximised metric in minimised form): the same step.
  std::vector<double> accuracies;
  for (int errors : {5, 9, 3, 4, 4, 7, 12, 6, 8, 3, 10, 11}) accuracies.push_back(-(1 - errors / 600.0));
  EXPECT_NEAR(LatticeStep(accuracies), 1 / 600.0, 1e-9);
  // An average of two reports at one step between the counts, among many
  // on them: still counts.
  std::vector<double> mostly;
  for (int count = 0; count < 60; ++count) mostly.push_back(count / 200.0);
  mostly.push_back(10.3 / 200.0);
  EXPECT_NEAR(LatticeStep(mostly), 1 / 200.0, 1e-9);
  // 200 curves of 100 counts of 719 (more than kLatticeMaxValues values):
  // every k-th value read, the step found all the same.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> errors(5, 400);
  std::vector<double> many;
  for (int i = 0; i < 20000; ++i) many.push_back(errors(rng) / 719.0);
  EXPECT_NEAR(LatticeStep(many), 1 / 719.0, 1e-12);
}

TEST(LearningCurveTest, LatticeStepIsZeroForContinuousOrTooFewValues) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.3, 0.05);
  std::vector<double> losses;
  for (int i = 0; i < 500; ++i) losses.push_back(normal(rng));
  EXPECT_EQ(LatticeStep(losses), 0);
  // Eight distinct counts make seven gaps: too few to tell.
  EXPECT_EQ(LatticeStep({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.8, 0.8}), 0);
  EXPECT_NEAR(LatticeStep({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.1}), 0.1, 1e-12);
  // Not finite values are left out; equal ones are one value.
  EXPECT_EQ(LatticeStep({}), 0);
  EXPECT_EQ(LatticeStep({NAN, INFINITY, 1, 1, 1}), 0);
  // Two validation sets of different sizes mixed: no common step.
  std::vector<double> mixed;
  for (int count = 1; count <= 20; ++count) {
    mixed.push_back(count / 200.0);
    mixed.push_back(count / 317.0);
  }
  EXPECT_EQ(LatticeStep(mixed), 0);
  // Values written with six decimals lie on the rounding's lattice: the
  // caller compares the step with the noise it cares about.
  for (double& loss : losses) loss = std::round(loss * 1e6) / 1e6;
  EXPECT_NEAR(LatticeStep(losses), 1e-6, 1e-9);
}

TEST(LearningCurveTest, IsBetterValueIsStrict) {
  EXPECT_TRUE(IsBetterValue(2, 1, v1::MetricSpec::MAXIMIZE));
  EXPECT_FALSE(IsBetterValue(1, 1, v1::MetricSpec::MAXIMIZE));
  EXPECT_TRUE(IsBetterValue(1, 2, v1::MetricSpec::MINIMIZE));
  EXPECT_FALSE(IsBetterValue(1, 1, v1::MetricSpec::MINIMIZE));
}

}  // namespace
}  // namespace vernier::suggest
