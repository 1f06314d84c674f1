#include "suggest/gp/gp_log_posterior.h"

#include <cmath>
#include <numbers>
#include <random>

#include "gtest/gtest.h"
#include "tests/suggest/gp/central_difference.h"

namespace vernier::suggest {
namespace {

struct Data {
  Eigen::MatrixXd points;
  Eigen::VectorXd values;
};

// 3-d, the middle coordinate categorical with 3 categories.
Data MixedData(int n) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> unit(0, 1);
  Data data{Eigen::MatrixXd(3, n), Eigen::VectorXd(n)};
  for (int i = 0; i < n; ++i) {
    data.points(0, i) = unit(rng);
    data.points(1, i) = static_cast<double>(i % 3);
    data.points(2, i) = unit(rng);
    data.values[i] = std::sin(6 * data.points(0, i)) + 0.5 * data.points(1, i) -
                     data.points(2, i) * data.points(2, i);
  }
  data.values = (data.values.array() - data.values.mean()) /
                std::sqrt((data.values.array() - data.values.mean()).square().mean());
  return data;
}

Eigen::VectorXd Theta(double l0, double l1, double l2, double signal, double noise) {
  Eigen::VectorXd theta(5);
  theta << std::log(l0), std::log(l1), std::log(l2), std::log(signal), std::log(noise);
  return theta;
}

TEST(GpLogPosteriorTest, ValueIsTheNegativeLogMarginalLikelihoodPlusThePrior) {
  const Data data = MixedData(12);
  const GpLogPosterior posterior({false, true, false}, data.points, data.values);
  const Eigen::VectorXd theta = Theta(0.3, 0.8, 0.5, 1.2, 0.01);
  Eigen::MatrixXd k = posterior.Kernel(theta).Covariance(data.points);
  k.diagonal().array() += 0.01;
  const Eigen::LLT<Eigen::MatrixXd> llt(k);
  const double likelihood = 0.5 * data.values.dot(llt.solve(data.values)) +
                            llt.matrixL().toDenseMatrix().diagonal().array().log().sum() +
                            6 * std::log(2 * std::numbers::pi);
  const Eigen::ArrayXd z =
      (theta - posterior.PriorMean()).array() / posterior.PriorStandardDeviation().array();
  EXPECT_NEAR(posterior.NegativeLogPosterior(theta, nullptr), likelihood + 0.5 * z.square().sum(),
              1e-9);
}

TEST(GpLogPosteriorTest, GradientMatchesFiniteDifferences) {
  const Data data = MixedData(15);
  const GpLogPosterior posterior({false, true, false}, data.points, data.values);
  for (const Eigen::VectorXd& theta :
       {Theta(0.3, 0.8, 0.5, 1.2, 0.01), Theta(2.0, 0.1, 0.05, 0.3, 0.2),
        Theta(0.05, 5.0, 3.0, 4.0, 1e-4)}) {
    Eigen::VectorXd gradient;
    posterior.NegativeLogPosterior(theta, &gradient);
    ASSERT_EQ(gradient.size(), 5);
    for (int i = 0; i < 5; ++i) {
      const double numeric = testing::CentralDifference(
          [&](const Eigen::VectorXd& at) { return posterior.NegativeLogPosterior(at, nullptr); },
          theta, i, 1e-5);
      EXPECT_NEAR(gradient[i], numeric, 1e-5 * std::max(1.0, std::abs(numeric)))
          << "component " << i << " at " << theta.transpose();
    }
  }
}

// Coordinates 0 and 2 warped (the middle one is categorical).
Eigen::VectorXd WarpedTheta(const Eigen::VectorXd& theta, double log_a0, double log_a2,
                            double log_b0, double log_b2) {
  Eigen::VectorXd warped(theta.size() + 4);
  warped << theta, log_a0, log_a2, log_b0, log_b2;
  return warped;
}

TEST(GpLogPosteriorTest, WarpedValueIsTheUnwarpedOneOnWarpedPoints) {
  Data data = MixedData(12);
  // An inactive coordinate (the sentinel) passes through the warp.
  data.points(2, 3) = -1.0;
  const GpLogPosterior posterior({false, true, false}, data.points, data.values,
                                 {true, false, true});
  ASSERT_EQ(posterior.parameter_count(), 9);
  const Eigen::VectorXd theta = WarpedTheta(Theta(0.3, 0.8, 0.5, 1.2, 0.01), -0.7, 0.4, 0.2, -1.1);
  const InputWarp warp = posterior.Warp(theta);
  const GpLogPosterior on_warped({false, true, false}, warp.Apply(data.points), data.values);
  const Eigen::ArrayXd z =
      (theta - posterior.PriorMean()).array() / posterior.PriorStandardDeviation().array();
  const Eigen::ArrayXd z_unwarped =
      (theta.head(5) - on_warped.PriorMean()).array() / on_warped.PriorStandardDeviation().array();
  // The same likelihood; the priors differ by the warp's terms.
  EXPECT_NEAR(
      posterior.NegativeLogPosterior(theta, nullptr) - 0.5 * z.square().sum(),
      on_warped.NegativeLogPosterior(theta.head(5), nullptr) - 0.5 * z_unwarped.square().sum(),
      1e-9);
  EXPECT_DOUBLE_EQ(GpLogPosterior::NoiseVariance(3, theta), 0.01);
}

TEST(GpLogPosteriorTest, WarpedGradientMatchesFiniteDifferences) {
  Data data = MixedData(15);
  data.points(0, 5) = -1.0;
  const GpLogPosterior posterior({false, true, false}, data.points, data.values,
                                 {true, false, true});
  for (const Eigen::VectorXd& theta :
       {WarpedTheta(Theta(0.3, 0.8, 0.5, 1.2, 0.01), -0.7, 0.4, 0.2, -1.1),
        WarpedTheta(Theta(2.0, 0.1, 0.05, 0.3, 0.2), 1.5, -1.9, 0.0, 0.8),
        WarpedTheta(Theta(0.05, 5.0, 3.0, 4.0, 1e-4), 0.0, 0.0, 0.0, 0.0)}) {
    Eigen::VectorXd gradient;
    posterior.NegativeLogPosterior(theta, &gradient);
    ASSERT_EQ(gradient.size(), 9);
    for (int i = 0; i < 9; ++i) {
      const double numeric = testing::CentralDifference(
          [&](const Eigen::VectorXd& at) { return posterior.NegativeLogPosterior(at, nullptr); },
          theta, i, 1e-5);
      EXPECT_NEAR(gradient[i], numeric, 1e-5 * std::max(1.0, std::abs(numeric)))
          << "component " << i << " at " << theta.transpose();
    }
  }
}

TEST(GpLogPosteriorTest, WarpPriorIsCentredOnTheIdentity) {
  const Data data = MixedData(4);
  const GpLogPosterior posterior({false, true, false}, data.points, data.values,
                                 {true, false, true});
  EXPECT_EQ(posterior.warped_count(), 2);
  EXPECT_TRUE(posterior.PriorMean().tail(4).isZero());
  EXPECT_TRUE((posterior.LowerBounds().tail(4).array() < 0).all());
  EXPECT_TRUE((posterior.UpperBounds().tail(4).array() > 0).all());
  // Without warping, theta names the identity.
  EXPECT_TRUE(
      GpLogPosterior::Warp({true, false, true}, Theta(0.3, 0.8, 0.5, 1.2, 0.01)).identity());
}

TEST(GpLogPosteriorTest, ThePriorScalesLengthScalesWithTheDimension) {
  const Data data = MixedData(4);
  const GpLogPosterior three({false, true, false}, data.points, data.values);
  // Median length scale 0.34 sqrt(d).
  EXPECT_NEAR(std::exp(three.PriorMean()[0]), 0.34 * std::sqrt(3.0), 1e-12);
  Eigen::MatrixXd points20 = Eigen::MatrixXd::Zero(20, 4);
  const GpLogPosterior twenty(std::vector<bool>(20, false), points20, data.values);
  EXPECT_GT(twenty.PriorMean()[0], three.PriorMean()[0]);
  EXPECT_EQ(twenty.parameter_count(), 22);
}

}  // namespace
}  // namespace vernier::suggest
