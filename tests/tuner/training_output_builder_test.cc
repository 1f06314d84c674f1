#include "tuner/training_output_builder.h"

#include <gtest/gtest.h>

namespace vernier::tuner {
namespace {

v1::Trial MakeTrial(int64_t id, v1::Trial::State state, std::optional<double> accuracy) {
  v1::Trial trial;
  trial.set_id(id);
  trial.set_state(state);
  v1::ParameterValue& lr = *trial.add_parameters();
  lr.set_parameter_name("lr");
  lr.set_double_value(0.5);
  if (accuracy.has_value()) {
    trial.mutable_final_measurement()->set_step(9);
    v1::Metric& metric = *trial.mutable_final_measurement()->add_metrics();
    metric.set_metric_id("accuracy");
    metric.set_value(*accuracy);
  }
  return trial;
}

TEST(TrainingOutputBuilderTest, RankedTrialsFirstThenTheRestAndCounts) {
  v1::StudySpec spec;
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_goal(v1::MetricSpec::MAXIMIZE);
  const std::vector<v1::Trial> trials = {
      MakeTrial(1, v1::Trial::SUCCEEDED, 0.5), MakeTrial(2, v1::Trial::FAILED, std::nullopt),
      MakeTrial(3, v1::Trial::STOPPED_EARLY, 0.7), MakeTrial(4, v1::Trial::ACTIVE, std::nullopt)};
  const v1::TrainingOutput output = BuildTrainingOutput(spec, trials);
  EXPECT_TRUE(output.is_hyperparameter_tuning_job());
  EXPECT_EQ(output.hyperparameter_metric_tag(), "accuracy");
  EXPECT_EQ(output.completed_trial_count(), 3);
  ASSERT_EQ(output.trials_size(), 4);
  EXPECT_EQ(output.trials(0).trial_id(), "3");
  EXPECT_TRUE(output.trials(0).is_trial_stopped_early());
  EXPECT_EQ(output.trials(0).final_metric().objective_value(), 0.7);
  EXPECT_EQ(output.trials(0).final_metric().training_step(), 9);
  EXPECT_EQ(output.trials(1).trial_id(), "1");
  EXPECT_EQ(output.trials(2).trial_id(), "2");
  EXPECT_EQ(output.trials(2).state(), v1::Trial::FAILED);
  EXPECT_EQ(output.trials(0).hyperparameters().at("lr"), "0.5");

  const v1::TrialCounts counts = CountTrialStates(trials);
  EXPECT_EQ(counts.succeeded(), 1);
  EXPECT_EQ(counts.failed(), 1);
  EXPECT_EQ(counts.stopped_early(), 1);
  EXPECT_EQ(counts.active(), 1);
  EXPECT_EQ(output.trial_counts().succeeded(), 1);
  EXPECT_EQ(output.trial_counts().active(), 1);
  EXPECT_EQ(output.resumed_trial_count(), 0);
}

TEST(TrainingOutputBuilderTest, SeveralMetricsListEveryFinalMetricAndTheFeasibleFirst) {
  v1::StudySpec spec;
  v1::MetricSpec& accuracy = *spec.add_metrics();
  accuracy.set_metric_id("accuracy");
  accuracy.set_goal(v1::MetricSpec::MAXIMIZE);
  v1::MetricSpec& latency = *spec.add_metrics();
  latency.set_metric_id("latency");
  latency.mutable_constraint()->set_max_value(10);
  std::vector<v1::Trial> trials = {MakeTrial(1, v1::Trial::SUCCEEDED, 0.9),
                                   MakeTrial(2, v1::Trial::SUCCEEDED, 0.6)};
  for (auto [trial, value] : {std::pair{&trials[0], 20.0}, std::pair{&trials[1], 5.0}}) {
    v1::Metric& metric = *trial->mutable_final_measurement()->add_metrics();
    metric.set_metric_id("latency");
    metric.set_value(value);
  }
  const v1::TrainingOutput output = BuildTrainingOutput(spec, trials);
  ASSERT_EQ(output.trials_size(), 2);
  // Trial 1 is more accurate but misses the constraint.
  EXPECT_EQ(output.trials(0).trial_id(), "2");
  ASSERT_EQ(output.trials(0).final_metrics_size(), 2);
  EXPECT_EQ(output.trials(0).final_metrics(0).metric_id(), "accuracy");
  EXPECT_EQ(output.trials(0).final_metrics(1).metric_id(), "latency");
  EXPECT_EQ(output.trials(0).final_metrics(1).value(), 5.0);
  EXPECT_EQ(output.trials(1).trial_id(), "1");
}

TEST(TrainingOutputBuilderTest, ResumedCopiesAreMarkedAndLeftOutOfTheCompletedCount) {
  v1::StudySpec spec;
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_goal(v1::MetricSpec::MAXIMIZE);
  std::vector<v1::Trial> trials;
  for (int64_t id = 1; id <= 4; ++id) {
    trials.push_back(MakeTrial(id, v1::Trial::SUCCEEDED, 0.1 * static_cast<double>(id)));
    trials.back().set_client_id(ResumedClientId("earlier_job"));
  }
  trials.push_back(MakeTrial(5, v1::Trial::SUCCEEDED, 0.9));
  trials.push_back(MakeTrial(6, v1::Trial::FAILED, std::nullopt));
  const v1::TrainingOutput output = BuildTrainingOutput(spec, trials);
  EXPECT_EQ(output.completed_trial_count(), 2);
  EXPECT_EQ(output.resumed_trial_count(), 4);
  EXPECT_EQ(output.trial_counts().succeeded(), 5);
  EXPECT_EQ(output.trial_counts().failed(), 1);
  ASSERT_EQ(output.trials_size(), 6);
  EXPECT_EQ(output.trials(0).trial_id(), "5");
  EXPECT_FALSE(output.trials(0).resumed());
  EXPECT_TRUE(output.trials(1).resumed());
  EXPECT_EQ(EndedTrials(output.trial_counts()), 6);
}

}  // namespace
}  // namespace vernier::tuner
