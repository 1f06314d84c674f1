#include "suggest/gp/leave_one_out_rank_agreement.h"

#include <cmath>
#include <random>

#include "gtest/gtest.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {
namespace {

constexpr double kNoise = 0.01;

// `count` points of the unit square, from a fixed stream.
Eigen::MatrixXd SquarePoints(int count) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd points(2, count);
  for (int i = 0; i < count; ++i) points.col(i) = Eigen::Vector2d(unit(rng), unit(rng));
  return points;
}

double Agreement(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                 double length_scale = 0.4) {
  const MaternKernel kernel({false, false}, Eigen::Vector2d(length_scale, length_scale), 1.0);
  absl::StatusOr<GaussianProcess> model = GaussianProcess::Create(kernel, kNoise, points, values);
  EXPECT_TRUE(model.ok()) << model.status();
  return LeaveOneOutRankAgreement::Of(*model, values);
}

TEST(LeaveOneOutRankAgreementTest, ASmoothFunctionIsOrderedAlmostPerfectly) {
  const Eigen::MatrixXd points = SquarePoints(40);
  Eigen::VectorXd values(40);
  for (int i = 0; i < 40; ++i) {
    values[i] = -(points.col(i) - Eigen::Vector2d(0.3, 0.6)).squaredNorm();
  }
  EXPECT_GT(Agreement(points, values), 0.95);
}

TEST(LeaveOneOutRankAgreementTest, ValuesUnrelatedToThePointsAreNotOrdered) {
  const Eigen::MatrixXd points = SquarePoints(40);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  Eigen::VectorXd values(40);
  for (double& value : values) value = normal(rng);
  // Short-range model of noise: the others say little about a left-out
  // value.
  EXPECT_LT(std::abs(Agreement(points, values, 0.05)), 0.4);
}

TEST(LeaveOneOutRankAgreementTest, NothingToOrderGivesZero) {
  const Eigen::MatrixXd points = SquarePoints(10);
  EXPECT_EQ(Agreement(points, Eigen::VectorXd::Constant(10, 2.0)), 0.0);
  const Eigen::MatrixXd two = SquarePoints(2);
  EXPECT_EQ(Agreement(two, Eigen::Vector2d(0.0, 1.0)), 0.0);
}

TEST(LeaveOneOutRankAgreementTest, ValuesOfAnotherSizeGiveZero) {
  const Eigen::MatrixXd points = SquarePoints(10);
  Eigen::VectorXd values(10);
  for (int i = 0; i < 10; ++i) values[i] = points(0, i);
  const MaternKernel kernel({false, false}, Eigen::Vector2d(0.4, 0.4), 1.0);
  absl::StatusOr<GaussianProcess> model = GaussianProcess::Create(kernel, kNoise, points, values);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(LeaveOneOutRankAgreement::Of(*model, values.head(9)), 0.0);
}

}  // namespace
}  // namespace vernier::suggest
