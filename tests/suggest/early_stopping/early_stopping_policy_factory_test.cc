#include "suggest/early_stopping/early_stopping_policy_factory.h"

#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "suggest/early_stopping/asha_policy.h"
#include "suggest/early_stopping/hyperband_policy.h"
#include "suggest/early_stopping/learning_curve_policy.h"
#include "suggest/early_stopping/median_stopping_policy.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

v1::StudySpec Spec(const std::string& early_stopping,
                   v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE) {
  v1::StudySpec spec;
  v1::MetricSpec* metric = spec.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_goal(goal);
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(early_stopping, spec.mutable_early_stopping()));
  return spec;
}

v1::EarlyStoppingSpec Settings(const std::string& text) { return Spec(text).early_stopping(); }

TEST(EarlyStoppingPolicyFactoryTest, OffMeansNoPolicy) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy =
      MakeEarlyStoppingPolicy(Spec("policy: ASHA"));
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(*policy, nullptr);
}

TEST(EarlyStoppingPolicyFactoryTest, TheSwitchAloneRunsTheDefaultPolicy) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy =
      MakeEarlyStoppingPolicy(Spec("enabled: true"));
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_NE(dynamic_cast<LearningCurvePolicy*>(policy->get()), nullptr);
  EXPECT_EQ(kDefaultEarlyStoppingPolicy, v1::EarlyStoppingSpec::LEARNING_CURVE);
}

TEST(EarlyStoppingPolicyFactoryTest, AshaJudgesTheFirstMetricInItsDirection) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy = MakeEarlyStoppingPolicy(
      Spec("enabled: true policy: ASHA reduction_factor: 2", v1::MetricSpec::MINIMIZE));
  ASSERT_TRUE(policy.ok()) << policy.status();
  ASSERT_NE(dynamic_cast<AshaPolicy*>(policy->get()), nullptr);
  const std::vector<LearningCurve> others = {Running(1, {0.1})};
  EXPECT_TRUE((*policy)->Decide(Running(2, {0.9}), others).should_stop);
  EXPECT_FALSE((*policy)->Decide(Running(2, {0.05}), others).should_stop);
}

TEST(EarlyStoppingPolicyFactoryTest, MedianStoppingWaitsForItsDefaultMinTrials) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy =
      MakeEarlyStoppingPolicy(Spec("enabled: true policy: MEDIAN_STOPPING"));
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::vector<LearningCurve> others = {Completed(1, {0.9}), Completed(2, {0.9})};
  EXPECT_FALSE((*policy)->Decide(Running(9, {0.1}), others).should_stop);
  others.push_back(Completed(3, {0.9}));
  EXPECT_TRUE((*policy)->Decide(Running(9, {0.1}), others).should_stop);
}

TEST(EarlyStoppingPolicyFactoryTest, ReductionFactorOfOneOrLessIsRejected) {
  for (const char* policy_name : {"ASHA", "HYPERBAND"}) {
    for (const char* factor : {"1", "0.5", "-3", "inf", "nan"}) {
      absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy = MakeEarlyStoppingPolicy(Spec(
          std::string("enabled: true policy: ") + policy_name + " reduction_factor: " + factor));
      ASSERT_FALSE(policy.ok()) << factor;
      EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(policy.status().message(),
                  HasSubstr(std::string(policy_name) +
                            "'s reduction factor must be a number greater than 1"));
    }
  }
}

TEST(EarlyStoppingPolicyFactoryTest, HyperbandAndLearningCurveAreMadeWithTheirSettings) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> hyperband = MakeEarlyStoppingPolicy(
      Spec("enabled: true policy: HYPERBAND reduction_factor: 3 grace_period: 1 max_step: 100"));
  ASSERT_TRUE(hyperband.ok()) << hyperband.status();
  const auto* made = dynamic_cast<HyperbandPolicy*>(hyperband->get());
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->BracketCount(), 5);

  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> curve = MakeEarlyStoppingPolicy(
      Spec("enabled: true policy: LEARNING_CURVE min_trials: 2", v1::MetricSpec::MINIMIZE));
  ASSERT_TRUE(curve.ok()) << curve.status();
  ASSERT_NE(dynamic_cast<LearningCurvePolicy*>(curve->get()), nullptr);
  // Two finished losses ending at 0.1 and 0.2; one stuck at 0.9 stops.
  const std::vector<LearningCurve> others = {Completed(1, {0.5, 0.3, 0.2, 0.1}),
                                             Completed(2, {0.6, 0.4, 0.3, 0.2})};
  EXPECT_TRUE((*curve)->Decide(Running(3, {0.9, 0.9, 0.9}), others).should_stop);
  EXPECT_FALSE((*curve)->Decide(Running(3, {0.5, 0.3, 0.15}), others).should_stop);
}

