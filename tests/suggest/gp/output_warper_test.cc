#include "suggest/gp/output_warper.h"

#include <cmath>
#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

Eigen::VectorXd Warp(const std::vector<std::optional<double>>& values) {
  return OutputWarper().Warp(values);
}

TEST(OutputWarperTest, KeepsTheOrderAndStandardises) {
  const std::vector<std::optional<double>> values = {3.0, -1.0, 7.5, 0.2, 2.0, 5.0, -4.0};
  const Eigen::VectorXd warped = Warp(values);
  ASSERT_EQ(warped.size(), 7);
  for (int a = 0; a < 7; ++a) {
    for (int b = 0; b < 7; ++b) {
      if (*values[a] < *values[b]) {
        EXPECT_LT(warped[a], warped[b]) << a << " " << b;
      }
    }
  }
  EXPECT_NEAR(warped.mean(), 0.0, 1e-12);
  EXPECT_NEAR(std::sqrt((warped.array() - warped.mean()).square().mean()), 1.0, 1e-12);
}

TEST(OutputWarperTest, ADisastrousTrialDoesNotFlattenTheGoodOnes) {
  // Without warping the outlier would leave 1.0 and 2.0 within 1e-9 standard
  // deviations of each other.
  const Eigen::VectorXd warped = Warp({1.0, 2.0, 3.0, 4.0, -1e9});
  EXPECT_GT(warped[3] - warped[0], 0.5);
  EXPECT_LT(warped[4], warped[0]);
}

TEST(OutputWarperTest, TrialsWithoutAValueLandBelowTheWorst) {
  const Eigen::VectorXd warped = Warp({1.0, std::nullopt, 3.0, 2.0});
  EXPECT_NEAR(warped[1],
              std::min({warped[0], warped[2], warped[3]}) - OutputWarper::kMissingPenalty, 1e-12);
}

TEST(OutputWarperTest, EqualValuesBecomeZeroAndMissingOnesMinusOne) {
  const Eigen::VectorXd equal = Warp({2.5, 2.5, std::nullopt, 2.5});
  EXPECT_EQ(equal[0], 0.0);
  EXPECT_EQ(equal[3], 0.0);
  EXPECT_EQ(equal[2], -1.0);
  const Eigen::VectorXd single = Warp({7.0});
  EXPECT_EQ(single[0], 0.0);
  const Eigen::VectorXd none = Warp({std::nullopt, std::nullopt});
  EXPECT_EQ(none[0], -1.0);
  EXPECT_TRUE(Warp({}).size() == 0);
}

}  // namespace
}  // namespace vernier::suggest
