#include "http/dashboard_views.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace vernier::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// accuracy (MAXIMIZE) first, then latency (MINIMIZE) when `two` objectives;
// parameters x (DOUBLE) and color (CATEGORICAL).
v1::StudySpec Spec(bool two = false) {
  v1::StudySpec spec;
  v1::MetricSpec& accuracy = *spec.add_metrics();
  accuracy.set_metric_id("accuracy");
  accuracy.set_goal(v1::MetricSpec::MAXIMIZE);
  if (two) {
    v1::MetricSpec& latency = *spec.add_metrics();
    latency.set_metric_id("latency");
    latency.set_goal(v1::MetricSpec::MINIMIZE);
  }
  v1::ParameterSpec& x = *spec.add_parameters();
  x.set_parameter_name("x");
  x.set_type(v1::ParameterSpec::DOUBLE);
  v1::ParameterSpec& color = *spec.add_parameters();
  color.set_parameter_name("color");
  color.set_type(v1::ParameterSpec::CATEGORICAL);
  return spec;
}

v1::Trial Trial(int64_t id, v1::Trial::State state, std::optional<double> accuracy,
                std::optional<double> x = std::nullopt, const std::string& color = "",
                std::optional<double> latency = std::nullopt) {
  v1::Trial trial;
  trial.set_id(id);
  trial.set_state(state);
  v1::Measurement& measurement = state == v1::Trial::ACTIVE ? *trial.mutable_latest_measurement()
                                                            : *trial.mutable_final_measurement();
  for (const auto& [name, value] :
       {std::pair{"accuracy", accuracy}, std::pair{"latency", latency}}) {
    if (!value.has_value()) continue;
    v1::Metric& metric = *measurement.add_metrics();
    metric.set_metric_id(name);
    metric.set_value(*value);
  }
  if (accuracy.has_value()) trial.set_measurement_count(1);
  if (x.has_value()) {
    v1::ParameterValue& value = *trial.add_parameters();
    value.set_parameter_name("x");
    value.set_double_value(*x);
  }
  if (!color.empty()) {
    v1::ParameterValue& value = *trial.add_parameters();
    value.set_parameter_name("color");
    value.set_string_value(color);
  }
  return trial;
}

std::vector<int64_t> Ids(const v1::DashboardTrialPage& page) {
  std::vector<int64_t> ids;
  for (const v1::DashboardTrial& trial : page.trials()) ids.push_back(trial.id());
  return ids;
}

class LeaderboardTest : public ::testing::Test {
 protected:
  LeaderboardTest() : spec_(Spec()), table_(spec_) {
    table_.Apply(Trial(1, v1::Trial::SUCCEEDED, 0.5, 0.1, "red"));
    table_.Apply(Trial(2, v1::Trial::FAILED, std::nullopt, 0.9, "blue"));
    table_.Apply(Trial(3, v1::Trial::SUCCEEDED, 0.9, 0.5, "green"));
    table_.Apply(Trial(4, v1::Trial::ACTIVE, 0.7, std::nullopt, "blue"));
    table_.Apply(Trial(5, v1::Trial::SUCCEEDED, 0.5, 0.3, "red"));
  }

  absl::StatusOr<v1::DashboardTrialPage> Page(const v1::DashboardTrialsRequest& request) {
    return LeaderboardPage(table_, spec_, request);
  }

  v1::StudySpec spec_;
  StudyTable table_;
};

TEST_F(LeaderboardTest, ByDefaultTheFirstMetricBestFirstTiesByIdMissingLast) {
  const absl::StatusOr<v1::DashboardTrialPage> page = Page({});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Ids(*page), ElementsAre(3, 4, 1, 5, 2));
  EXPECT_EQ(page->total_size(), 5);
  EXPECT_THAT(page->metric_ids(), ElementsAre("accuracy"));
  EXPECT_THAT(page->parameter_names(), ElementsAre("x", "color"));
}

