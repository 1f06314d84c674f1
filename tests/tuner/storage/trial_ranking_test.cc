#include "tuner/storage/trial_ranking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"

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

v1::StudySpec WithAtMost(v1::StudySpec spec, const std::string& name, double bound) {
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id(name);
  metric.mutable_constraint()->set_max_value(bound);
  return spec;
}

TEST(TrialRankingTest, TrialsThatMissAConstraintRankBelowEveryFeasibleOne) {
  const v1::StudySpec spec = WithAtMost(Spec({{"acc", v1::MetricSpec::MAXIMIZE}}), "latency", 50);
  const std::vector<v1::Trial> trials = {
      Ended(1, {{"acc", 0.99}, {"latency", 80}}),  // best accuracy, violates by 30
      Ended(2, {{"acc", 0.7}, {"latency", 50}}),   // feasible (the bound is inclusive)
      Ended(3, {{"acc", 0.8}, {"latency", 20}}),   // feasible
      Ended(4, {{"acc", 0.95}, {"latency", 60}}),  // violates by 10
      Ended(5, {{"acc", 0.9}}),                    // no latency: violates by infinity
      Ended(6, {{"latency", 1}})};                 // no objective: unranked
  EXPECT_EQ(Ids(RankTrials(trials, spec, 0)), (std::vector<int64_t>{3, 2, 4, 1, 5}));
  EXPECT_EQ(ConstraintViolation(trials[1].final_measurement(), spec), 0.0);
  EXPECT_DOUBLE_EQ(ConstraintViolation(trials[3].final_measurement(), spec), 10.0 / 50);
  EXPECT_EQ(ObjectiveCount(spec), 1);
}

