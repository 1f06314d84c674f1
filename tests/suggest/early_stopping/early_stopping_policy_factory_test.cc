#include "suggest/early_stopping/early_stopping_policy_factory.h"

#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "suggest/early_stopping/asha_policy.h"
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
  EXPECT_NE(dynamic_cast<MedianStoppingPolicy*>(policy->get()), nullptr);
  EXPECT_EQ(kDefaultEarlyStoppingPolicy, v1::EarlyStoppingSpec::MEDIAN_STOPPING);
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
  for (const char* factor : {"1", "0.5", "-3", "inf", "nan"}) {
    absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy = MakeEarlyStoppingPolicy(
        Spec(std::string("enabled: true policy: ASHA reduction_factor: ") + factor));
    ASSERT_FALSE(policy.ok()) << factor;
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(policy.status().message(), HasSubstr("reduction factor must be a number greater "
                                                     "than 1"));
  }
}

TEST(EarlyStoppingPolicyFactoryTest, UnknownPolicyIsRejected) {
  absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> policy =
      MakeEarlyStoppingPolicy(Spec("enabled: true policy: 9"));
  ASSERT_FALSE(policy.ok());
  EXPECT_THAT(policy.status().message(), HasSubstr("unknown early stopping policy 9"));
}

TEST(EarlyStoppingPolicyFactoryTest, EffectiveSettingsFillTheDefaults) {
  const v1::EarlyStoppingSpec median = EffectiveEarlyStopping(Settings("enabled: true"));
  EXPECT_EQ(median.policy(), v1::EarlyStoppingSpec::MEDIAN_STOPPING);
  EXPECT_EQ(median.min_trials(), kDefaultMedianMinTrials);
  EXPECT_EQ(median.reduction_factor(), 0);

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
            "MEDIAN_STOPPING (default), from step 0, after 3 completed trials");
  EXPECT_EQ(DescribeEarlyStopping(
                Settings("enabled: true policy: MEDIAN_STOPPING start_step: 5 min_trials: 4")),
            "MEDIAN_STOPPING, from step 5, after 4 completed trials");
  EXPECT_EQ(DescribeEarlyStopping(Settings("enabled: true policy: ASHA max_step: 100")),
            "ASHA, reduction factor 2, rungs from step 1 for trials of 100 steps, from step 0, "
            "after 1 trials per rung");
}

}  // namespace
}  // namespace vernier::suggest
