#include "suggest/gp/acquisition_optimizer.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using namespace vernier::suggest::testing;  // NOLINT: spec builders.

GaussianProcess MustCreate(const GpInputEncoder& encoder, const Eigen::MatrixXd& points,
                           const Eigen::VectorXd& values, double length_scale) {
  absl::StatusOr<GaussianProcess> gp = GaussianProcess::Create(
      MaternKernel(encoder.categorical(),
                   Eigen::VectorXd::Constant(encoder.dimension(), length_scale), 1.0),
      1e-6, points, values);
  EXPECT_TRUE(gp.ok()) << gp.status();
  return *std::move(gp);
}

TEST(AcquisitionOptimizerTest, FindsTheMaximumOfADenseGrid) {
  absl::StatusOr<SearchSpace> space = MakeSpace({DoubleSpec("x", 0, 1)});
  ASSERT_TRUE(space.ok());
  const GpInputEncoder encoder(*space);
  Eigen::MatrixXd points(1, 5);
  points << 0.05, 0.3, 0.45, 0.7, 0.95;
  Eigen::VectorXd values(5);
  values << -1.0, 0.5, 1.0, -0.2, -1.5;
  const GaussianProcess gp = MustCreate(encoder, points, values, 0.15);
  const LogExpectedImprovement acquisition(gp.MeanAtObservations().maxCoeff());
  double grid_best = -INFINITY;
  double grid_argmax = 0;
  for (int i = 0; i <= 100000; ++i) {
    Eigen::VectorXd x(1);
    x << i / 100000.0;
    Eigen::VectorXd mean, variance;
    gp.Predict(x, &mean, &variance);
    const double value = acquisition.Value(mean[0], variance[0]);
    if (value > grid_best) {
      grid_best = value;
      grid_argmax = x[0];
    }
  }
  const AcquisitionOptimizer optimizer(encoder, {});
  std::mt19937_64 rng(1);
  std::vector<Eigen::VectorXd> incumbents = {points.col(2)};
  std::optional<AcquisitionOptimizer::Candidate> best =
      optimizer.Maximize(gp, acquisition, incumbents, {}, rng);
  ASSERT_TRUE(best.has_value());
  EXPECT_NEAR(best->value, grid_best, 1e-6);
  EXPECT_NEAR(best->point[0], grid_argmax, 1e-3);
  EXPECT_NEAR(best->parameters[0].double_value(), best->point[0], 1e-12);
}

TEST(AcquisitionOptimizerTest, SkipsUsedPointsOfAFiniteSpace) {
  absl::StatusOr<SearchSpace> space = MakeSpace(
      {CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}), IntegerSpec("layers", 1, 2)});
  ASSERT_TRUE(space.ok());
  const GpInputEncoder encoder(*space);
  Eigen::MatrixXd points(2, 2);
  points << 0, 1, encoder.Encode({StringValue("optimizer", "adam"), IntValue("layers", 1)})->y(),
      encoder.Encode({StringValue("optimizer", "sgd"), IntValue("layers", 2)})->y();
  Eigen::VectorXd values(2);
  values << 1.0, -1.0;
  const GaussianProcess gp = MustCreate(encoder, points, values, 0.5);
  const LogExpectedImprovement acquisition(1.0);
  const AcquisitionOptimizer optimizer(encoder, {});
  absl::flat_hash_set<std::string> used;
  std::mt19937_64 rng(2);
  for (int i = 0; i < 6; ++i) {
    std::optional<AcquisitionOptimizer::Candidate> candidate =
        optimizer.Maximize(gp, acquisition, {}, used, rng);
    ASSERT_TRUE(candidate.has_value()) << i;
    ASSERT_TRUE(space->Encode(candidate->parameters).ok());
    EXPECT_TRUE(used.insert(SearchSpace::Key(candidate->parameters)).second);
  }
  EXPECT_FALSE(optimizer.Maximize(gp, acquisition, {}, used, rng).has_value());
}

TEST(AcquisitionOptimizerTest, MaximizeAroundSkipsUsedPointsAndSaysWhenNoneIsLeft) {
  absl::StatusOr<SearchSpace> space = MakeSpace(
      {CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}), IntegerSpec("layers", 1, 2)});
  ASSERT_TRUE(space.ok());
  const GpInputEncoder encoder(*space);
  Eigen::MatrixXd points(2, 2);
  points << 0, 1, encoder.Encode({StringValue("optimizer", "adam"), IntValue("layers", 1)})->y(),
      encoder.Encode({StringValue("optimizer", "sgd"), IntValue("layers", 2)})->y();
  Eigen::VectorXd values(2);
  values << 1.0, -1.0;
  const GaussianProcess gp = MustCreate(encoder, points, values, 0.5);
  const LogExpectedImprovement acquisition(1.0);
  const AcquisitionOptimizer optimizer(encoder, {});
  const std::vector<Eigen::VectorXd> centres = {points.col(0), points.col(1)};
  absl::flat_hash_set<std::string> used;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 6; ++i) {
    std::optional<AcquisitionOptimizer::Candidate> candidate =
        optimizer.MaximizeAround(gp, acquisition, centres, used, rng);
    ASSERT_TRUE(candidate.has_value()) << i;
    ASSERT_TRUE(space->Encode(candidate->parameters).ok());
    EXPECT_TRUE(used.insert(SearchSpace::Key(candidate->parameters)).second);
  }
  EXPECT_FALSE(optimizer.MaximizeAround(gp, acquisition, centres, used, rng).has_value());
  EXPECT_FALSE(optimizer.MaximizeAround(gp, acquisition, {}, {}, rng).has_value());
}

}  // namespace
}  // namespace vernier::suggest