TEST(TrialRankingTest, TheParetoFrontHoldsFeasibleTrialsOnly) {
  const v1::StudySpec spec =
      WithAtMost(Spec({{"acc", v1::MetricSpec::MAXIMIZE}, {"latency", v1::MetricSpec::MINIMIZE}}),
                 "memory", 8);
  const std::vector<v1::Trial> trials = {
      Ended(1, {{"acc", 0.9}, {"latency", 30}, {"memory", 4}}),    // front
      Ended(2, {{"acc", 0.8}, {"latency", 10}, {"memory", 8}}),    // front
      Ended(3, {{"acc", 0.99}, {"latency", 5}, {"memory", 9}}),    // dominates all, infeasible
      Ended(4, {{"acc", 0.85}, {"latency", 35}, {"memory", 1}})};  // dominated by 1
  EXPECT_EQ(Ids(RankTrials(trials, spec, 0)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ObjectiveCount(spec), 2);
}

TEST(TrialRankingTest, WithoutAFeasibleTrialTheViolationIsOneMoreObjective) {
  const v1::StudySpec spec =
      WithAtMost(Spec({{"acc", v1::MetricSpec::MAXIMIZE}, {"latency", v1::MetricSpec::MINIMIZE}}),
                 "memory", 8);
  const std::vector<v1::Trial> trials = {
      Ended(1, {{"acc", 0.9}, {"latency", 30}, {"memory", 12}}),    // violates by 0.5
      Ended(2, {{"acc", 0.8}, {"latency", 10}, {"memory", 10}}),    // by 0.25: front
      Ended(3, {{"acc", 0.7}, {"latency", 20}, {"memory", 10}}),    // dominated by 2
      Ended(4, {{"acc", 0.95}, {"latency", 40}, {"memory", 16}})};  // by 1: front
  // 1 is not dominated either: better than 2 on accuracy.
  EXPECT_EQ(Ids(RankTrials(trials, spec, 0)), (std::vector<int64_t>{2, 1, 4}));
}

// The front as its definition says, pair by pair: what the sorted
// search must find, ties and duplicates included.
std::vector<int64_t> FrontByDefinition(const std::vector<v1::Trial>& trials,
                                       const std::vector<v1::MetricSpec::Goal>& goals) {
  std::vector<int64_t> front;
  const auto value = [](const v1::Trial& trial, size_t i) {
    return trial.final_measurement().metrics(static_cast<int>(i)).value();
  };
  for (const v1::Trial& candidate : trials) {
    bool dominated = false;
    for (const v1::Trial& other : trials) {
      bool no_worse = true, better = false;
      for (size_t i = 0; i < goals.size(); ++i) {
        const double a = value(other, i), b = value(candidate, i);
        if (IsBetter(b, a, goals[i])) no_worse = false;
        if (IsBetter(a, b, goals[i])) better = true;
      }
      dominated = dominated || (no_worse && better);
    }
    if (!dominated) front.push_back(candidate.id());
  }
  std::sort(front.begin(), front.end());
  return front;
}

TEST(TrialRankingTest, TheParetoFrontOfManyTrialsIsTheOneOfItsDefinition) {
  std::mt19937_64 random(7);
  for (const int objectives : {2, 3}) {
    for (const int levels : {5, 1000}) {  // few levels: many ties and duplicates
      std::vector<v1::MetricSpec::Goal> goals;
      std::vector<std::pair<std::string, v1::MetricSpec::Goal>> metrics;
      for (int i = 0; i < objectives; ++i) {
        goals.push_back(i % 2 == 0 ? v1::MetricSpec::MAXIMIZE : v1::MetricSpec::MINIMIZE);
        metrics.emplace_back(absl::StrCat("m", i), goals.back());
      }
      std::uniform_int_distribution<int> level(0, levels - 1);
      std::vector<v1::Trial> trials;
      for (int id = 1; id <= 400; ++id) {
        std::vector<std::pair<std::string, double>> values;
        for (int i = 0; i < objectives; ++i)
          values.emplace_back(absl::StrCat("m", i), level(random));
        trials.push_back(Ended(id, values));
      }
      std::vector<int64_t> ranked = Ids(RankTrials(trials, Spec(metrics), 0));
      std::sort(ranked.begin(), ranked.end());
      EXPECT_EQ(ranked, FrontByDefinition(trials, goals))
          << objectives << " objectives, " << levels << " levels";
    }
  }
}

TEST(TrialRankingTest, ATrialWithANanObjectiveIsNotRanked) {
  const v1::StudySpec spec =
      Spec({{"acc", v1::MetricSpec::MAXIMIZE}, {"latency", v1::MetricSpec::MINIMIZE}});
  const std::vector<v1::Trial> trials = {
      Ended(1, {{"acc", 0.9}, {"latency", 30}}),
      Ended(2, {{"acc", std::numeric_limits<double>::quiet_NaN()}, {"latency", 10}}),
      Ended(3, {{"acc", 0.8}, {"latency", 20}})};
  EXPECT_EQ(Ids(RankTrials(trials, spec, 0)), (std::vector<int64_t>{1, 3}));
}

TEST(TrialRankingTest, FinalMetricsFollowTheSpec) {
  const v1::StudySpec spec = WithAtMost(Spec({{"acc", v1::MetricSpec::MAXIMIZE}}), "latency", 5);
  const std::vector<std::optional<double>> metrics =
      FinalMetrics(Ended(1, {{"latency", 3}, {"acc", 0.5}}), spec);
  EXPECT_EQ(metrics, (std::vector<std::optional<double>>{0.5, 3.0}));
  EXPECT_EQ(FinalMetrics(Ended(1, {{"acc", 0.5}}), spec),
            (std::vector<std::optional<double>>{0.5, std::nullopt}));
  EXPECT_TRUE(FinalMetrics(Ended(1, {{"acc", 0.5}}, v1::Trial::ACTIVE), spec).empty());
}

TEST(TrialRankingTest, FinalObjectiveNeedsAnEndedTrialWithTheMetric) {
  const v1::StudySpec spec = Spec({{"acc", v1::MetricSpec::MAXIMIZE}});
  EXPECT_EQ(FinalObjective(Ended(1, {{"acc", 0.5}}), spec), 0.5);
  EXPECT_FALSE(FinalObjective(Ended(1, {{"acc", 0.5}}, v1::Trial::ACTIVE), spec).has_value());
  EXPECT_FALSE(FinalObjective(Ended(1, {{"loss", 0.5}}), spec).has_value());
}

}  // namespace
}  // namespace vernier::tuner