TEST_F(LeaderboardTest, AMinimizedMetricSortsAscending) {
  spec_.mutable_metrics(0)->set_goal(v1::MetricSpec::MINIMIZE);
  const absl::StatusOr<v1::DashboardTrialPage> page = Page({});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Ids(*page), ElementsAre(1, 5, 4, 3, 2));
}

TEST_F(LeaderboardTest, SortsByAnyColumnEitherWayMissingValuesStayLast) {
  v1::DashboardTrialsRequest request;
  request.set_order_by("x");
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(1, 5, 3, 2, 4));
  request.set_descending(true);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(2, 3, 5, 1, 4));
  request.set_order_by("color");
  request.set_descending(false);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(2, 4, 3, 1, 5));
  request.set_order_by("state");
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(4, 2, 1, 3, 5));
  request.set_order_by("id");
  request.set_descending(true);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(5, 4, 3, 2, 1));
  request.set_order_by("measurements");
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(1, 3, 4, 5, 2));
}

TEST_F(LeaderboardTest, FiltersByStateAndByAParameterRange) {
  v1::DashboardTrialsRequest request;
  request.set_state(v1::Trial::SUCCEEDED);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(3, 1, 5));
  request.set_state(v1::Trial::STATE_UNSPECIFIED);
  request.set_range_parameter("x");
  request.set_min(0.2);
  // Trial 4 has no x: out of any range.
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(3, 5, 2));
  request.set_max(0.5);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(3, 5));
  EXPECT_EQ(Page(request)->total_size(), 2);
}

TEST_F(LeaderboardTest, PagesPastTheLastPageAnswerTheLast) {
  v1::DashboardTrialsRequest request;
  request.set_page_size(2);
  request.set_page(1);
  EXPECT_THAT(Ids(*Page(request)), ElementsAre(1, 5));
  request.set_page(7);
  const absl::StatusOr<v1::DashboardTrialPage> last = Page(request);
  EXPECT_THAT(Ids(*last), ElementsAre(2));
  EXPECT_EQ(last->page(), 2);
  EXPECT_EQ(last->total_size(), 5);
}

