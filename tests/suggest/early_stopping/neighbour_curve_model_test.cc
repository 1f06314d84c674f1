#include "suggest/early_stopping/neighbour_curve_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::Each;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::Lt;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

// Minimised losses falling from 1 towards `floor` at rate `rate`.
std::function<double(int)> Decay(double floor, double rate) {
  return [floor, rate](int step) { return floor + (1 - floor) * std::exp(-rate * step); };
}

TEST(FinalValuePredictionTest, ProbabilityIsTheMixturesMassOnTheBetterSide) {
  FinalValuePrediction prediction{.means = {1, 2, 3}, .stddev = 0, .basis = ""};
  EXPECT_NEAR(prediction.ProbabilityBetterThan(2.5, v1::MetricSpec::MINIMIZE), 2.0 / 3, 1e-12);
  EXPECT_NEAR(prediction.ProbabilityBetterThan(2.5, v1::MetricSpec::MAXIMIZE), 1.0 / 3, 1e-12);
  // Ties are not better.
  EXPECT_NEAR(prediction.ProbabilityBetterThan(2, v1::MetricSpec::MINIMIZE), 1.0 / 3, 1e-12);
  prediction = {.means = {0}, .stddev = 1, .basis = ""};
  EXPECT_NEAR(prediction.ProbabilityBetterThan(0, v1::MetricSpec::MINIMIZE), 0.5, 1e-12);
  EXPECT_NEAR(prediction.ProbabilityBetterThan(1.6448536, v1::MetricSpec::MINIMIZE), 0.95, 1e-6);
  EXPECT_NEAR(prediction.ProbabilityBetterThan(1.6448536, v1::MetricSpec::MAXIMIZE), 0.05, 1e-6);
  EXPECT_EQ(FinalValuePrediction{}.ProbabilityBetterThan(0, v1::MetricSpec::MINIMIZE), 0);
}

TEST(FinalValuePredictionTest, OnALogScaleTheSpreadIsAFactorOfTheDistanceToTheBound) {
  // A distance to the bound lognormal around 10 with a spread of a factor
  // of 2: half the distance is one spread better.
  FinalValuePrediction errors{
      .means = {10}, .stddev = std::log(2.0), .log_scale = true, .bound = 0, .basis = ""};
  const double one_spread = 0.5 * std::erfc(1 / std::sqrt(2.0));
  EXPECT_NEAR(errors.ProbabilityBetterThan(5, v1::MetricSpec::MINIMIZE), one_spread, 1e-12);
  EXPECT_NEAR(errors.ProbabilityBetterThan(20, v1::MetricSpec::MINIMIZE), 1 - one_spread, 1e-12);
  // Nothing is better than the bound itself, nor than a target beyond it.
  EXPECT_EQ(errors.ProbabilityBetterThan(0, v1::MetricSpec::MINIMIZE), 0);
  EXPECT_EQ(errors.ProbabilityBetterThan(-1, v1::MetricSpec::MINIMIZE), 0);
  // An accuracy: its distance to 1.
  FinalValuePrediction accuracy{
      .means = {0.9}, .stddev = std::log(2.0), .log_scale = true, .bound = 1, .basis = ""};
  EXPECT_NEAR(accuracy.ProbabilityBetterThan(0.95, v1::MetricSpec::MAXIMIZE), one_spread, 1e-12);
  EXPECT_EQ(accuracy.ProbabilityBetterThan(1, v1::MetricSpec::MAXIMIZE), 0);
  EXPECT_EQ(accuracy.ProbabilityBetterThan(1.01, v1::MetricSpec::MAXIMIZE), 0);
  // A mean at the bound is better than any target off it.
  accuracy.means = {1};
  EXPECT_EQ(accuracy.ProbabilityBetterThan(0.95, v1::MetricSpec::MAXIMIZE), 1);
}

TEST(NeighbourCurveModelTest, NothingFittedOrTooShortPredictsNothing) {
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  EXPECT_FALSE(model.Predict(FromFunction(1, Decay(0.1, 0.1), 10, false)).has_value());
  const std::vector<LearningCurve> finished = {FromFunction(2, Decay(0.1, 0.1), 50, true)};
  model.Fit(Pointers(finished), 50);
  // One step has no earlier window to measure progress against.
  EXPECT_FALSE(model.Predict(FromFunction(1, Decay(0.1, 0.1), 1, false)).has_value());
  EXPECT_FALSE(
      model.Predict(LearningCurve{.trial_id = 1, .points = {}, .completed = false}).has_value());
  EXPECT_TRUE(model.Predict(FromFunction(1, Decay(0.1, 0.1), 2, false)).has_value());
}

