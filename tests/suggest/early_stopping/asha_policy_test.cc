#include "suggest/early_stopping/asha_policy.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

AshaPolicy AshaOf(double reduction_factor = 3, int64_t grace_period = 1, int64_t max_step = 0,
                  int min_trials = 1, int64_t start_step = 0,
                  v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE) {
  AshaOptions options;
  options.goal = goal;
  options.reduction_factor = reduction_factor;
  options.grace_period = grace_period;
  options.max_step = max_step;
  options.min_trials = min_trials;
  options.start_step = start_step;
  return AshaPolicy(options);
}

TEST(AshaPolicyTest, RungsStandAtGeometricSteps) {
  EXPECT_THAT(AshaOf(3, 1).RungsUpTo(100), ElementsAre(1, 3, 9, 27, 81));
  // The last rung leaves room to train reduction_factor times longer.
  EXPECT_THAT(AshaOf(2, 2, 16).RungsUpTo(100), ElementsAre(2, 4, 8));
  EXPECT_THAT(AshaOf(2, 2, 15).RungsUpTo(100), ElementsAre(2, 4));
  EXPECT_THAT(AshaOf(3, 1, 100).RungsUpTo(100), ElementsAre(1, 3, 9, 27));
  EXPECT_THAT(AshaOf(2, 5).RungsUpTo(4), ElementsAre());
  EXPECT_THAT(AshaOf(3, 0).RungsUpTo(3), ElementsAre(1, 3));
}

TEST(AshaPolicyTest, RungsStayApartWhenTheFactorIsSmall) {
  // 1, 1.2, 1.44, 1.73, 2.07, 2.49, 2.99, 3.58 rounded would repeat.
  EXPECT_THAT(AshaOf(1.2, 1).RungsUpTo(4), ElementsAre(1, 2, 3, 4));
}

// Six trials at the rung at step 3 (factor 3): the best two continue.
const std::vector<LearningCurve> kFiveAtRungThree = {
    Running(1, {0.1, 0.2, 0.9}), Running(2, {0.1, 0.2, 0.8}), Completed(3, {0.1, 0.2, 0.3, 0.4}),
    Completed(4, {0.1, 0.2, 0.2}), Running(5, {0.0, 0.1, 0.1}),
    // Not at step 3 yet: ignored at that rung.
    Running(6, {0.99, 0.99})};

TEST(AshaPolicyTest, OnlyTheTopFractionAtARungContinues) {
  const AshaPolicy policy = AshaOf(3, 1);
  const StoppingDecision third = policy.Decide(Running(9, {0.5, 0.6, 0.7}), kFiveAtRungThree);
  EXPECT_TRUE(third.should_stop);
  EXPECT_THAT(third.reason, HasSubstr("at the rung at step 3, value 0.7 ranks 3 of the 6 trials "
                                      "that reached it; the best 2 (1/3) continue"));
  const StoppingDecision second = policy.Decide(Running(9, {0.5, 0.6, 0.85}), kFiveAtRungThree);
  EXPECT_FALSE(second.should_stop);
  EXPECT_THAT(second.reason, HasSubstr("ranks 2 of the 6"));
}

TEST(AshaPolicyTest, ATrialTiedWithTheLastOneKeptContinues) {
  const AshaPolicy policy = AshaOf(3, 1);
  EXPECT_FALSE(policy.Decide(Running(9, {0.5, 0.6, 0.8}), kFiveAtRungThree).should_stop);
  std::vector<LearningCurve> all_tied;
  for (int id = 1; id <= 5; ++id) all_tied.push_back(Running(id, {0.5}));
  EXPECT_FALSE(policy.Decide(Running(9, {0.5}), all_tied).should_stop);
}

TEST(AshaPolicyTest, IsJudgedAtTheHighestRungItReached) {
  // At step 5 the rungs are 1 and 3; at rung 1 the trial would be last.
  const AshaPolicy policy = AshaOf(3, 1);
  const StoppingDecision decision =
      policy.Decide(Running(9, {0.0, 0.6, 0.95, 0.1, 0.1}), kFiveAtRungThree);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("rung at step 3, value 0.95 ranks 1"));
}

