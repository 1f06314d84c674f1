#include "suggest/gp/hypervolume_scalarization.h"

#include <cmath>
#include <numbers>
#include <random>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

Eigen::VectorXd Point(double a, double b) {
  Eigen::VectorXd y(2);
  y << a, b;
  return y;
}

// Golovin and Zhang's identity: the hypervolume above the reference point
// is pi / 4 times the mean best scalarised value in two dimensions.
TEST(HypervolumeScalarizationTest, MeanOfTheBestEstimatesTheHypervolume) {
  std::mt19937_64 rng(7);
  const HypervolumeScalarization scalarization(Point(0, 0), 20000, rng);
  Eigen::VectorXd best = scalarization.Empty();
  scalarization.Include(Point(1, 1), best);
  EXPECT_NEAR(std::numbers::pi / 4 * best.mean(), 1.0, 0.03);
  // Two points that together dominate 1x2 + 2x1 - 1x1 = 3.
  best = scalarization.Empty();
  scalarization.Include(Point(1, 2), best);
  scalarization.Include(Point(2, 1), best);
  EXPECT_NEAR(std::numbers::pi / 4 * best.mean(), 3.0, 0.1);
}

TEST(HypervolumeScalarizationTest, OnlyPointsBeyondTheFrontImprove) {
  std::mt19937_64 rng(7);
  const HypervolumeScalarization scalarization(Point(0, 0), 256, rng);
  Eigen::VectorXd best = scalarization.Empty();
  scalarization.Include(Point(1, 2), best);
  scalarization.Include(Point(2, 1), best);
  EXPECT_EQ(scalarization.Improvement(Point(0.5, 0.5), best), 0.0);  // dominated
  EXPECT_EQ(scalarization.Improvement(Point(1, 1), best), 0.0);      // dominated
  EXPECT_GT(scalarization.Improvement(Point(1.6, 1.6), best), 0.0);  // fills the gap
  EXPECT_GT(scalarization.Improvement(Point(3, 0.1), best), 0.0);    // extends the front
  // Below the reference point nothing counts.
  EXPECT_EQ(scalarization.Mean(Point(-1, 5)), 0.0);
  EXPECT_GT(scalarization.Mean(Point(1, 1)), 0.0);
}

TEST(HypervolumeScalarizationTest, OneObjectiveIsTheDistanceAboveTheReference) {
  std::mt19937_64 rng(3);
  Eigen::VectorXd reference(1);
  reference << 1.0;
  const HypervolumeScalarization scalarization(reference, 8, rng);
  Eigen::VectorXd y(1);
  y << 3.0;
  EXPECT_DOUBLE_EQ(scalarization.Mean(y), 2.0);
  Eigen::VectorXd best = scalarization.Empty();
  scalarization.Include(y, best);
  y << 3.5;
  EXPECT_DOUBLE_EQ(scalarization.Improvement(y, best), 0.5);
}

TEST(HypervolumeScalarizationTest, ExpectedImprovementAveragesTheDraws) {
  std::mt19937_64 rng(5);
  const HypervolumeScalarization scalarization(Point(0, 0), 64, rng);
  Eigen::VectorXd best = scalarization.Empty();
  scalarization.Include(Point(1, 2), best);
  scalarization.Include(Point(2, 1), best);
  // No spread, or no draws: the improvement of the mean itself.
  Eigen::MatrixXd normals(2, 2);
  normals << 1, -1, -1, 1;
  EXPECT_DOUBLE_EQ(scalarization.ExpectedImprovement(Point(1.6, 1.6), Point(0, 0), normals, best),
                   scalarization.Improvement(Point(1.6, 1.6), best));
  EXPECT_DOUBLE_EQ(scalarization.ExpectedImprovement(Point(1.6, 1.6), Point(0.3, 0.3),
                                                     Eigen::MatrixXd(2, 0), best),
                   scalarization.Improvement(Point(1.6, 1.6), best));
  // Two draws: the mean of their improvements. A dominated mean with a wide
  // spread may still improve; with a narrow one it does not.
  const double expected = 0.5 * (scalarization.Improvement(Point(1.5, 0.5), best) +
                                 scalarization.Improvement(Point(0.5, 1.5), best));
  EXPECT_DOUBLE_EQ(scalarization.ExpectedImprovement(Point(1, 1), Point(0.5, 0.5), normals, best),
                   expected);
  Eigen::MatrixXd wide(2, 1);
  wide << 2, 2;
  EXPECT_GT(scalarization.ExpectedImprovement(Point(1, 1), Point(0.5, 0.5), wide, best), 0.0);
  EXPECT_EQ(scalarization.ExpectedImprovement(Point(1, 1), Point(0.01, 0.01), wide, best), 0.0);
}

}  // namespace
}  // namespace vernier::suggest
