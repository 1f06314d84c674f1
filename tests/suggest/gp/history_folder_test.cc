#include "suggest/gp/history_folder.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

MaternKernel Kernel1d(double length = 0.2, double signal = 1.0) {
  Eigen::VectorXd lengths(1);
  lengths << length;
  return MaternKernel({false}, lengths, signal);
}

Eigen::MatrixXd Row(std::vector<double> xs) {
  Eigen::MatrixXd points(1, xs.size());
  for (size_t i = 0; i < xs.size(); ++i) points(0, i) = xs[i];
  return points;
}

Eigen::VectorXd Vector(std::vector<double> values) {
  return Eigen::Map<Eigen::VectorXd>(values.data(), values.size());
}

TEST(HistoryFolderTest, AHistoryTheModelHoldsWhollyIsLeftAsItIs) {
  const HistoryFolder::Folded folded =
      HistoryFolder().Fold(Kernel1d(), 0.1, Row({0.1, 0.5, 0.9}), Vector({1, 2, 3}), {0, 1, 2});
  EXPECT_EQ(folded.folded, 0);
  EXPECT_EQ(folded.values, Vector({1, 2, 3}));
  EXPECT_EQ(folded.noise_variances, Eigen::VectorXd::Constant(3, 0.1));
}

TEST(HistoryFolderTest, RepeatsOfAModelPointBecomeTheirMeanWithAShareOfTheNoise) {
  // Points 2 and 3 repeat point 0 (the model holds 0 and 1).
  const HistoryFolder::Folded folded = HistoryFolder().Fold(
      Kernel1d(), 0.3, Row({0.2, 0.8, 0.2, 0.2}), Vector({1.0, 5.0, 2.0, 6.0}), {0, 1});
  EXPECT_EQ(folded.folded, 2);
  EXPECT_NEAR(folded.values[0], 3.0, 1e-12);
  EXPECT_NEAR(folded.noise_variances[0], 0.1, 1e-12);
  EXPECT_EQ(folded.values[1], 5.0);
  EXPECT_EQ(folded.noise_variances[1], 0.3);
}

TEST(HistoryFolderTest, ANeighbourCountsLessThanARepeatAndAFarOneNotAtAll) {
  const MaternKernel kernel = Kernel1d(0.2, 1.0);
  const double noise = 0.1;
  // 0.21 is near 0.2 (a difference variance well under the noise), 0.5 is
  // far from both model points (0.2, 0.9): it is not folded.
  const HistoryFolder::Folded folded =
      HistoryFolder().Fold(kernel, noise, Row({0.2, 0.9, 0.21, 0.5}), Vector({0, 1, 1, 9}), {0, 1});
  EXPECT_EQ(folded.folded, 1);
  const double x = 0.2;
  const double y = 0.21;
  const double difference = 2 * (1.0 - kernel.Covariance(&x, &y));
  ASSERT_GT(difference, 0);
  ASSERT_LT(difference, noise);
  const double weight = 1 / (noise + difference);
  const double precision = 1 / noise + weight;
  EXPECT_NEAR(folded.values[0], weight / precision, 1e-12);
  EXPECT_GT(folded.values[0], 0);
  EXPECT_LT(folded.values[0], 0.5);
  EXPECT_NEAR(folded.noise_variances[0], (1 + weight * difference) / precision, 1e-12);
  EXPECT_EQ(folded.values[1], 1.0);
}

TEST(HistoryFolderTest, EachLeftOutPointGoesToTheModelPointNearestIt) {
  const MaternKernel kernel = Kernel1d(0.5);
  const double noise = 0.1;
  const HistoryFolder::Folded folded =
      HistoryFolder(/*max_difference_ratio=*/1e9)
          .Fold(kernel, noise, Row({0.0, 1.0, 0.3, 0.7, 0.45}), Vector({0, 0, 1, 1, 1}), {0, 1});
  EXPECT_EQ(folded.folded, 3);
  // 0.3 and 0.45 fold into 0.0, 0.7 into 1.0.
  const auto weight = [&](double a, double b) {
    return 1 / (noise + 2 * (kernel.signal_variance() - kernel.Covariance(&a, &b)));
  };
  const double first = weight(0.0, 0.3) + weight(0.0, 0.45);
  const double second = weight(1.0, 0.7);
  EXPECT_NEAR(folded.values[0], first / (1 / noise + first), 1e-12);
  EXPECT_NEAR(folded.values[1], second / (1 / noise + second), 1e-12);
}

TEST(HistoryFolderTest, WithoutNoiseNothingIsFolded) {
  const HistoryFolder::Folded folded =
      HistoryFolder().Fold(Kernel1d(), 0.0, Row({0.2, 0.8, 0.2}), Vector({1, 2, 3}), {0, 1});
  EXPECT_EQ(folded.folded, 0);
  EXPECT_EQ(folded.values, Vector({1, 2}));
}

TEST(HistoryFolderTest, AFoldedValueIsNeverTrustedMoreThanItsMembersDistanceAllows) {
  // 50 neighbours all on one side of the model point, each a difference
  // variance of half the noise away: the folded noise stays at least that
  // difference, however many they are.
  const MaternKernel kernel = Kernel1d(0.2, 1.0);
  const double noise = 0.1;
  std::vector<double> xs = {0.5};
  std::vector<double> values = {0.0};
  // The distance whose difference variance is noise / 2: bisect.
  double low = 0, high = 0.2;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    const double a = 0.5, b = 0.5 + mid;
    (2 * (1 - kernel.Covariance(&a, &b)) < noise / 2 ? low : high) = mid;
  }
  for (int i = 0; i < 50; ++i) {
    xs.push_back(0.5 + low);
    values.push_back(1.0);
  }
  const HistoryFolder::Folded folded =
      HistoryFolder().Fold(kernel, noise, Row(xs), Vector(values), {0});
  EXPECT_EQ(folded.folded, 50);
  EXPECT_GE(folded.noise_variances[0], noise / 2 * 0.99);
  EXPECT_LT(folded.noise_variances[0], noise);
}

}  // namespace
}  // namespace vernier::suggest