TEST(AshaPolicyTest, MinimizeKeepsTheSmallestValues) {
  const std::vector<LearningCurve> losses = {Running(1, {0.1}), Running(2, {0.2}),
                                             Running(3, {0.9})};
  const AshaPolicy minimize = AshaOf(2, 1, 0, 1, 0, v1::MetricSpec::MINIMIZE);
  EXPECT_FALSE(minimize.Decide(Running(9, {0.15}), losses).should_stop);
  EXPECT_TRUE(minimize.Decide(Running(9, {0.5}), losses).should_stop);
  const AshaPolicy maximize = AshaOf(2, 1);
  EXPECT_TRUE(maximize.Decide(Running(9, {0.15}), losses).should_stop);
  EXPECT_FALSE(maximize.Decide(Running(9, {0.5}), losses).should_stop);
}

TEST(AshaPolicyTest, ARungStopsNobodyBeforeMinTrialsReachedIt) {
  const std::vector<LearningCurve> one = {Running(1, {0.9})};
  const AshaPolicy policy = AshaOf(3, 1, 0, 3);
  const StoppingDecision waiting = policy.Decide(Running(9, {0.1}), one);
  EXPECT_FALSE(waiting.should_stop);
  EXPECT_EQ(waiting.reason, "");
  const std::vector<LearningCurve> two = {Running(1, {0.9}), Running(2, {0.8})};
  EXPECT_TRUE(policy.Decide(Running(9, {0.1}), two).should_stop);
}

TEST(AshaPolicyTest, TheFirstTrialAtARungContinues) {
  EXPECT_FALSE(AshaOf().Decide(Running(9, {0.0}), {}).should_stop);
}

TEST(AshaPolicyTest, NothingIsDecidedBeforeTheGracePeriodOrStartStep) {
  const std::vector<LearningCurve> better = {Running(1, {0.9, 0.9, 0.9, 0.9})};
  const StoppingDecision grace = AshaOf(3, 4).Decide(Running(9, {0.1, 0.1, 0.1}), better);
  EXPECT_FALSE(grace.should_stop);
  EXPECT_EQ(grace.reason, "");
  EXPECT_FALSE(AshaOf(3, 1, 0, 1, 4).Decide(Running(9, {0.1, 0.1, 0.1}), better).should_stop);
  EXPECT_TRUE(AshaOf(3, 1, 0, 1, 4).Decide(Running(9, {0.1, 0.1, 0.1, 0.1}), better).should_stop);
}

TEST(AshaPolicyTest, NoRungWithinTheLastReductionFactorOfMaxStep) {
  // With max_step 9 the rungs are 1 and 3 (9 * 3 > 9): a trial at step 9 is
  // judged at 3.
  const std::vector<LearningCurve> others = {
      Completed(1, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.99})};
  const AshaPolicy policy = AshaOf(3, 1, 9);
  const StoppingDecision decision =
      policy.Decide(Running(9, {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2}), others);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("rung at step 3"));
}

TEST(AshaPolicyTest, TrialsReportingAtOtherStepsCompareAtTheirFirstReportPastTheRung) {
  // Trial 1 reports every 10 steps: its value at the rung at step 3 is
  // what it had by step 10, 0.5 (not 0.99 from step 20).
  const std::vector<LearningCurve> others = {At(1, {{10, 0.5}, {20, 0.99}})};
  const AshaPolicy policy = AshaOf(2, 3, 11);
  EXPECT_FALSE(policy.Decide(At(9, {{1, 0.1}, {3, 0.6}}), others).should_stop);
  EXPECT_TRUE(policy.Decide(At(9, {{1, 0.1}, {3, 0.4}}), others).should_stop);
}

}  // namespace
}  // namespace vernier::suggest