TEST(NeighbourCurveModelTest, TheFitSeesTheLatticeOfTheFinishedValues) {
  std::vector<LearningCurve> losses;
  for (int i = 0; i < 3; ++i) losses.push_back(FromFunction(i + 1, Decay(0.1 * i, 0.1), 30, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(losses), 30);
  EXPECT_EQ(model.Lattice(), 0);
  // The same curves as error rates on 400 samples (maximised accuracies
  // here): a lattice of 1/400, whatever the goal.
  const std::vector<LearningCurve> accuracies =
      Mapped(losses, [](double value) { return 1 - std::round(value * 400) / 400; });
  NeighbourCurveModel counted(v1::MetricSpec::MAXIMIZE);
  counted.Fit(Pointers(accuracies), 30);
  EXPECT_NEAR(counted.Lattice(), 1 / 400.0, 1e-12);
}

// Error rates on 1,000 samples: `scale` times a shape that falls by a
// factor of 20, rounded to whole errors.
std::function<double(int)> Errors(double scale) {
  return [scale](int step) {
    return std::round(1000 * scale * (0.05 + 0.95 * std::exp(-0.2 * step))) / 1000;
  };
}

TEST(NeighbourCurveModelTest, CountsAreModelledOnALogScaleWhereImprovementsAreFactors) {
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 9; ++i)
    finished.push_back(FromFunction(i + 1, Errors(0.04 + 0.01 * i), 60, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 60);
  ASSERT_GT(model.Lattice(), 0);
  EXPECT_TRUE(model.LogScale());
  // Three times worse than every finished trial at step 10: its errors
  // fall by the same factor as theirs, not by the same count.
  const LearningCurve worse = FromFunction(20, Errors(0.4), 10, false);
  const double truth = Errors(0.4)(60);
  const std::optional<FinalValuePrediction> prediction = model.Predict(worse);
  ASSERT_TRUE(prediction.has_value());
  EXPECT_TRUE(prediction->log_scale);
  EXPECT_EQ(prediction->bound, 0);
  for (double mean : prediction->means) EXPECT_NEAR(mean, truth, 0.15 * truth);
  EXPECT_THAT(prediction->basis, HasSubstr("as counts, on a log scale"));

  // The same values unrounded are not counts: modelled as they are.
  std::vector<LearningCurve> losses;
  for (int i = 0; i < 9; ++i) {
    losses.push_back(FromFunction(
        i + 1, [i](int step) { return (0.04 + 0.01 * i) * (0.05 + 0.95 * std::exp(-0.2 * step)); },
        60, true));
  }
  NeighbourCurveModel continuous(v1::MetricSpec::MINIMIZE);
  continuous.Fit(Pointers(losses), 60);
  EXPECT_FALSE(continuous.LogScale());
  const std::optional<FinalValuePrediction> as_is = continuous.Predict(worse);
  ASSERT_TRUE(as_is.has_value());
  EXPECT_FALSE(as_is->log_scale);

  // Accuracies (maximised) are counts too, at their distance to 1.
  const auto complement = [](double value) { return 1 - value; };
  const std::vector<LearningCurve> accuracies = Mapped(finished, complement);
  const LearningCurve worse_accuracy = Mapped(worse, complement);
  NeighbourCurveModel counted(v1::MetricSpec::MAXIMIZE);
  counted.Fit(Pointers(accuracies), 60);
  EXPECT_TRUE(counted.LogScale());
  const std::optional<FinalValuePrediction> accuracy = counted.Predict(worse_accuracy);
  ASSERT_TRUE(accuracy.has_value());
  EXPECT_EQ(accuracy->bound, 1);
  for (double mean : accuracy->means) EXPECT_NEAR(1 - mean, truth, 0.15 * truth);

  // Accuracies in percent, at their distance to 100.
  const auto in_hundredths = [](double value) { return 100 * value; };
  const std::vector<LearningCurve> percents = Mapped(accuracies, in_hundredths);
  const LearningCurve worse_percent = Mapped(worse_accuracy, in_hundredths);
  NeighbourCurveModel in_percent(v1::MetricSpec::MAXIMIZE);
  in_percent.Fit(Pointers(percents), 60);
  EXPECT_TRUE(in_percent.LogScale());
  const std::optional<FinalValuePrediction> percent = in_percent.Predict(worse_percent);
  ASSERT_TRUE(percent.has_value());
  EXPECT_EQ(percent->bound, 100);
  for (double mean : percent->means) EXPECT_NEAR(100 - mean, 100 * truth, 15 * truth);

  // Accuracies of one whose noisy reports pass 1 now and then are not
  // percentages: no bound, modelled as they are.
  std::vector<LearningCurve> past_one = accuracies;
  past_one[0].points[40].value = 1.005;
  NeighbourCurveModel noisy(v1::MetricSpec::MAXIMIZE);
  noisy.Fit(Pointers(past_one), 60);
  EXPECT_GT(noisy.Lattice(), 0);
  EXPECT_FALSE(noisy.LogScale());

  // Counts on both sides of 0 have no bound: modelled as they are.
  const std::vector<LearningCurve> scores =
      Mapped(finished, [](double value) { return value - 0.01; });
  NeighbourCurveModel unbounded(v1::MetricSpec::MINIMIZE);
  unbounded.Fit(Pointers(scores), 60);
  EXPECT_GT(unbounded.Lattice(), 0);
  EXPECT_FALSE(unbounded.LogScale());
  // Maximised counts over 100 (a number of samples right) have none either.
  const std::vector<LearningCurve> many = Mapped(percents, [](double value) { return 10 * value; });
  NeighbourCurveModel large(v1::MetricSpec::MAXIMIZE);
  large.Fit(Pointers(many), 60);
  EXPECT_GT(large.Lattice(), 0);
  EXPECT_FALSE(large.LogScale());
}

TEST(NeighbourCurveModelTest, ACurveLikeFinishedOnesEndsWhereTheyDid) {
  // Finished curves of one shape at several floors; a running one of the
  // same shape is predicted to reach its own floor.
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 9; ++i)
    finished.push_back(FromFunction(i + 1, Decay(0.1 * i, 0.1), 60, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 60);
  EXPECT_EQ(model.Noise(), model.Noise());  // Not NaN.
  const std::optional<FinalValuePrediction> prediction =
      model.Predict(FromFunction(20, Decay(0.4, 0.1), 20, false));
  ASSERT_TRUE(prediction.has_value());
  ASSERT_EQ(prediction->means.size(), 3u);
  const double truth = Decay(0.4, 0.1)(60);
  for (double mean : prediction->means) EXPECT_NEAR(mean, truth, 0.02);
  EXPECT_THAT(prediction->basis, HasSubstr("the 3 finished trials most like it at step 20"));
}

TEST(NeighbourCurveModelTest, ACurveThatRoseAgainKeepsItsMinimum) {
  // Losses that fall to a minimum at step 10 and rise after it: the best by
  // the horizon is the minimum already reached.
  const auto overfit = [](double offset) {
    return [offset](int step) { return offset + 0.01 * (step - 10) * (step - 10); };
  };
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 5; ++i) finished.push_back(FromFunction(i + 1, overfit(0.1 * i), 40, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 40);
  const std::optional<FinalValuePrediction> prediction =
      model.Predict(FromFunction(9, overfit(0.25), 20, false));
  ASSERT_TRUE(prediction.has_value());
  for (double mean : prediction->means) EXPECT_NEAR(mean, 0.25, 1e-9);
}

TEST(NeighbourCurveModelTest, ASlowStarterIsNotJudgedByFlattenedFastLearners) {
  // Every finished trial learnt fast and flattened by step 10. A running one
  // still falls steeply at step 10: its improvement is scaled by its pace,
  // so its prediction lies below what the flat neighbours improved.
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 5; ++i)
    finished.push_back(FromFunction(i + 1, Decay(0.3 + 0.01 * i, 1.0), 50, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 50);
  const LearningCurve slow = FromFunction(9, Decay(0.0, 0.05), 10, false);
  const std::optional<FinalValuePrediction> prediction = model.Predict(slow);
  ASSERT_TRUE(prediction.has_value());
  // Their improvement after step 10 is nil; the slow starter's own pace
  // (0.18 from step 5 to 10, 2.3 doublings left) carries it below every
  // finished trial's final value (0.30 to 0.34), where it will in fact end.
  EXPECT_THAT(prediction->means, Each(Lt(0.3)));
}

TEST(NeighbourCurveModelTest, MaximisedMetricsArePredictedInTheirOwnUnits) {
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 9; ++i) {
    finished.push_back(FromFunction(
        i + 1, [i](int step) { return -Decay(0.1 * i, 0.1)(step); }, 60, true));
  }
  NeighbourCurveModel model(v1::MetricSpec::MAXIMIZE);
  model.Fit(Pointers(finished), 60);
  const std::optional<FinalValuePrediction> prediction = model.Predict(FromFunction(
      20, [](int step) { return -Decay(0.4, 0.1)(step); }, 20, false));
  ASSERT_TRUE(prediction.has_value());
  for (double mean : prediction->means) EXPECT_NEAR(mean, -Decay(0.4, 0.1)(60), 0.02);
  EXPECT_THAT(prediction->means, Each(Ge(-Decay(0.4, 0.1)(20))));
}