TEST(EarlyStoppingPolicyFactoryTest, TheLearningCurvesTieMarginReachesThePolicy) {
  // Finished losses whose reports are 0.01 above and below their trend in
  // turn (a report's noise of about 0.02); the best report so far is 0.09. A
  // trial reporting 0.115 at step 8 of 10 ends at best a little better than
  // its last report: beyond a margin of one noise (0.07) only by luck.
  const std::vector<LearningCurve> others = {
      Completed(1, {0.5, 0.41, 0.3, 0.21, 0.15, 0.11, 0.11, 0.09, 0.11, 0.09}),
      Completed(2, {0.6, 0.51, 0.4, 0.31, 0.25, 0.21, 0.21, 0.19, 0.21, 0.19})};
  const LearningCurve trial = Running(3, {0.7, 0.5, 0.3, 0.2, 0.14, 0.12, 0.116, 0.115});
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> plain = MakeEarlyStoppingPolicy(Spec(
      "enabled: true policy: LEARNING_CURVE min_trials: 2 tie_margin: 0", v1::MetricSpec::MINIMIZE));
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> unset = MakeEarlyStoppingPolicy(
      Spec("enabled: true policy: LEARNING_CURVE min_trials: 2", v1::MetricSpec::MINIMIZE));
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> ties = MakeEarlyStoppingPolicy(
      Spec("enabled: true policy: LEARNING_CURVE min_trials: 2 tie_margin: 1",
           v1::MetricSpec::MINIMIZE));
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(ties.ok()) << ties.status();
  ASSERT_TRUE(unset.ok()) << unset.status();
  const StoppingDecision without = (*plain)->Decide(trial, others);
  const StoppingDecision with = (*ties)->Decide(trial, others);
  EXPECT_THAT(without.reason, ::testing::Not(HasSubstr("by more than")));
  EXPECT_THAT(with.reason, HasSubstr("by more than"));
  // Unset, the finished curves decide: their values move in hundredths, a
  // lattice as coarse as half a report's noise, so they are counts and any
  // amount better is better.
  const StoppingDecision chosen = (*unset)->Decide(trial, others);
  EXPECT_THAT(chosen.reason, ::testing::Not(HasSubstr("by more than")));
  EXPECT_THAT(chosen.reason, HasSubstr("by any amount (its values are counts, in steps of 0.01)"));
}

TEST(EarlyStoppingPolicyFactoryTest, UnknownPolicyIsRejected) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy =
      MakeEarlyStoppingPolicy(Spec("enabled: true policy: 9"));
  ASSERT_FALSE(policy.ok());
  EXPECT_THAT(policy.status().message(), HasSubstr("unknown early stopping policy 9"));
}

TEST(EarlyStoppingPolicyFactoryTest, EffectiveSettingsFillTheDefaults) {
  const v1::EarlyStoppingSpec curve = EffectiveEarlyStopping(Settings("enabled: true"));
  EXPECT_EQ(curve.policy(), v1::EarlyStoppingSpec::LEARNING_CURVE);
  EXPECT_EQ(curve.min_trials(), kDefaultLearningCurveMinTrials);
  EXPECT_EQ(curve.reduction_factor(), 0);
  EXPECT_EQ(curve.grace_period(), 0);
  const v1::EarlyStoppingSpec median =
      EffectiveEarlyStopping(Settings("enabled: true policy: MEDIAN_STOPPING"));
  EXPECT_EQ(median.min_trials(), kDefaultMedianMinTrials);
  const v1::EarlyStoppingSpec hyperband =
      EffectiveEarlyStopping(Settings("enabled: true policy: HYPERBAND"));
  EXPECT_EQ(hyperband.min_trials(), kDefaultAshaMinTrials);
  EXPECT_EQ(hyperband.reduction_factor(), kDefaultReductionFactor);
  EXPECT_EQ(hyperband.grace_period(), 1);

  const v1::EarlyStoppingSpec asha =
      EffectiveEarlyStopping(Settings("enabled: true policy: ASHA start_step: 5"));
  EXPECT_EQ(asha.min_trials(), kDefaultAshaMinTrials);
  EXPECT_EQ(asha.reduction_factor(), kDefaultReductionFactor);
  EXPECT_EQ(asha.grace_period(), 5);
  EXPECT_EQ(EffectiveEarlyStopping(Settings("policy: ASHA")).grace_period(), 1);

  const v1::EarlyStoppingSpec chosen = EffectiveEarlyStopping(
      Settings("policy: ASHA min_trials: 4 reduction_factor: 2 grace_period: 10 max_step: 90"));
  EXPECT_EQ(chosen.min_trials(), 4);
  EXPECT_EQ(chosen.reduction_factor(), 2);
  EXPECT_EQ(chosen.grace_period(), 10);
  EXPECT_EQ(chosen.max_step(), 90);
}

TEST(EarlyStoppingPolicyFactoryTest, DescriptionsSayWhatRuns) {
  EXPECT_EQ(DescribeEarlyStopping(Settings("policy: ASHA")), "off");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true")),
            "LEARNING_CURVE (default), predicting the best value by step the longest curve's "
            "last, from step 0, after 5 trials trained to it, ending within 1 report noises of "
            "the best a tie unless the values are counts; counts judged by factors, on a log "
            "scale");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true policy: LEARNING_CURVE max_step: 40")),
            "LEARNING_CURVE, predicting the best value by step 40, from step 0, after 5 trials "
            "trained to it, ending within 1 report noises of the best a tie unless the values "
            "are counts; counts judged by factors, on a log scale");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true tie_margin: 0")),
            "LEARNING_CURVE (default), predicting the best value by step the longest curve's "
            "last, from step 0, after 5 trials trained to it, ending any amount better than the "
            "best a win; counts judged by factors, on a log scale");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true tie_margin: 1")),
            "LEARNING_CURVE (default), predicting the best value by step the longest curve's "
            "last, from step 0, after 5 trials trained to it, ending within 1 report noises of "
            "the best a tie; counts judged by factors, on a log scale");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true policy: HYPERBAND max_step: 100")),
            "HYPERBAND, reduction factor 2, rungs from step 1 for trials of 100 steps, from step "
            "0, after 1 trials per rung");
  EXPECT_EQ(DescribeEarlyStopping(
                Settings("enabled: true policy: MEDIAN_STOPPING start_step: 5 min_trials: 4")),
            "MEDIAN_STOPPING, from step 5, after 4 completed trials");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true policy: ASHA max_step: 100")),
            "ASHA, reduction factor 2, rungs from step 1 for trials of 100 steps, from step 0, "
            "after 1 trials per rung");
}

}  // namespace
}  // namespace vernier::suggest
