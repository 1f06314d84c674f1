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
  std::vector<LearningCurve> accuracies = losses;
  for (LearningCurve& curve : accuracies) {
    for (CurvePoint& point : curve.points) point.value = 1 - std::round(point.value * 400) / 400;
  }
  NeighbourCurveModel counted(v1::MetricSpec::MAXIMIZE);
  counted.Fit(Pointers(accuracies), 30);
  EXPECT_NEAR(counted.Lattice(), 1 / 400.0, 1e-12);
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