TEST(NeighbourCurveModelTest, PointOrderAndRepeatedStepsDoNotMatter) {
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 6; ++i)
    finished.push_back(FromFunction(i + 1, Decay(0.1 * i, 0.2), 30, true));
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 30);
  LearningCurve forward = FromFunction(9, Decay(0.25, 0.2), 12, false);
  LearningCurve shuffled = forward;
  std::reverse(shuffled.points.begin(), shuffled.points.end());
  // The same step twice with the same value averages to itself.
  shuffled.points.push_back(forward.points[3]);
  const std::optional<FinalValuePrediction> a = model.Predict(forward);
  const std::optional<FinalValuePrediction> b = model.Predict(shuffled);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->means, b->means);
  EXPECT_EQ(a->stddev, b->stddev);
}

TEST(NeighbourCurveModelTest, StoppedTrialsAreNeighboursWithWhatTheyImprovedAndWhatFollowsIt) {
  // Every curve falls along one path. The finished ones (a little above
  // it) flattened at step 15; five trials stopped at step 30 were still
  // on the path then. Judged by the finished curves alone, a running trial
  // on the path at step 10 falls until step 15; with the stopped ones as
  // neighbours, at least until step 30.
  const std::function<double(int)> path = Decay(0.2, 0.05);
  const auto until = [&path](int last, double offset) {
    return [&path, last, offset](int step) { return path(std::min(step, last)) + offset; };
  };
  std::vector<LearningCurve> finished;
  for (int i = 0; i < 6; ++i)
    finished.push_back(FromFunction(i + 1, until(15, 0.01 * (i + 1)), 60, true));
  std::vector<LearningCurve> stopped;
  for (int i = 0; i < 5; ++i)
    stopped.push_back(FromFunction(10 + i, until(60, 0.001 * i), 30, true));
  const LearningCurve running = FromFunction(20, until(60, 0), 10, false);
  NeighbourCurveModel model(v1::MetricSpec::MINIMIZE);
  model.Fit(Pointers(finished), 60);
  const std::optional<FinalValuePrediction> alone = model.Predict(running);
  ASSERT_TRUE(alone.has_value());
  for (double mean : alone->means) EXPECT_GT(mean, path(15) - 0.01);
  model.SetStopped(Pointers(stopped));
  const std::optional<FinalValuePrediction> with_stopped = model.Predict(running);
  ASSERT_TRUE(with_stopped.has_value());
  for (double mean : with_stopped->means) EXPECT_LT(mean, path(30) + 0.005);

  // Stopped trials that did not run past the step tell nothing there.
  std::vector<LearningCurve> stopped_before;
  for (int i = 0; i < 5; ++i)
    stopped_before.push_back(FromFunction(10 + i, until(60, 0.001 * i), 10, true));
  model.SetStopped(Pointers(stopped_before));
  const std::optional<FinalValuePrediction> unchanged = model.Predict(running);
  ASSERT_TRUE(unchanged.has_value());
  EXPECT_EQ(unchanged->means, alone->means);
}

}  // namespace
}  // namespace vernier::suggest
