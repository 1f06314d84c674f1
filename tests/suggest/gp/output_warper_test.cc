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

Eigen::VectorXd Clipped(const std::vector<std::optional<double>>& values) {
  return OutputWarper(OutputWarper::Lower::kClipped).Warp(values);
}

// The values after standardising, mapped back by the first two: whether the
// warp was affine (it kept every value's magnitude).
bool IsAffine(const std::vector<double>& values, const Eigen::VectorXd& warped) {
  const double scale = (warped[1] - warped[0]) / (values[1] - values[0]);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::abs(warped[0] + scale * (values[i] - values[0]) - warped[i]) > 1e-12) return false;
  }
  return true;
}

TEST(OutputWarperTest, RanksTiesShareTheirMeanRank) {
  EXPECT_EQ(OutputWarper::Ranks(Eigen::Vector4d(3, 1, 3, 2)), Eigen::Vector4d(2.5, 0, 2.5, 1));
}

TEST(OutputWarperTest, ClippedKeepsTheWorseHalfsMagnitudes) {
  // Most values at the good end, as one objective of a front is where many
  // points sit at its best: the rank warp squeezes the worse half together
  // (its gaps set by ranks, not values); clipped, the values stay an affine
  // image of themselves.
  const std::vector<double> values = {0.0, -0.01, -0.02, 0.0, -0.01, -0.3, -0.9, -1.6, -2.2};
  std::vector<std::optional<double>> given(values.begin(), values.end());
  const Eigen::VectorXd clipped = Clipped(given);
  EXPECT_TRUE(IsAffine(values, clipped));
  EXPECT_NEAR(clipped.mean(), 0.0, 1e-12);
  EXPECT_NEAR(std::sqrt((clipped.array() - clipped.mean()).square().mean()), 1.0, 1e-12);
  EXPECT_FALSE(IsAffine(values, Warp(given)));
}

TEST(OutputWarperTest, ClippedRaisesAFarTailToItsFloor) {
  // Two diverged runs among nine: the worse half (1e9 twice, 1, 2, 3) has
  // its median at 1 and its median absolute deviation 2, so the floor is
  // 1 - 6 * 1.4826 * 2 and the good values keep their gaps.
  const Eigen::VectorXd clipped = Clipped({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -1e9, -1e9});
  const double floor = 1.0 - OutputWarper::kClipSpreads * 1.4826 * 2.0;
  const std::vector<double> kept = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, floor, floor};
  EXPECT_TRUE(IsAffine(kept, clipped));
  EXPECT_GT(clipped[6] - clipped[0], 0.5);
  EXPECT_EQ(clipped[7], clipped[8]);
  EXPECT_LT(clipped[7], clipped[0]);
}

TEST(OutputWarperTest, ClippedWithMostValuesTiedUsesTheMeanDeviation) {
  // The worse half (-1e9, 0, 1, 1) has its median at 0.5 and its median
  // absolute deviation 0.5: the floor is 0.5 - 6 * 1.4826 * 0.5. Tied
  // further, (1, 1, 1, -1e9) has none: its mean absolute deviation sets the
  // floor, and the order is kept.
  const Eigen::VectorXd clipped = Clipped({1.0, 1.0, 1.0, 1.0, 2.0, 0.0, -1e9});
  EXPECT_LT(clipped[6], clipped[5]);
  EXPECT_LT(clipped[5], clipped[0]);
  EXPECT_LT(clipped[0], clipped[4]);
  const Eigen::VectorXd tied = Clipped({1.0, 1.0, 1.0, 1.0, 1.0, 2.0, -1e9});
  EXPECT_LT(tied[6], tied[0]);
  EXPECT_LT(tied[0], tied[5]);
  const Eigen::VectorXd equal = Clipped({2.5, 2.5, std::nullopt});
  EXPECT_EQ(equal[0], 0.0);
  EXPECT_EQ(equal[2], -1.0);
  const Eigen::VectorXd missing = Clipped({1.0, std::nullopt, 3.0, 2.0});
  EXPECT_NEAR(missing[1],
              std::min({missing[0], missing[2], missing[3]}) - OutputWarper::kMissingPenalty,
              1e-12);
}

}  // namespace
}  // namespace vernier::suggest
