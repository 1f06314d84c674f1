#include "suggest/gp/feasibility_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/matern_kernel.h"
#include "tests/suggest/gp/central_difference.h"

namespace vernier::suggest {
namespace {

MaternKernel Kernel() { return MaternKernel({false, false}, Eigen::Vector2d(0.2, 0.2), 1.0); }

// Trials on a 5 x 5 grid of the unit square; those with x0 + x1 > 1.1 ended
// without a value (a failure region in one corner).
struct Grid {
  Eigen::MatrixXd points{2, 25};
  std::vector<bool> feasible;
  Grid() {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        points.col(5 * i + j) = Eigen::Vector2d(0.1 + 0.2 * i, 0.1 + 0.2 * j);
        feasible.push_back(0.2 * (i + j) + 0.2 <= 1.1);
      }
    }
  }
};

double Chance(const FeasibilityModel& model, double x0, double x1) {
  return std::exp(model.LogProbability(Eigen::Vector2d(x0, x1))[0]);
}

TEST(FeasibilityModelTest, CentredLabelsAreOneOrMinusOneLessTheirMean) {
  const Eigen::VectorXd labels = FeasibilityModel::CentredLabels({true, true, true, false});
  ASSERT_EQ(labels.size(), 4);
  EXPECT_DOUBLE_EQ(labels[0], 0.5);
  EXPECT_DOUBLE_EQ(labels[3], -1.5);
  EXPECT_NEAR(labels.sum(), 0.0, 1e-12);
}

TEST(FeasibilityModelTest, IsLowInsideTheFailureRegionAndHighFarFromIt) {
  const Grid grid;
  absl::StatusOr<FeasibilityModel> model =
      FeasibilityModel::Create(Kernel(), 0.01, grid.points, grid.feasible);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_GT(Chance(*model, 0.1, 0.1), 0.95);
  EXPECT_GT(Chance(*model, 0.3, 0.5), 0.9);
  EXPECT_LT(Chance(*model, 0.9, 0.9), 0.05);
  EXPECT_LT(Chance(*model, 0.7, 0.9), 0.1);
  // Between the last trials with a value and the first without, in between.
  const double edge = Chance(*model, 0.55, 0.55);
  EXPECT_GT(edge, 0.1);
  EXPECT_LT(edge, 0.9);
}

TEST(FeasibilityModelTest, FarFromEveryTrialKeepsTheStudysShare) {
  // Three trials with a value and one without, all near the origin: far
  // away the chance is the labels' mean read as a probit, above one half.
  Eigen::MatrixXd points(2, 4);
  points << 0.0, 0.02, 0.0, 0.02, 0.0, 0.0, 0.02, 0.02;
  absl::StatusOr<FeasibilityModel> model =
      FeasibilityModel::Create(Kernel(), 0.5, points, {true, true, true, false});
  ASSERT_TRUE(model.ok()) << model.status();
  const double far = Chance(*model, 1.0, 1.0);
  EXPECT_GT(far, 0.5);
  EXPECT_LT(far, 1.0);
}

TEST(FeasibilityModelTest, TheWeightIsTheExponentTimesTheLogChanceWithItsGradient) {
  const Grid grid;
  absl::StatusOr<FeasibilityModel> model =
      FeasibilityModel::Create(Kernel(), 0.01, grid.points, grid.feasible, /*exponent=*/2);
  ASSERT_TRUE(model.ok()) << model.status();
  for (const Eigen::Vector2d& x :
       {Eigen::Vector2d(0.55, 0.62), Eigen::Vector2d(0.2, 0.35), Eigen::Vector2d(0.93, 0.81)}) {
    EXPECT_NEAR(model->LogWeight(x)[0], 2 * model->LogProbability(x)[0], 1e-12);
    Eigen::VectorXd gradient;
    const double value = model->LogWeightWithGradient(x, &gradient);
    EXPECT_NEAR(value, model->LogWeight(x)[0], 1e-12);
    ASSERT_EQ(gradient.size(), 2);
    for (int j = 0; j < 2; ++j) {
      const double numeric = testing::CentralDifference(
          [&](const Eigen::VectorXd& at) { return model->LogWeight(at)[0]; }, x, j, 1e-6);
      EXPECT_NEAR(gradient[j], numeric, 1e-5 * std::max(1.0, std::abs(numeric)));
    }
  }
}

TEST(FeasibilityModelTest, RefusesLabelsThatDoNotMatchThePoints) {
  const Grid grid;
  EXPECT_EQ(FeasibilityModel::Create(Kernel(), 0.01, grid.points, {true, false}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FeasibilityModel::Create(Kernel(), 0.01, Eigen::MatrixXd(2, 0), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vernier::suggest
