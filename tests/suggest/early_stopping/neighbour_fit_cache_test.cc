#include "suggest/early_stopping/neighbour_fit_cache.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/early_stopping/learning_curve_policy.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using namespace vernier::suggest::testing;  // NOLINT: curve builders.

// Finished curves that fall at different paces, with a little noise.
std::vector<LearningCurve> FinishedCurves(int count, int steps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.005);
  std::vector<LearningCurve> curves;
  for (int i = 0; i < count; ++i) {
    const double pace = 0.3 + 0.1 * i;
    curves.push_back(FromFunction(
        i + 1, [&](int step) { return 0.2 + 0.5 * std::pow(step, -pace) + noise(rng); }, steps,
        /*completed=*/true));
  }
  return curves;
}

// A fit that counts how often it is made.
struct CountingFit {
  int made = 0;
  std::shared_ptr<const NeighbourCurveModel::Fitted> operator()() {
    ++made;
    return std::make_shared<const NeighbourCurveModel::Fitted>();
  }
};

TEST(NeighbourFitCacheTest, AFitIsFoundAgainForTheSameCurvesOnly) {
  NeighbourFitCache cache;
  const std::vector<LearningCurve> curves = FinishedCurves(6, 20, 1);
  CountingFit fit;
  const auto first = cache.Get(v1::MetricSpec::MINIMIZE, Pointers(curves), 20, std::ref(fit));
  // The same curves, copied elsewhere: the same fit.
  const std::vector<LearningCurve> copy = curves;
  EXPECT_EQ(cache.Get(v1::MetricSpec::MINIMIZE, Pointers(copy), 20, std::ref(fit)), first);
  EXPECT_EQ(fit.made, 1);
  EXPECT_EQ(cache.hits(), 1);

  // One report's value, one report more, another trial id, another
  // horizon, another goal, one curve fewer: each its own fit.
  std::vector<LearningCurve> changed = curves;
  changed[3].points[7].value += 1e-12;
  std::vector<LearningCurve> longer = curves;
  longer[0].points.push_back({21, 0.3});
  std::vector<LearningCurve> renamed = curves;
  renamed[5].trial_id = 99;
  std::vector<LearningCurve> fewer(curves.begin(), curves.end() - 1);
  using Case = std::tuple<const std::vector<LearningCurve>*, int64_t, v1::MetricSpec::Goal>;
  for (const auto& [set, horizon, goal] :
       std::vector<Case>{{&changed, 20, v1::MetricSpec::MINIMIZE},
                         {&longer, 20, v1::MetricSpec::MINIMIZE},
                         {&renamed, 20, v1::MetricSpec::MINIMIZE},
                         {&fewer, 20, v1::MetricSpec::MINIMIZE},
                         {&curves, 19, v1::MetricSpec::MINIMIZE},
                         {&curves, 20, v1::MetricSpec::MAXIMIZE}}) {
    const int before = fit.made;
    EXPECT_NE(cache.Get(goal, Pointers(*set), horizon, std::ref(fit)), first);
    EXPECT_EQ(fit.made, before + 1);
  }
  EXPECT_EQ(cache.misses(), 7);
}

TEST(NeighbourFitCacheTest, KeepsTheLatestFitsUpToItsCapacity) {
  NeighbourFitCache cache(2);
  const std::vector<LearningCurve> a = FinishedCurves(3, 10, 1);
  const std::vector<LearningCurve> b = FinishedCurves(3, 10, 2);
  const std::vector<LearningCurve> c = FinishedCurves(3, 10, 3);
  CountingFit fit;
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(b), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));  // a is the latest used
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(c), 10, std::ref(fit));  // b goes
  EXPECT_EQ(fit.made, 3);
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(c), 10, std::ref(fit));
  EXPECT_EQ(fit.made, 3);
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(b), 10, std::ref(fit));
  EXPECT_EQ(fit.made, 4);
}

TEST(NeighbourFitCacheTest, KeepsNoMoreReportsThanItsBudget) {
  // Each set: 3 curves of 10 reports, 30 reports; a budget of 70 keeps two.
  NeighbourFitCache cache(16, 70);
  const std::vector<LearningCurve> a = FinishedCurves(3, 10, 1);
  const std::vector<LearningCurve> b = FinishedCurves(3, 10, 2);
  const std::vector<LearningCurve> c = FinishedCurves(3, 10, 3);
  CountingFit fit;
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(b), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(c), 10, std::ref(fit));  // a goes
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(b), 10, std::ref(fit));
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(c), 10, std::ref(fit));
  EXPECT_EQ(fit.made, 3);
  cache.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  EXPECT_EQ(fit.made, 4);

  // A fit larger than the whole budget serves its decision and is not kept.
  NeighbourFitCache small(16, 20);
  const auto first = small.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  EXPECT_NE(first, nullptr);
  small.Get(v1::MetricSpec::MINIMIZE, Pointers(a), 10, std::ref(fit));
  EXPECT_EQ(fit.made, 6);
  EXPECT_EQ(small.hits(), 0);
}

// The point of the cache: the policy decides exactly as without it, report
// after report, while trials finish and the fit changes.
TEST(NeighbourFitCacheTest, ThePolicyDecidesTheSameWithTheCacheAsWithout) {
  constexpr int kSteps = 30;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> pace(0.2, 1.5);
  std::uniform_real_distribution<double> floor(0.05, 0.4);
  std::normal_distribution<double> noise(0, 0.01);
  struct Trial {
    std::vector<double> values;
    int reported = 0;
  };
  std::vector<Trial> trials(40);
  for (Trial& trial : trials) {
    const double p = pace(rng);
    const double f = floor(rng);
    for (int step = 1; step <= kSteps; ++step) {
      trial.values.push_back(f + 0.6 * std::pow(step, -p) + noise(rng));
    }
  }
  NeighbourFitCache cache;
  const LearningCurvePolicy plain({.goal = v1::MetricSpec::MINIMIZE, .min_trials = 3});
  const LearningCurvePolicy cached({.goal = v1::MetricSpec::MINIMIZE, .min_trials = 3}, &cache);
  std::vector<LearningCurve> curves;
  int decisions = 0;
  int stops = 0;
  // Four trials at a time; a stopped trial ends where it stopped.
  size_t next = 0;
  std::vector<size_t> running;
  while (next < trials.size() || !running.empty()) {
    while (running.size() < 4 && next < trials.size()) {
      curves.push_back(LearningCurve{.trial_id = static_cast<int64_t>(next + 1), .points = {}});
      running.push_back(next++);
    }
    for (size_t r = 0; r < running.size();) {
      Trial& trial = trials[running[r]];
      LearningCurve& curve = curves[running[r]];
      curve.points.push_back({trial.reported + 1, trial.values[trial.reported]});
      ++trial.reported;
      bool ends = trial.reported == kSteps;
      if (!ends) {
        const StoppingDecision without = plain.Decide(curve, curves);
        const StoppingDecision with = cached.Decide(curve, curves);
        EXPECT_EQ(with.should_stop, without.should_stop);
        EXPECT_EQ(with.reason, without.reason);
        ++decisions;
        stops += without.should_stop ? 1 : 0;
        ends = without.should_stop;
      }
      if (ends) {
        curve.completed = true;
        running.erase(running.begin() + static_cast<long>(r));
      } else {
        ++r;
      }
    }
  }
  EXPECT_GT(decisions, 300);
  EXPECT_GT(stops, 5);
  EXPECT_GT(cache.hits(), cache.misses());
}

}  // namespace
}  // namespace vernier::suggest
