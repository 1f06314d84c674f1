#include "suggest/gp/input_warp_fitter.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/gp_log_posterior.h"
#include "suggest/gp/hyperparameter_fitter.h"

namespace vernier::suggest {
namespace {

struct Data {
  Eigen::MatrixXd points;
  Eigen::VectorXd values;
};

// n points of the unit square; `misscaled`: the first coordinate's effect
// crowded into its first tenth (a logarithm over three decades), else a
// plain bump of one length scale everywhere.
Data Sample(int n, bool misscaled) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> unit(0, 1);
  Data data{Eigen::MatrixXd(2, n), Eigen::VectorXd(n)};
  for (int i = 0; i < n; ++i) {
    const double x = unit(rng);
    const double y = unit(rng);
    data.points.col(i) << x, y;
    const double u = misscaled ? (std::log10(1e-3 + x * (1 - 1e-3)) + 3) / 3 : x;
    data.values[i] = std::sin(9 * u) + 0.3 * y;
  }
  data.values = (data.values.array() - data.values.mean()) /
                std::sqrt((data.values.array() - data.values.mean()).square().mean());
  return data;
}

Eigen::VectorXd PlainFit(const Data& data) {
  const GpLogPosterior posterior({false, false}, data.points, data.values);
  const Eigen::VectorXd start = posterior.PriorMean();
  return *HyperparameterFitter(HyperparameterFitter::Options()).Fit(posterior, {&start, 1});
}

TEST(InputWarpFitterTest, KeepsAWarpTheTrialsAskFor) {
  const Data data = Sample(40, /*misscaled=*/true);
  const Eigen::VectorXd plain = PlainFit(data);
  const Eigen::VectorXd theta =
      InputWarpFitter(InputWarpFitter::Options())
          .Fit({false, false}, {true, true}, data.points, data.values, plain);
  ASSERT_EQ(theta.size(), plain.size() + 4);
  EXPECT_FALSE(GpLogPosterior::Warp({true, true}, theta).identity());
  // The first coordinate's low end stretched: a < 1.
  EXPECT_LT(theta[4], 0.0);
}

TEST(InputWarpFitterTest, LeavesThePlainFitWithoutTheEvidence) {
  const Data data = Sample(40, /*misscaled=*/false);
  const Eigen::VectorXd plain = PlainFit(data);
  InputWarpFitter::Options options;
  options.evidence = 1e9;
  EXPECT_EQ(
      InputWarpFitter(options).Fit({false, false}, {true, true}, data.points, data.values, plain),
      plain);
}

TEST(InputWarpFitterTest, JudgesALongHistoryOnItsChosenTrials) {
  // More trials than fit_points: fitted and judged on 50 of them.
  const Data data = Sample(120, /*misscaled=*/true);
  const Eigen::VectorXd plain = PlainFit(data);
  const Eigen::VectorXd theta =
      InputWarpFitter(InputWarpFitter::Options())
          .Fit({false, false}, {true, true}, data.points, data.values, plain);
  ASSERT_EQ(theta.size(), plain.size() + 4);
  EXPECT_TRUE(theta.allFinite());
  EXPECT_LT(theta[4], 0.0);
}

}  // namespace
}  // namespace vernier::suggest
