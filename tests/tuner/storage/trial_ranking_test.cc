#include "tuner/storage/trial_ranking.h"

#include <gtest/gtest.h>

namespace vernier::tuner {
namespace {

v1::Trial Ended(int64_t id, std::vector<std::pair<std::string, double>> metrics,
                v1::Trial::State state = v1::Trial::SUCCEEDED) {
  v1::Trial trial;
  trial.set_id(id);
  trial.set_state(state);
  for (const auto& [name, value] : metrics) {
    v1::Metric& metric = *trial.mutable_final_measurement()->add_metrics();
    metric.set_metric_id(name);
    metric.set_value(value);
  }
  return trial;
}

v1::StudySpec Spec(std::vector<std::pair<std::string, v1::MetricSpec::Goal>> metrics) {
  v1::StudySpec spec;
  for (const auto& [name, goal] : metrics) {
    v1::MetricSpec& metric = *spec.add_metrics();
    metric.set_metric_id(name);
    metric.set_goal(goal);
  }
  return spec;
}

std::vector<int64_t> Ids(const std::vector<v1::Trial>& trials) {
  std::vector<int64_t> ids;
  for (const v1::Trial& trial : trials) ids.push_back(trial.id());
  return ids;
}

TEST(TrialRankingTest, SingleMetricBestFirstTiesByIdAndUnrankableLeftOut) {
  const std::vector<v1::Trial> trials = {Ended(1, {{"acc", 0.5}}),
                                         Ended(2, {{"acc", 0.9}}),
                                         Ended(3, {{"acc", 0.5}}),
                                         Ended(4, {{"loss", 0.1}}),
                                         Ended(5, {{"acc", 0.99}}, v1::Trial::FAILED),
                                         Ended(6, {{"acc", 0.7}}, v1::Trial::STOPPED_EARLY)};
  EXPECT_EQ(Ids(RankTrials(trials, Spec({{"acc", v1::MetricSpec::MAXIMIZE}}), 0)),
            (std::vector<int64_t>{2, 6, 1, 3}));
  EXPECT_EQ(Ids(RankTrials(trials, Spec({{"acc", v1::MetricSpec::MINIMIZE}}), 2)),
            (std::vector<int64_t>{1, 3}));
}

TEST(TrialRankingTest, SeveralMetricsGiveTheParetoFront) {
  const std::vector<v1::Trial> trials = {
      Ended(1, {{"acc", 0.9}, {"latency", 30}}),    // front
      Ended(2, {{"acc", 0.8}, {"latency", 10}}),    // front
      Ended(3, {{"acc", 0.7}, {"latency", 20}}),    // dominated by 2
      Ended(4, {{"acc", 0.9}, {"latency", 40}}),    // dominated by 1
      Ended(5, {{"acc", 0.95}, {"latency", 50}})};  // front
  const v1::StudySpec spec =
      Spec({{"acc", v1::MetricSpec::MAXIMIZE}, {"latency", v1::MetricSpec::MINIMIZE}});
  EXPECT_EQ(Ids(RankTrials(trials, spec, 0)), (std::vector<int64_t>{5, 1, 2}));
}

TEST(TrialRankingTest, FinalObjectiveNeedsAnEndedTrialWithTheMetric) {
  const v1::StudySpec spec = Spec({{"acc", v1::MetricSpec::MAXIMIZE}});
  EXPECT_EQ(FinalObjective(Ended(1, {{"acc", 0.5}}), spec), 0.5);
  EXPECT_FALSE(FinalObjective(Ended(1, {{"acc", 0.5}}, v1::Trial::ACTIVE), spec).has_value());
  EXPECT_FALSE(FinalObjective(Ended(1, {{"loss", 0.5}}), spec).has_value());
}

}  // namespace
}  // namespace vernier::tuner
