#include "suggest/gp/jittered_cholesky.h"

#include <cmath>
#include <limits>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;

TEST(JitteredCholeskyTest, APositiveDefiniteMatrixNeedsNoJitter) {
  Eigen::MatrixXd a(2, 2);
  a << 4, 2, 2, 3;
  absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(a);
  ASSERT_TRUE(factor.ok()) << factor.status();
  EXPECT_EQ(factor->jitter(), 0.0);
  EXPECT_TRUE((factor->lower() * factor->lower().transpose()).isApprox(a));
  EXPECT_EQ(factor->lower()(0, 1), 0.0);
}

TEST(JitteredCholeskyTest, TheInverseIsTheMatrixsInverseInItsLowerTriangle) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  // Sizes below, at and past a block, and several blocks with a remainder.
  for (Eigen::Index n : {1, 2, 15, 16, 17, 40, 100}) {
    Eigen::MatrixXd square(n, n);
    for (Eigen::Index i = 0; i < square.size(); ++i) square.data()[i] = normal(rng);
    const Eigen::MatrixXd a =
        square * square.transpose() + static_cast<double>(n) * Eigen::MatrixXd::Identity(n, n);
    absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(a);
    ASSERT_TRUE(factor.ok()) << factor.status();
    const Eigen::MatrixXd inverse = factor->InverseLowerTriangle();
    const Eigen::MatrixXd expected = a.inverse();
    ASSERT_EQ(inverse.rows(), n);
    ASSERT_EQ(inverse.cols(), n);
    for (Eigen::Index col = 0; col < n; ++col) {
      for (Eigen::Index row = 0; row < n; ++row) {
        if (row >= col) {
          EXPECT_NEAR(inverse(row, col), expected(row, col), 1e-12 * expected.norm())
              << "n " << n << ", entry (" << row << ", " << col << ")";
        } else {
          EXPECT_EQ(inverse(row, col), 0.0) << "n " << n << ", upper (" << row << ", " << col << ")";
        }
      }
    }
  }
}

TEST(JitteredCholeskyTest, ASingularMatrixGetsTheSmallestJitterThatWorks) {
  // Two identical points without noise: rank 1.
  Eigen::MatrixXd a = Eigen::MatrixXd::Ones(3, 3);
  a(2, 2) = 1.0;
  absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(a);
  ASSERT_TRUE(factor.ok()) << factor.status();
  EXPECT_GT(factor->jitter(), 0.0);
  EXPECT_LE(factor->jitter(), 1e-3);
  Eigen::MatrixXd jittered = a;
  jittered.diagonal().array() += factor->jitter();
  EXPECT_TRUE((factor->lower() * factor->lower().transpose()).isApprox(jittered, 1e-9));
}

TEST(JitteredCholeskyTest, AnIndefiniteMatrixFails) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 2, 2, 1;  // Eigenvalues 3 and -1.
  absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(a);
  ASSERT_FALSE(factor.ok());
  EXPECT_EQ(factor.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(factor.status().message(), HasSubstr("stays indefinite with jitter"));
}

TEST(JitteredCholeskyTest, ANonFiniteEntryFails) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(2, 2);
  a(1, 0) = a(0, 1) = std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(a);
  ASSERT_FALSE(factor.ok());
  EXPECT_THAT(factor.status().message(), HasSubstr("non-finite"));
}

}  // namespace
}  // namespace vernier::suggest
