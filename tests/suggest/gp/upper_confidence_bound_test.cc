#include "suggest/gp/upper_confidence_bound.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gtest/gtest.h"
#include "suggest/gp/log_expected_improvement.h"

namespace vernier::suggest {
namespace {

TEST(UpperConfidenceBoundTest, IsTheMeanPlusBetaStandardDeviations) {
  const UpperConfidenceBound bound(0.7);
  EXPECT_DOUBLE_EQ(bound.Value(0.5, 4.0), 0.5 + 0.7 * 2.0);
  EXPECT_DOUBLE_EQ(bound.Value(-3.0, 0.25), -3.0 + 0.7 * 0.5);
  // Beta 0: the posterior mean alone.
  EXPECT_DOUBLE_EQ(UpperConfidenceBound(0).Value(1.25, 9.0), 1.25);
}

TEST(UpperConfidenceBoundTest, DerivativesMatchFiniteDifferences) {
  for (const double beta : {0.0, 0.7, 2.0}) {
    const UpperConfidenceBound bound(beta);
    for (const auto& [mean, variance] :
         {std::pair{0.1, 0.04}, std::pair{-2.0, 1e-4}, std::pair{30.0, 5.0}}) {
      double d_mean;
      double d_variance;
      const double value = bound.ValueWithDerivatives(mean, variance, &d_mean, &d_variance);
      EXPECT_DOUBLE_EQ(value, bound.Value(mean, variance));
      const double h = 1e-8 * std::max(1.0, variance);
      EXPECT_NEAR(d_mean,
                  (bound.Value(mean + h, variance) - bound.Value(mean - h, variance)) / (2 * h),
                  1e-6);
      const double numeric_variance =
          (bound.Value(mean, variance + h) - bound.Value(mean, variance - h)) / (2 * h);
      EXPECT_NEAR(d_variance, numeric_variance, 1e-5 * std::max(1.0, std::abs(numeric_variance)));
    }
  }
}

TEST(UpperConfidenceBoundTest, WeighsTheMeanWhereExpectedImprovementWeighsTheUncertainty) {
  // Far below the incumbent (1.0), EI prefers a point the model knows
  // little about (mean -1, sigma 0.5) to one it expects better (mean 0,
  // sigma 0.2); the bound with a small beta prefers the better mean.
  const LogExpectedImprovement improvement(1.0);
  EXPECT_GT(improvement.Value(-1.0, 0.25), improvement.Value(0.0, 0.04));
  const UpperConfidenceBound bound(0.7);
  EXPECT_GT(bound.Value(0.0, 0.04), bound.Value(-1.0, 0.25));
}

}  // namespace
}  // namespace vernier::suggest
