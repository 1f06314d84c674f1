#include "suggest/gp/acquisition_optimizer.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/log_expected_improvement.h"
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

// The six points of optimizer {adam, sgd, rmsprop} x layers {1, 2}, two of
// them observed: a search returns each point once, then none.
class AcquisitionOptimizerFiniteSpaceTest : public ::testing::Test {
 protected:
  AcquisitionOptimizerFiniteSpaceTest()
      : space_(MustMakeSpace({CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}),
                              IntegerSpec("layers", 1, 2)})),
        encoder_(space_),
        points_(ObservedPoints(encoder_)),
        gp_(MustCreate(encoder_, points_, Eigen::Vector2d(1.0, -1.0), 0.5)),
        optimizer_(encoder_, {}) {}

  static Eigen::MatrixXd ObservedPoints(const GpInputEncoder& encoder) {
    Eigen::MatrixXd points(2, 2);
    points.col(0) = *encoder.Encode({StringValue("optimizer", "adam"), IntValue("layers", 1)});
    points.col(1) = *encoder.Encode({StringValue("optimizer", "sgd"), IntValue("layers", 2)});
    return points;
  }

  // `search(used)` is one search of the optimizer.
  template <typename Search>
  void ExpectEachPointOnceThenNone(const Search& search) {
    absl::flat_hash_set<std::string> used;
    for (int i = 0; i < 6; ++i) {
      std::optional<AcquisitionOptimizer::Candidate> candidate = search(used);
      ASSERT_TRUE(candidate.has_value()) << i;
      ASSERT_TRUE(space_.Encode(candidate->parameters).ok());
      EXPECT_TRUE(used.insert(SearchSpace::Key(candidate->parameters)).second);
    }
    EXPECT_FALSE(search(used).has_value());
  }

  const SearchSpace space_;
  const GpInputEncoder encoder_;
  const Eigen::MatrixXd points_;
  const GaussianProcess gp_;
  const AcquisitionOptimizer optimizer_;
  const LogExpectedImprovement acquisition_{1.0};
};

TEST_F(AcquisitionOptimizerFiniteSpaceTest, MaximizeSkipsUsedPoints) {
  std::mt19937_64 rng(2);
  ExpectEachPointOnceThenNone([&](const absl::flat_hash_set<std::string>& used) {
    return optimizer_.Maximize(gp_, acquisition_, {}, used, rng);
  });
}

TEST_F(AcquisitionOptimizerFiniteSpaceTest, MaximizeAroundSkipsUsedPointsAndSaysWhenNoneIsLeft) {
  std::mt19937_64 rng(5);
  const std::vector<Eigen::VectorXd> centres = {points_.col(0), points_.col(1)};
  ExpectEachPointOnceThenNone([&](const absl::flat_hash_set<std::string>& used) {
    return optimizer_.MaximizeAround(gp_, acquisition_, centres, used, rng);
  });
  EXPECT_FALSE(optimizer_.MaximizeAround(gp_, acquisition_, {}, {}, rng).has_value());
}

}  // namespace
}  // namespace vernier::suggest
