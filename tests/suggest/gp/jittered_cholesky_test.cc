#include "suggest/gp/jittered_cholesky.h"

#include <cmath>
#include <limits>

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
