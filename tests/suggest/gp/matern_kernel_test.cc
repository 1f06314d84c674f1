#include "suggest/gp/matern_kernel.h"

#include <algorithm>
#include <cmath>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

MaternKernel MixedKernel() {
  Eigen::VectorXd lengths(3);
  lengths << 0.3, 1.5, 0.7;
  return MaternKernel({false, true, false}, lengths, 2.0);
}

TEST(MaternKernelTest, KnownValues) {
  EXPECT_DOUBLE_EQ(MaternKernel::Shape(0.0), 1.0);
  // r = 1: (1 + sqrt5 + 5/3) exp(-sqrt5).
  EXPECT_NEAR(MaternKernel::Shape(1.0), (1 + std::sqrt(5.0) + 5.0 / 3) * std::exp(-std::sqrt(5.0)),
              1e-15);
  const MaternKernel kernel = MixedKernel();
  const double a[] = {0.1, 2.0, 0.5};
  const double same_category[] = {0.4, 2.0, 0.5};
  const double other_category[] = {0.1, 0.0, 0.5};
  EXPECT_DOUBLE_EQ(kernel.Covariance(a, a), 2.0);
  EXPECT_NEAR(kernel.SquaredDistance(a, same_category), 1.0, 1e-12);  // (0.3 / 0.3)^2.
  // Another category is distance 1 before scaling, whichever it is.
  EXPECT_NEAR(kernel.SquaredDistance(a, other_category), 1.0 / (1.5 * 1.5), 1e-15);
  EXPECT_NEAR(kernel.Covariance(a, same_category), 2.0 * MaternKernel::Shape(1.0), 1e-15);
}

TEST(MaternKernelTest, CovarianceMatrixIsSymmetricAndPositiveDefinite) {
  const MaternKernel kernel = MixedKernel();
  Eigen::MatrixXd points(3, 6);
  points << 0.1, 0.5, 0.9, 0.2, 0.7, 0.3,  //
      0, 1, 2, 0, 1, 2,                    //
      0.3, 0.6, 0.1, 0.8, 0.5, 0.2;
  const Eigen::MatrixXd k = kernel.Covariance(points);
  EXPECT_TRUE(k.isApprox(k.transpose()));
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(k).info(), Eigen::Success);
  const Eigen::MatrixXd cross = kernel.CrossCovariance(points, points);
  EXPECT_TRUE(cross.isApprox(k, 1e-14));
}

TEST(MaternKernelTest, MatricesHoldExactlyTheCovarianceOfEachPair) {
  // Covariance and CrossCovariance compute a query's distances to all
  // points at once; each entry must still be the pairwise value, so that a
  // model's suggestions do not depend on how it batches: bit for bit in the
  // default build, within 4 units in the last place where the compiler fuses
  // the two loops' multiply-adds differently (built with FMA under the
  // sanitizers).
  const MaternKernel kernel = MixedKernel();
  Eigen::MatrixXd points(3, 7);
  points << 0.1, 0.5, 0.9, 0.2, 0.7, 0.3, 0.1,  //
      0, 1, 2, 0, 1, 2, 0,                      //
      0.3, 0.6, 0.1, 0.8, 0.5, 0.2, 0.3;
  Eigen::MatrixXd others(3, 3);
  others << 0.15, 0.9, 0.3,  //
      2, 0, 1,               //
      0.35, 0.05, 0.2;
  const Eigen::MatrixXd k = kernel.Covariance(points);
  const Eigen::MatrixXd cross = kernel.CrossCovariance(points, others);
  for (Eigen::Index b = 0; b < points.cols(); ++b) {
    for (Eigen::Index a = 0; a < points.cols(); ++a) {
      // The matrix is symmetric: its pair (a, b) with a > b, either way.
      const Eigen::Index row = std::max(a, b);
      const Eigen::Index col = std::min(a, b);
      EXPECT_DOUBLE_EQ(k(a, b), kernel.Covariance(points.col(row).data(), points.col(col).data()))
          << "(" << a << ", " << b << ")";
    }
    for (Eigen::Index c = 0; c < others.cols(); ++c) {
      EXPECT_DOUBLE_EQ(cross(b, c), kernel.Covariance(points.col(b).data(), others.col(c).data()))
          << "(" << b << ", " << c << ")";
    }
  }
  Eigen::VectorXd covariance;
  Eigen::MatrixXd gradient;
  kernel.CrossCovarianceWithGradient(others.col(0), points, &covariance, &gradient);
  for (Eigen::Index a = 0; a < points.cols(); ++a) {
    EXPECT_EQ(covariance[a], cross(a, 0)) << a;
  }
}

TEST(MaternKernelTest, GradientMatchesFiniteDifferences) {
  const MaternKernel kernel = MixedKernel();
  Eigen::MatrixXd points(3, 4);
  points << 0.1, 0.5, 0.9, 0.25,  //
      0, 1, 2, 1,                 //
      0.3, 0.6, 0.1, 0.8;
  Eigen::VectorXd x(3);
  x << 0.4, 1, 0.35;
  Eigen::VectorXd covariance;
  Eigen::MatrixXd gradient;
  kernel.CrossCovarianceWithGradient(x, points, &covariance, &gradient);
  const double h = 1e-6;
  for (int j : {0, 2}) {
    Eigen::VectorXd up = x;
    Eigen::VectorXd down = x;
    up[j] += h;
    down[j] -= h;
    for (int i = 0; i < 4; ++i) {
      const double numeric = (kernel.Covariance(up.data(), points.col(i).data()) -
                              kernel.Covariance(down.data(), points.col(i).data())) /
                             (2 * h);
      EXPECT_NEAR(gradient(i, j), numeric, 1e-7) << "point " << i << " coordinate " << j;
    }
  }
  EXPECT_TRUE(gradient.col(1).isZero());
  EXPECT_NEAR(covariance[3], kernel.Covariance(x.data(), points.col(3).data()), 1e-15);
}

}  // namespace
}  // namespace vernier::suggest
