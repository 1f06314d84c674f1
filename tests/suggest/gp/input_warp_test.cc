#include "suggest/gp/input_warp.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/suggest/gp/central_difference.h"

namespace vernier::suggest {
namespace {

Eigen::VectorXd Vector(std::initializer_list<double> values) {
  Eigen::VectorXd vector(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double value : values) vector[i++] = value;
  return vector;
}

TEST(InputWarpTest, UnitConcentrationsAreNearlyTheIdentity) {
  for (double x : {0.0, 0.1, 0.5, 0.93, 1.0}) {
    EXPECT_NEAR(InputWarp::Value(x, 1.0, 1.0), x, 3e-6) << x;
    EXPECT_NEAR(InputWarp::Slope(x, 1.0, 1.0), 1.0, 3e-6) << x;
  }
}

TEST(InputWarpTest, KeepsTheUnitIntervalAndItsOrder) {
  for (const auto& [a, b] : {std::pair{0.2, 1.0}, {1.0, 0.2}, {3.0, 4.0}, {0.5, 7.0}}) {
    double previous = -1.0;
    for (int i = 0; i <= 100; ++i) {
      const double value = InputWarp::Value(i / 100.0, a, b);
      EXPECT_GE(value, 0.0);
      EXPECT_LE(value, 1.0);
      EXPECT_GT(value, previous) << "a " << a << " b " << b << " at " << i / 100.0;
      previous = value;
    }
  }
}

TEST(InputWarpTest, SmallAStretchesTheLowEndAndSmallBTheHighEnd) {
  // With a < 1 the first tenth of the range takes most of the warped range.
  EXPECT_GT(InputWarp::Value(0.1, 0.25, 1.0), 0.5);
  EXPECT_LT(InputWarp::Value(0.9, 1.0, 0.25), 0.5);
}

TEST(InputWarpTest, DerivativesMatchFiniteDifferences) {
  for (double x : {0.03, 0.4, 0.97}) {
    for (const auto& [log_a, log_b] : {std::pair{-1.2, 0.4}, {0.7, -0.9}, {0.0, 0.0}}) {
      double value;
      double by_a;
      double by_b;
      InputWarp::ValueWithGradient(x, std::exp(log_a), std::exp(log_b), &value, &by_a, &by_b);
      EXPECT_DOUBLE_EQ(value, InputWarp::Value(x, std::exp(log_a), std::exp(log_b)));
      const auto at = [x](const Eigen::VectorXd& p) {
        return InputWarp::Value(x, std::exp(p[0]), std::exp(p[1]));
      };
      EXPECT_NEAR(by_a, testing::CentralDifference(at, Vector({log_a, log_b}), 0, 1e-6), 1e-7);
      EXPECT_NEAR(by_b, testing::CentralDifference(at, Vector({log_a, log_b}), 1, 1e-6), 1e-7);
      const auto in_x = [&](const Eigen::VectorXd& p) {
        return InputWarp::Value(p[0], std::exp(log_a), std::exp(log_b));
      };
      EXPECT_NEAR(InputWarp::Slope(x, std::exp(log_a), std::exp(log_b)),
                  testing::CentralDifference(in_x, Vector({x}), 0, 1e-7), 1e-5)
          << x << " " << log_a << " " << log_b;
    }
  }
}

TEST(InputWarpTest, WarpsOnlyItsCoordinatesAndLeavesTheInactiveSentinel) {
  // Coordinates 0 and 2 warped; 1 (categorical, say) passes through.
  const InputWarp warp({true, false, true}, Vector({std::log(0.3), 0.0}),
                       Vector({0.0, std::log(2.0)}));
  EXPECT_FALSE(warp.identity());
  const Eigen::VectorXd point = Vector({0.2, 2.0, -1.0});
  const Eigen::VectorXd warped = warp.Apply(point);
  EXPECT_DOUBLE_EQ(warped[0], InputWarp::Value(0.2, 0.3, 1.0));
  EXPECT_DOUBLE_EQ(warped[1], 2.0);
  EXPECT_DOUBLE_EQ(warped[2], -1.0);
  const Eigen::VectorXd slopes = warp.Slopes(point);
  EXPECT_DOUBLE_EQ(slopes[0], InputWarp::Slope(0.2, 0.3, 1.0));
  EXPECT_DOUBLE_EQ(slopes[1], 1.0);
  EXPECT_DOUBLE_EQ(slopes[2], 1.0);
  Eigen::MatrixXd points(3, 2);
  points.col(0) = point;
  points.col(1) = Vector({0.9, 0.0, 0.5});
  const Eigen::MatrixXd all = warp.Apply(points);
  EXPECT_EQ(all.col(0), warped);
  EXPECT_DOUBLE_EQ(all(2, 1), InputWarp::Value(0.5, 1.0, 2.0));
}

TEST(InputWarpTest, TheDefaultIsTheExactIdentity) {
  const InputWarp warp;
  EXPECT_TRUE(warp.identity());
  const Eigen::VectorXd point = Vector({0.2, 0.7});
  EXPECT_EQ(warp.Apply(point), point);
  EXPECT_EQ(warp.Slopes(point), Eigen::VectorXd::Ones(2));
}

}  // namespace
}  // namespace vernier::suggest