TEST_F(LeaderboardTest, RefusesUnknownColumnsAndBadPagesNamingThem) {
  v1::DashboardTrialsRequest request;
  request.set_order_by("nope");
  EXPECT_THAT(Page(request).status().message(), HasSubstr("orderBy \"nope\" is no column"));
  EXPECT_EQ(Page(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.Clear();
  request.set_range_parameter("y");
  EXPECT_THAT(Page(request).status().message(), HasSubstr("rangeParameter \"y\""));
  request.Clear();
  request.set_page_size(1001);
  EXPECT_THAT(Page(request).status().message(), HasSubstr("pageSize must be 1 to 1000"));
  request.set_page_size(-1);
  EXPECT_EQ(Page(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.Clear();
  request.set_page(-1);
  EXPECT_THAT(Page(request).status().message(), HasSubstr("page must not be negative"));
}

TEST(ParetoFrontTest, IsListOptimalTrialsFrontOfTheEndedTrials) {
  const v1::StudySpec spec = Spec(/*two=*/true);
  StudyTable table(spec);
  table.Apply(Trial(1, v1::Trial::SUCCEEDED, 0.9, 0.1, "", 5));
  table.Apply(Trial(2, v1::Trial::SUCCEEDED, 0.5, 0.1, "", 1));
  table.Apply(Trial(3, v1::Trial::SUCCEEDED, 0.4, 0.1, "", 6));  // Dominated.
  table.Apply(Trial(4, v1::Trial::ACTIVE, 0.99, 0.1, "", 0));    // Not ended.
  EXPECT_THAT(ParetoFrontIds(table, spec), ElementsAre(1, 2));
  EXPECT_THAT(ParetoFrontIds(table, Spec()), IsEmpty());
}

StudyTable Many(const v1::StudySpec& spec, int count) {
  StudyTable table(spec);
  for (int id = 1; id <= count; ++id) {
    // Accuracy peaks at trial 700.
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, 1.0 - std::abs(id - 700) / 1000.0, id / 1000.0));
  }
  return table;
}

TEST(SampleRowsTest, KeepsEveryRowUnderTheLimit) {
  const v1::StudySpec spec = Spec();
  const StudyTable table = Many(spec, 5);
  EXPECT_THAT(SampleRows(table, spec, {}, 10), ElementsAre(0, 1, 2, 3, 4));
}

TEST(SampleRowsTest, IsBoundedKeepsTheGivenIdsAndTheBestAndSpreadsTheRest) {
  const v1::StudySpec spec = Spec();
  const StudyTable table = Many(spec, 1000);
  const std::vector<size_t> sample = SampleRows(table, spec, {13, 999}, 50);
  ASSERT_LE(sample.size(), 50u);
  EXPECT_GE(sample.size(), 45u);
  EXPECT_TRUE(std::is_sorted(sample.begin(), sample.end()));
  const auto has_id = [&](int64_t id) {
    return std::any_of(sample.begin(), sample.end(),
                       [&](size_t i) { return table.rows()[i].id() == id; });
  };
  EXPECT_TRUE(has_id(13));
  EXPECT_TRUE(has_id(999));
  // The best five (a tenth of 50): trials 698 to 702.
  for (int64_t id = 698; id <= 702; ++id) EXPECT_TRUE(has_id(id)) << id;
  EXPECT_TRUE(has_id(1));
  EXPECT_TRUE(has_id(1000));
}

TEST(SummaryTest, HoldsTheBestSoFarCountsAndRecentTrialsBounded) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  table.Apply(Trial(1, v1::Trial::SUCCEEDED, 0.3));
  table.Apply(Trial(2, v1::Trial::SUCCEEDED, 0.2));
  table.Apply(Trial(3, v1::Trial::FAILED, std::nullopt));
  table.Apply(Trial(4, v1::Trial::SUCCEEDED, 0.6));
  table.Apply(Trial(5, v1::Trial::SUCCEEDED, 0.6));
  table.Apply(Trial(6, v1::Trial::ACTIVE, 0.9));
  ImportanceReading importance;
  importance.shares = {0.25, 0.75};
  importance.trials = 4;
  const v1::StudyDashboard summary = Summary(table, spec, {}, importance, 3);
  EXPECT_EQ(summary.trial_count(), 6);
  EXPECT_EQ(summary.state_counts().at("SUCCEEDED"), 4);
  EXPECT_EQ(summary.state_counts().at("FAILED"), 1);
  EXPECT_EQ(summary.state_counts().at("ACTIVE"), 1);
  ASSERT_EQ(summary.best_so_far_size(), 2);
  EXPECT_EQ(summary.best_so_far(0).trial_id(), 1);
  EXPECT_EQ(summary.best_so_far(1).trial_id(), 4);
  EXPECT_EQ(summary.best_so_far(1).value(), 0.6);
  EXPECT_EQ(summary.last_trial_id(), 5);
  EXPECT_EQ(summary.sample_size(), 3);
  EXPECT_THAT(summary.importance(), ElementsAre(0.25, 0.75));
  EXPECT_EQ(summary.importance_trial_count(), 4);
  EXPECT_EQ(summary.importance_min_trials(), kMinImportanceTrials);
  ASSERT_EQ(summary.recent_size(), 3);
  EXPECT_EQ(summary.recent(0).id(), 4);
  EXPECT_EQ(summary.recent(2).id(), 6);
}

TEST(SummaryTest, DownsamplesALongBestSoFarKeepingBothEnds) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  for (int id = 1; id <= 100; ++id) table.Apply(Trial(id, v1::Trial::SUCCEEDED, id));
  const v1::StudyDashboard summary = Summary(table, spec, {}, ImportanceReading(), 10);
  ASSERT_EQ(summary.best_so_far_size(), 10);
  EXPECT_EQ(summary.best_so_far(0).trial_id(), 1);
  EXPECT_EQ(summary.best_so_far(9).trial_id(), 100);
  EXPECT_LE(summary.sample_size(), 10);
}

