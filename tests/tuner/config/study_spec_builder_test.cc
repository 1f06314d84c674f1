#include "tuner/config/study_spec_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "tuner/config/hyperparameter_validator.h"

namespace vernier::config {
namespace {

v1::HyperparameterSpec Hyperparameters(const std::string& text) {
  v1::HyperparameterSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

TEST(StudySpecBuilderTest, CarriesEveryField) {
  const v1::HyperparameterSpec hyperparameters = Hyperparameters(R"pb(
    goal: MINIMIZE
    hyperparameter_metric_tag: "val_loss"
    max_trials: 30
    max_parallel_trials: 3
    max_failed_trials: 4
    enable_trial_early_stopping: true
    resume_previous_job_id: "earlier_job"
    algorithm: GAUSSIAN_PROCESS_BANDIT
    early_stopping { policy: MEDIAN_STOPPING min_trials: 5 start_step: 200 }
    params {
      parameter_name: "lr"
      type: DOUBLE
      min_value: 0.0001
      max_value: 0.1
      scale_type: UNIT_LOG_SCALE
    }
    params {
      parameter_name: "act"
      type: CATEGORICAL
      categorical_values: [ "relu", "tanh" ]
    }
  )pb");
  v1::StudySpec expected;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        parameters {
          parameter_name: "lr"
          type: DOUBLE
          min_value: 0.0001
          max_value: 0.1
          scale_type: UNIT_LOG_SCALE
        }
        parameters {
          parameter_name: "act"
          type: CATEGORICAL
          categorical_values: [ "relu", "tanh" ]
        }
        metrics { metric_id: "val_loss" goal: MINIMIZE }
        algorithm: GAUSSIAN_PROCESS_BANDIT
        early_stopping { enabled: true policy: MEDIAN_STOPPING min_trials: 5 start_step: 200 }
        max_trials: 30
        max_parallel_trials: 3
        max_failed_trials: 4
      )pb",
      &expected));
  const v1::StudySpec spec = StudySpecFromHyperparameters(hyperparameters);
  google::protobuf::util::MessageDifferencer differencer;
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differencer.Compare(expected, spec)) << differences;
  EXPECT_TRUE(ValidateStudySpec(spec).ok()) << ValidateStudySpec(spec);
}

TEST(StudySpecBuilderTest, EarlyStoppingFollowsTheSwitch) {
  v1::HyperparameterSpec hyperparameters = Hyperparameters(
      R"pb(
        hyperparameter_metric_tag: "m" goal: MAXIMIZE max_trials: 4 max_parallel_trials: 1
      )pb");
  EXPECT_FALSE(StudySpecFromHyperparameters(hyperparameters).early_stopping().enabled());
  hyperparameters.set_enable_trial_early_stopping(true);
  const v1::StudySpec spec = StudySpecFromHyperparameters(hyperparameters);
  EXPECT_TRUE(spec.early_stopping().enabled());
  EXPECT_EQ(spec.early_stopping().policy(), v1::EarlyStoppingSpec::POLICY_UNSPECIFIED);
}

// maxFailedTrials 0 means "Vernier decides": half of maxTrials, at least 1.
TEST(StudySpecBuilderTest, ZeroMaxFailedTrialsBecomesHalfTheTrials) {
  v1::HyperparameterSpec hyperparameters =
      Hyperparameters(R"pb(
        hyperparameter_metric_tag: "m" goal: MAXIMIZE max_parallel_trials: 1
      )pb");
  for (const auto& [max_trials, expected_failures] :
       {std::pair{1, 1}, std::pair{2, 1}, std::pair{3, 1}, std::pair{10, 5}, std::pair{41, 20}}) {
    hyperparameters.set_max_trials(max_trials);
    EXPECT_EQ(StudySpecFromHyperparameters(hyperparameters).max_failed_trials(), expected_failures)
        << "maxTrials " << max_trials;
  }
  hyperparameters.set_max_trials(10);
  hyperparameters.set_max_failed_trials(9);
  EXPECT_EQ(StudySpecFromHyperparameters(hyperparameters).max_failed_trials(), 9);
}

}  // namespace
}  // namespace vernier::config
