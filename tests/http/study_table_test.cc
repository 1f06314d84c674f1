#include "http/study_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace vernier::http {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::StudySpec Spec() {
  v1::StudySpec spec;
  v1::MetricSpec& accuracy = *spec.add_metrics();
  accuracy.set_metric_id("accuracy");
  accuracy.set_goal(v1::MetricSpec::MAXIMIZE);
  spec.add_metrics()->set_metric_id("latency");
  v1::ParameterSpec& optimizer = *spec.add_parameters();
  optimizer.set_parameter_name("optimizer");
  optimizer.set_type(v1::ParameterSpec::CATEGORICAL);
  v1::ConditionalParameterSpec& child = *optimizer.add_conditional_parameter_specs();
  child.mutable_parameter_spec()->set_parameter_name("momentum");
  child.mutable_parameter_spec()->set_type(v1::ParameterSpec::DOUBLE);
  v1::ParameterSpec& layers = *spec.add_parameters();
  layers.set_parameter_name("layers");
  layers.set_type(v1::ParameterSpec::INTEGER);
  return spec;
}

v1::Trial Trial(int64_t id, v1::Trial::State state) {
  v1::Trial trial;
  trial.set_id(id);
  trial.set_state(state);
  v1::ParameterValue& optimizer = *trial.add_parameters();
  optimizer.set_parameter_name("optimizer");
  optimizer.set_string_value("sgd");
  v1::ParameterValue& layers = *trial.add_parameters();
  layers.set_parameter_name("layers");
  layers.set_int_value(3);
  return trial;
}

TEST(StudyTableTest, ColumnsAreTheMetricsAndTheParametersChildrenAfterTheirParent) {
  const StudyTable table(Spec());
  EXPECT_THAT(table.metric_ids(), ElementsAre("accuracy", "latency"));
  EXPECT_THAT(table.parameter_names(), ElementsAre("optimizer", "momentum", "layers"));
}

TEST(StudyTableTest, ARowHoldsTheFinalMetricsElseTheLatestAndNaNWhereThereIsNone) {
  StudyTable table(Spec());
  v1::Trial running = Trial(2, v1::Trial::ACTIVE);
  v1::Metric& latest = *running.mutable_latest_measurement()->add_metrics();
  latest.set_metric_id("accuracy");
  latest.set_value(0.5);
  running.set_measurement_count(3);
  running.mutable_start_time()->set_seconds(100);
  v1::Trial done = Trial(1, v1::Trial::SUCCEEDED);
  v1::Metric& final = *done.mutable_final_measurement()->add_metrics();
  final.set_metric_id("latency");
  final.set_value(7);
  ASSERT_TRUE(table.Apply(running));
  ASSERT_TRUE(table.Apply(done));

  ASSERT_EQ(table.rows().size(), 2u);
  const v1::DashboardTrial& first = table.rows()[0];
  EXPECT_EQ(first.id(), 1);
  EXPECT_TRUE(first.final());
  EXPECT_TRUE(std::isnan(first.metrics(0)));
  EXPECT_EQ(first.metrics(1), 7);
  const v1::DashboardTrial& second = table.rows()[1];
  EXPECT_FALSE(second.final());
  EXPECT_EQ(second.metrics(0), 0.5);
  EXPECT_EQ(second.measurement_count(), 3);
  EXPECT_EQ(second.start_seconds(), 100);
  // The categorical value as a label, NaN in its place; the absent child NaN.
  EXPECT_TRUE(std::isnan(second.parameters(0)));
  EXPECT_EQ(second.labels().at(0), "sgd");
  EXPECT_TRUE(std::isnan(second.parameters(1)));
  EXPECT_EQ(second.parameters(2), 3);
}

TEST(StudyTableTest, OnlyANewOrChangedTrialCountsAsAChange) {
  StudyTable table(Spec());
  v1::Trial trial = Trial(1, v1::Trial::ACTIVE);
  EXPECT_TRUE(table.Apply(trial));
  EXPECT_EQ(table.sequence(), 1);
  // The same again (NaN metrics included): no change.
  EXPECT_FALSE(table.Apply(trial));
  EXPECT_EQ(table.sequence(), 1);
  trial.set_measurement_count(1);
  EXPECT_TRUE(table.Apply(trial));
  EXPECT_EQ(table.sequence(), 2);
}

TEST(StudyTableTest, ChangedSinceListsTheRowsChangedAfterASequenceNumber) {
  StudyTable table(Spec());
  table.Apply(Trial(1, v1::Trial::ACTIVE));
  table.Apply(Trial(2, v1::Trial::ACTIVE));
  const int64_t seen = table.sequence();
  EXPECT_THAT(table.ChangedSince(seen), IsEmpty());
  table.Apply(Trial(1, v1::Trial::SUCCEEDED));
  table.Apply(Trial(3, v1::Trial::REQUESTED));
  std::vector<int64_t> ids;
  for (const v1::DashboardTrial* row : table.ChangedSince(seen)) ids.push_back(row->id());
  EXPECT_THAT(ids, ElementsAre(1, 3));
  EXPECT_EQ(table.ChangedSince(0).size(), 3u);
}

TEST(StudyTableTest, KeepsRowsByIdAndTheTrialsNotEnded) {
  StudyTable table(Spec());
  table.Apply(Trial(5, v1::Trial::ACTIVE));
  table.Apply(Trial(2, v1::Trial::REQUESTED));
  table.Apply(Trial(9, v1::Trial::STOPPING));
  table.Apply(Trial(7, v1::Trial::FAILED));
  std::vector<int64_t> ids;
  for (const v1::DashboardTrial& row : table.rows()) ids.push_back(row.id());
  EXPECT_THAT(ids, ElementsAre(2, 5, 7, 9));
  EXPECT_THAT(table.pending_ids(), ElementsAre(2, 5, 9));
  table.Apply(Trial(5, v1::Trial::SUCCEEDED));
  EXPECT_THAT(table.pending_ids(), ElementsAre(2, 9));
}

}  // namespace
}  // namespace vernier::http
