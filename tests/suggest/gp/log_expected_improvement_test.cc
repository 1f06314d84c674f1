#include "suggest/gp/log_expected_improvement.h"

#include <cmath>
#include <numbers>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

double DirectH(double z) {
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  return pdf + z * cdf;
}

TEST(LogExpectedImprovementTest, MatchesTheTextbookFormulaWhereThatIsAccurate) {
  for (double z : {-5.0, -2.0, -1.0, -0.5, 0.0, 0.7, 3.0}) {
    EXPECT_NEAR(LogExpectedImprovement::LogH(z), std::log(DirectH(z)), 1e-10) << z;
  }
  // At the incumbent (z = 0) EI is sigma / sqrt(2 pi).
  const LogExpectedImprovement acquisition(1.0);
  EXPECT_NEAR(acquisition.Value(1.0, 4.0), std::log(2.0 / std::sqrt(2 * std::numbers::pi)), 1e-12);
}

TEST(LogExpectedImprovementTest, StaysFiniteAndDecreasingFarBelowTheIncumbent) {
  // EI itself underflows to 0 near z = -38; its logarithm goes on.
  double previous = LogExpectedImprovement::LogH(-1.0);
  for (double z : {-10.0, -38.0, -50.0, -99.0, -101.0, -1e3, -1e6}) {
    const double value = LogExpectedImprovement::LogH(z);
    EXPECT_TRUE(std::isfinite(value)) << z;
    EXPECT_LT(value, previous) << z;
    // Asymptotically log h(z) = -z^2/2 - log sqrt(2 pi) - 2 log|z|.
    if (z <= -38.0) {
      const double asymptote =
          -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi) - 2 * std::log(-z);
      EXPECT_NEAR(value, asymptote, 3.5 / (z * z) * 1.01) << z;
    }
    previous = value;
  }
  // Continuous where the formulas switch.
  for (double z : {-1.0, -100.0}) {
    EXPECT_NEAR(LogExpectedImprovement::LogH(z - 1e-9), LogExpectedImprovement::LogH(z + 1e-9),
                1e-6)
        << z;
    EXPECT_NEAR(LogExpectedImprovement::LogHSlope(z - 1e-9),
                LogExpectedImprovement::LogHSlope(z + 1e-9), 1e-5 * std::abs(z))
        << z;
  }
}

TEST(LogExpectedImprovementTest, DerivativesMatchFiniteDifferences) {
  const LogExpectedImprovement acquisition(0.3);
  for (const auto& [mean, variance] :
       {std::pair{0.1, 0.04}, std::pair{0.5, 0.2}, std::pair{-2.0, 0.01}, std::pair{-30.0, 0.5}}) {
    double d_mean;
    double d_variance;
    const double value = acquisition.ValueWithDerivatives(mean, variance, &d_mean, &d_variance);
    EXPECT_NEAR(value, acquisition.Value(mean, variance), 1e-12);
    const double h = 1e-7;
    const double numeric_mean =
        (acquisition.Value(mean + h, variance) - acquisition.Value(mean - h, variance)) / (2 * h);
    const double numeric_variance =
        (acquisition.Value(mean, variance + h) - acquisition.Value(mean, variance - h)) / (2 * h);
    EXPECT_NEAR(d_mean, numeric_mean, 1e-5 * std::max(1.0, std::abs(numeric_mean)));
    EXPECT_NEAR(d_variance, numeric_variance, 1e-5 * std::max(1.0, std::abs(numeric_variance)));
  }
}

TEST(LogExpectedImprovementTest, PrefersAHigherMeanAndMoreUncertaintyBelowTheIncumbent) {
  const LogExpectedImprovement acquisition(1.0);
  EXPECT_GT(acquisition.Value(0.9, 0.1), acquisition.Value(0.5, 0.1));
  EXPECT_GT(acquisition.Value(0.5, 0.5), acquisition.Value(0.5, 0.1));
}

}  // namespace
}  // namespace vernier::suggest