TEST(ParameterImportanceTest, TheParameterThatDrivesTheObjectiveGetsItsVariance) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  // accuracy = x; color takes three values in turn, unrelated to x.
  const char* colors[] = {"red", "green", "blue"};
  for (int id = 1; id <= 300; ++id) {
    const double x = ((id * 37) % 100) / 100.0;
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, x, x, colors[id % 3]));
  }
  table.Apply(Trial(301, v1::Trial::FAILED, std::nullopt, 0.5, "red"));
  const ImportanceReading reading = ParameterImportance(table);
  const std::vector<double>& importance = reading.shares;
  ASSERT_EQ(importance.size(), 2u);
  EXPECT_GT(importance[0], 0.95);
  EXPECT_LT(std::abs(importance[1]), 0.05);
  EXPECT_EQ(reading.trials, 300);
  EXPECT_EQ(reading.stopped_left_out, 0);
}

// Issue 36: the shares were clamped at 0 and scaled to sum to 1, so a
// parameter with a small real effect and one with none read 1.00 and 0.00.
TEST(ParameterImportanceTest, SharesAreNeitherClampedNorScaled) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  // accuracy = 0.3 x plus noise far larger than x's effect; color is
  // unrelated. Neither explains most of the variance.
  const char* colors[] = {"red", "green", "blue"};
  for (int id = 1; id <= 200; ++id) {
    const double x = ((id * 37) % 100) / 100.0;
    const double noise = ((id * 7919) % 101) / 100.0;
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, 0.3 * x + noise, x, colors[(id * 13) % 3]));
  }
  const std::vector<double> importance = ParameterImportance(table).shares;
  ASSERT_EQ(importance.size(), 2u);
  EXPECT_GT(importance[0], 0.0);
  EXPECT_LT(importance[0], 0.5);
  EXPECT_LT(importance[0] + importance[1], 0.6);
  // Chance alone: near 0, either side of it, and not clamped.
  EXPECT_LT(std::abs(importance[1]), 0.05);
}

TEST(ParameterImportanceTest, ANoiseParameterMayReadBelowZero) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  // Colors alternate; the objective alternates against a 4-cycle: between
  // the colors' means there is less variance than chance gives.
  const char* colors[] = {"red", "green"};
  const double accuracy[] = {0.0, 1.0, 1.0, 0.0};
  for (int id = 0; id < 40; ++id) {
    table.Apply(Trial(id + 1, v1::Trial::SUCCEEDED, accuracy[id % 4], 0.5, colors[id % 2]));
  }
  EXPECT_LT(ParameterImportance(table).shares[1], 0.0);
}

TEST(ParameterImportanceTest, StoppedEarlyTrialsAreCountedAndLeftOut) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  for (int id = 1; id <= 20; ++id) {
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, id / 20.0, id / 20.0, "red"));
  }
  // Stopped early with a low value, at random x: would blur x's effect.
  for (int id = 21; id <= 25; ++id) {
    table.Apply(Trial(id, v1::Trial::STOPPED_EARLY, 0.0, (id % 5) / 5.0, "red"));
  }
  const ImportanceReading reading = ParameterImportance(table);
  EXPECT_EQ(reading.trials, 20);
  EXPECT_EQ(reading.stopped_left_out, 5);
  EXPECT_GT(reading.shares[0], 0.9);
}

TEST(ParameterImportanceTest, ALogScaledParameterIsBinnedInItsLogarithm) {
  v1::StudySpec spec = Spec();
  spec.mutable_parameters(0)->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  StudyTable table(spec);
  // x from 1e-4 to 1 evenly in its logarithm; accuracy = log10(x): in
  // linear bins nearly every trial falls in the first bin.
  for (int id = 1; id <= 100; ++id) {
    const double exponent = -4.0 + 4.0 * (id - 1) / 99.0;
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, exponent, std::pow(10.0, exponent), "red"));
  }
  EXPECT_GT(ParameterImportance(table).shares[0], 0.9);
}

