#include "suggest/early_stopping/median_stopping_policy.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

MedianStoppingPolicy MedianStoppingOf(v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE,
                                      int min_trials = 1, int64_t start_step = 0) {
  return MedianStoppingPolicy(
      MedianStoppingOptions{.goal = goal, .min_trials = min_trials, .start_step = start_step});
}

// Running averages up to step 2: 0.625, 0.875 and 0.125; their median is
// 0.625. (Binary fractions, so that equality is exact.)
const std::vector<LearningCurve> kThreeCompleted = {Completed(1, {0.5, 0.75, 0.75, 0.75}),
                                                    Completed(2, {0.75, 1.0, 1.0, 1.0}),
                                                    Completed(3, {0.125, 0.125, 0.125, 0.125})};

TEST(MedianStoppingPolicyTest, StopsATrialWhoseBestIsWorseThanTheMedianOfRunningAverages) {
  const StoppingDecision decision =
      MedianStoppingOf().Decide(Running(9, {0.25, 0.5}), kThreeCompleted);
  EXPECT_TRUE(decision.should_stop);
  EXPECT_THAT(decision.reason,
              HasSubstr("best value 0.5 by step 2 is worse than 0.625, the median of 3 completed "
                        "trials' running averages up to step 2"));
}

TEST(MedianStoppingPolicyTest, JudgesTheBestValueSoFarNotTheLatest) {
  // Latest 0.25 is below the median 0.625, but the best so far, 0.75, is not.
  const StoppingDecision decision =
      MedianStoppingOf().Decide(Running(9, {0.75, 0.25}), kThreeCompleted);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("is no worse than 0.625"));
}

TEST(MedianStoppingPolicyTest, ATrialEqualToTheMedianContinues) {
  EXPECT_FALSE(MedianStoppingOf().Decide(Running(9, {0.625, 0.5}), kThreeCompleted).should_stop);
}

TEST(MedianStoppingPolicyTest, MinimizeStopsTheTrialWithTheLargerLoss) {
  // Running averages up to step 2: 0.45, 0.35, 0.85; the median is 0.45.
  const std::vector<LearningCurve> losses = {Completed(1, {0.5, 0.4}), Completed(2, {0.4, 0.3}),
                                             Completed(3, {0.9, 0.8})};
  EXPECT_TRUE(MedianStoppingOf(v1::MetricSpec::MINIMIZE)
                  .Decide(Running(9, {0.6, 0.5}), losses)
                  .should_stop);
  EXPECT_FALSE(MedianStoppingOf(v1::MetricSpec::MINIMIZE)
                   .Decide(Running(9, {0.6, 0.44}), losses)
                   .should_stop);
  // The same curves read as accuracies: the larger value is the better one.
  EXPECT_FALSE(MedianStoppingOf(v1::MetricSpec::MAXIMIZE)
                   .Decide(Running(9, {0.6, 0.5}), losses)
                   .should_stop);
  EXPECT_TRUE(MedianStoppingOf(v1::MetricSpec::MAXIMIZE)
                  .Decide(Running(9, {0.3, 0.44}), losses)
                  .should_stop);
}

TEST(MedianStoppingPolicyTest, WaitsForMinTrialsCompletedTrials) {
  const std::vector<LearningCurve> two(kThreeCompleted.begin(), kThreeCompleted.begin() + 2);
  const StoppingDecision waiting =
      MedianStoppingOf(v1::MetricSpec::MAXIMIZE, 3).Decide(Running(9, {0.1, 0.1}), two);
  EXPECT_FALSE(waiting.should_stop);
  EXPECT_EQ(waiting.reason, "");
  EXPECT_TRUE(MedianStoppingOf(v1::MetricSpec::MAXIMIZE, 3)
                  .Decide(Running(9, {0.1, 0.1}), kThreeCompleted)
                  .should_stop);
}

TEST(MedianStoppingPolicyTest, RunningTrialsDoNotMakeTheMedian) {
  std::vector<LearningCurve> others = {Completed(1, {0.2, 0.2}), Running(2, {0.9, 0.9}),
                                       Running(3, {0.9, 0.9})};
  EXPECT_FALSE(MedianStoppingOf().Decide(Running(9, {0.3, 0.3}), others).should_stop);
  EXPECT_FALSE(MedianStoppingOf(v1::MetricSpec::MAXIMIZE, 2)
                   .Decide(Running(9, {0.1, 0.1}), others)
                   .should_stop);
}

TEST(MedianStoppingPolicyTest, NoTrialStopsBeforeStartStep) {
  const LearningCurve trial = Running(9, {0.1, 0.1});
  const StoppingDecision early = MedianStoppingOf(v1::MetricSpec::MAXIMIZE, 1, /*start_step=*/3)
                                     .Decide(trial, kThreeCompleted);
  EXPECT_FALSE(early.should_stop);
  EXPECT_EQ(early.reason, "");
  EXPECT_TRUE(MedianStoppingOf(v1::MetricSpec::MAXIMIZE, 1, /*start_step=*/3)
                  .Decide(Running(9, {0.1, 0.1, 0.1}), kThreeCompleted)
                  .should_stop);
}

TEST(MedianStoppingPolicyTest, ACompletedTrialThatEndedBeforeTheStepIsLeftOut) {
  // Trial 3 stopped at step 1 with 0.1: at step 4 only trials 1 and 2 have
  // running averages, 0.65 and 0.75, so the median is 0.7. (Counted with its
  // whole curve, trial 3 would make it 0.65 and a best of 0.68 would go on.)
  const std::vector<LearningCurve> others = {
      Completed(1, {0.5, 0.6, 0.7, 0.8}), Completed(2, {0.6, 0.7, 0.8, 0.9}), Completed(3, {0.1})};
  const StoppingDecision decision =
      MedianStoppingOf().Decide(Running(9, {0.1, 0.2, 0.3, 0.68}), others);
  EXPECT_TRUE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("the median of 2 completed trials"));
  EXPECT_FALSE(MedianStoppingOf().Decide(Running(9, {0.1, 0.2, 0.3, 0.72}), others).should_stop);
  // At step 1 trial 3 counts: the averages are 0.5, 0.6 and 0.1.
  EXPECT_TRUE(MedianStoppingOf().Decide(Running(9, {0.45}), others).should_stop);
  EXPECT_THAT(MedianStoppingOf().Decide(Running(9, {0.45}), others).reason,
              HasSubstr("worse than 0.5, the median of 3 completed trials"));
}

TEST(MedianStoppingPolicyTest, ACompletedTrialWithNothingUpToTheStepIsLeftOut) {
  // Trial 2 reported only from step 10: at step 2 it has reached the step
  // but has no average up to it, so only trial 1 counts.
  const std::vector<LearningCurve> others = {Completed(1, {0.2, 0.2}),
                                             At(2, {{10, 0.9}, {20, 0.95}}, /*completed=*/true)};
  const StoppingDecision decision = MedianStoppingOf().Decide(Running(9, {0.3, 0.3}), others);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("the median of 1 completed trials"));
}

TEST(MedianStoppingPolicyTest, UnorderedPointsAndItsOwnEntryChangeNothing) {
  std::vector<LearningCurve> others = kThreeCompleted;
  others.push_back(Completed(9, {1.0, 1.0}));  // The trial itself, as a stale entry.
  EXPECT_TRUE(MedianStoppingOf().Decide(At(9, {{2, 0.5}, {1, 0.25}}), others).should_stop);
  EXPECT_FALSE(MedianStoppingOf().Decide(At(9, {}), others).should_stop);
}

}  // namespace
}  // namespace vernier::suggest