TEST(ParameterImportanceTest, ACategoricalParameterThatDrivesTheObjectiveGetsItsVariance) {
  const v1::StudySpec spec = Spec();
  StudyTable table(spec);
  // accuracy by color alone; x spread evenly, unrelated to it.
  const char* colors[] = {"red", "green", "blue"};
  const double accuracy[] = {0.1, 0.5, 0.9};
  for (int id = 1; id <= 300; ++id) {
    const double x = ((id * 37) % 100) / 100.0;
    table.Apply(Trial(id, v1::Trial::SUCCEEDED, accuracy[(id / 7) % 3], x, colors[(id / 7) % 3]));
  }
  const std::vector<double> importance = ParameterImportance(table).shares;
  ASSERT_EQ(importance.size(), 2u);
  EXPECT_LT(importance[0], 0.05);
  EXPECT_GT(importance[1], 0.95);
}

TEST(ParameterImportanceTest, AllZeroWithTooFewTrialsOrNoVariance) {
  const v1::StudySpec spec = Spec();
  StudyTable few(spec);
  few.Apply(Trial(1, v1::Trial::SUCCEEDED, 0.1, 0.1, "red"));
  few.Apply(Trial(2, v1::Trial::SUCCEEDED, 0.9, 0.9, "blue"));
  EXPECT_THAT(ParameterImportance(few).shares, ElementsAre(0, 0));
  EXPECT_EQ(ParameterImportance(few).trials, 2);
  StudyTable flat(spec);
  for (int id = 1; id <= 20; ++id)
    flat.Apply(Trial(id, v1::Trial::SUCCEEDED, 0.5, id / 20.0, "red"));
  EXPECT_THAT(ParameterImportance(flat).shares, ElementsAre(0, 0));
}

v1::TrialRun TrialRunOf(int64_t trial, int attempt,
                        std::vector<std::pair<std::string, std::vector<int>>> replicas) {
  v1::TrialRun run;
  run.set_trial_id(trial);
  run.set_attempt(attempt);
  for (const auto& [host, gpus] : replicas) {
    v1::ReplicaStatus& replica = *run.add_replicas();
    replica.set_host(host);
    for (const int gpu : gpus) replica.add_gpus(gpu);
  }
  return run;
}

TEST(AddRecentGpusTest, EachRecentTrialGetsTheGpusOfItsLatestAttempt) {
  v1::StudyDashboard summary;
  for (const int64_t id : {1, 2, 3, 4}) summary.add_recent()->set_id(id);
  google::protobuf::RepeatedPtrField<v1::TrialRun> runs;
  *runs.Add() = TrialRunOf(1, 0, {{"node1", {0}}, {"node1", {}}});      // a CPU worker
  *runs.Add() = TrialRunOf(2, 1, {{"node1", {1}}});                     // the retry
  *runs.Add() = TrialRunOf(2, 0, {{"node1", {3}}});                     // its first attempt
  *runs.Add() = TrialRunOf(3, 0, {{"node1", {0, 1}}, {"node2", {0}}});  // two hosts
  AddRecentGpus(runs, summary);                                         // 4: not launched
  EXPECT_THAT(summary.recent(0).gpus(), ElementsAre("0"));
  EXPECT_THAT(summary.recent(1).gpus(), ElementsAre("1"));
  EXPECT_THAT(summary.recent(2).gpus(), ElementsAre("node1:0", "node1:1", "node2:0"));
  EXPECT_THAT(summary.recent(3).gpus(), IsEmpty());
}

TEST(CurveTrialIdsTest, TheBestThenTheMostRecentWithMeasurements) {
  const v1::StudySpec spec = Spec();
  StudyTable table = Many(spec, 1000);
  table.Apply(Trial(1001, v1::Trial::ACTIVE, std::nullopt));  // No measurement yet.
  const std::vector<int64_t> ids = CurveTrialIds(table, spec, 10);
  EXPECT_THAT(ids, ElementsAre(699, 700, 993, 994, 995, 996, 997, 998, 999, 1000));
  EXPECT_THAT(CurveTrialIds(Many(spec, 3), spec, 10), ElementsAre(1, 2, 3));
}

}  // namespace
}  // namespace vernier::http
