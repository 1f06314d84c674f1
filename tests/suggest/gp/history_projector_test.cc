#include "suggest/gp/history_projector.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/gaussian_process.h"

namespace vernier::suggest {
namespace {

MaternKernel ProjectorKernel(double length = 0.2, double signal = 1.0) {
  Eigen::VectorXd lengths(2);
  lengths << length, 2 * length;
  return MaternKernel({false, false}, lengths, signal);
}

// Columns (x, y) of a 2 x n matrix.
Eigen::MatrixXd Points2d(std::vector<std::pair<double, double>> xy) {
  Eigen::MatrixXd points(2, xy.size());
  for (size_t i = 0; i < xy.size(); ++i) points.col(i) << xy[i].first, xy[i].second;
  return points;
}

Eigen::VectorXd ProjectorValues(std::vector<double> values) {
  return Eigen::Map<Eigen::VectorXd>(values.data(), values.size());
}

HistoryProjector::Projected MustProject(int neighbours, const MaternKernel& kernel, double noise,
                                        const Eigen::MatrixXd& points,
                                        const Eigen::VectorXd& values,
                                        const std::vector<int>& selected) {
  absl::StatusOr<HistoryProjector::Projected> projected =
      HistoryProjector(neighbours).Project(kernel, noise, points, values, selected);
  EXPECT_TRUE(projected.ok()) << projected.status();
  return projected.ok() ? *std::move(projected) : HistoryProjector::Projected{};
}

// The projected model's and a reference model's predictions at a few points.
void ExpectSamePredictions(const GaussianProcess& a, const GaussianProcess& b, double tolerance) {
  const Eigen::MatrixXd queries = Points2d({{0.1, 0.1}, {0.45, 0.5}, {0.8, 0.3}, {0.95, 0.95}});
  Eigen::VectorXd mean_a, variance_a, mean_b, variance_b;
  a.Predict(queries, &mean_a, &variance_a);
  b.Predict(queries, &mean_b, &variance_b);
  EXPECT_TRUE(mean_a.isApprox(mean_b, tolerance))
      << mean_a.transpose() << " against " << mean_b.transpose();
  EXPECT_TRUE(variance_a.isApprox(variance_b, tolerance))
      << variance_a.transpose() << " against " << variance_b.transpose();
}

TEST(HistoryProjectorTest, AHistoryTheModelHoldsWhollyIsLeftAsItIs) {
  const HistoryProjector::Projected projected =
      MustProject(4, ProjectorKernel(), 0.1, Points2d({{0.1, 0.2}, {0.5, 0.5}, {0.9, 0.1}}),
                  ProjectorValues({1, 2, 3}), {0, 1, 2});
  EXPECT_EQ(projected.projected, 0);
  EXPECT_EQ(projected.values, ProjectorValues({1, 2, 3}));
  EXPECT_EQ(projected.noise_covariance, Eigen::MatrixXd(0.1 * Eigen::MatrixXd::Identity(3, 3)));
}

TEST(HistoryProjectorTest, WithoutNoiseOrNeighboursNothingIsProjected) {
  const Eigen::MatrixXd points = Points2d({{0.2, 0.2}, {0.8, 0.8}, {0.2, 0.2}});
  for (const auto& [neighbours, noise] : {std::pair{4, 0.0}, std::pair{0, 0.1}}) {
    const HistoryProjector::Projected projected = MustProject(
        neighbours, ProjectorKernel(), noise, points, ProjectorValues({1, 2, 3}), {0, 1});
    EXPECT_EQ(projected.projected, 0);
    EXPECT_EQ(projected.values, ProjectorValues({1, 2}));
  }
}

TEST(HistoryProjectorTest, RepeatsOfModelPointsGiveTheExactPosteriorOfTheWholeHistory) {
  // The model holds four points; six more trials repeat three of them. A
  // repeat's projection is exact, so the model over four points predicts
  // as the exact Gaussian process over all ten does.
  const MaternKernel kernel = ProjectorKernel(0.3, 1.3);
  const double noise = 0.2;
  const Eigen::MatrixXd points = Points2d({{0.1, 0.2},
                                           {0.4, 0.7},
                                           {0.8, 0.4},
                                           {0.6, 0.1},
                                           {0.1, 0.2},
                                           {0.1, 0.2},
                                           {0.8, 0.4},
                                           {0.4, 0.7},
                                           {0.4, 0.7},
                                           {0.4, 0.7}});
  const Eigen::VectorXd values =
      ProjectorValues({0.5, -1.0, 1.2, 0.1, 0.9, 0.2, 1.6, -0.4, -1.3, -0.8});
  for (int neighbours : {1, 2, 4}) {
    const HistoryProjector::Projected projected =
        MustProject(neighbours, kernel, noise, points, values, {0, 1, 2, 3});
    EXPECT_EQ(projected.projected, 6);
    absl::StatusOr<GaussianProcess> model = GaussianProcess::CreateWithNoiseCovariance(
        kernel, noise, projected.noise_covariance, points.leftCols(4), projected.values);
    absl::StatusOr<GaussianProcess> exact = GaussianProcess::Create(kernel, noise, points, values);
    ASSERT_TRUE(model.ok() && exact.ok());
    ExpectSamePredictions(*model, *exact, 1e-6);
  }
}

TEST(HistoryProjectorTest, ALeftOutTrialIsTheConditionalMeanOfItsNeighboursPlusItsResidual) {
  // One trial between two model points, projected onto both (and onto the
  // third, far, point too when it has three neighbours): the posterior is
  // that of the model points' own observations and of y_j = b^T u_S + e
  // with e ~ N(0, noise + r), b = K_SS^-1 k_S(x_j), r = s - k_S(x_j)^T b.
  const MaternKernel kernel = ProjectorKernel(0.3, 1.0);
  const double noise = 0.1;
  const Eigen::MatrixXd points = Points2d({{0.3, 0.5}, {0.5, 0.5}, {0.95, 0.9}, {0.4, 0.52}});
  const Eigen::VectorXd values = ProjectorValues({1.0, -0.5, 0.3, 2.0});
  for (int neighbours : {2, 3}) {
    const HistoryProjector::Projected projected =
        MustProject(neighbours, kernel, noise, points, values, {0, 1, 2});
    ASSERT_EQ(projected.projected, 1);
    const Eigen::MatrixXd model = points.leftCols(3);
    const Eigen::MatrixXd gram = kernel.Covariance(model);
    const Eigen::VectorXd cross = kernel.CrossCovariance(model, points.col(3)).col(0);
    const int k = neighbours;  // The nearest are the first k here.
    Eigen::VectorXd b = Eigen::VectorXd::Zero(3);
    b.head(k) = gram.topLeftCorner(k, k).ldlt().solve(cross.head(k));
    const double residual = 1.0 - cross.head(k).dot(b.head(k));
    ASSERT_GT(residual, 0);
    const double weight = 1 / (noise + residual);
    const Eigen::MatrixXd precision =
        Eigen::MatrixXd::Identity(3, 3) / noise + weight * b * b.transpose();
    const Eigen::VectorXd h = values.head(3) / noise + weight * values[3] * b;
    const Eigen::MatrixXd covariance = precision.inverse();
    EXPECT_TRUE(projected.noise_covariance.isApprox(covariance, 1e-6))
        << projected.noise_covariance;
    EXPECT_TRUE(projected.values.isApprox(covariance * h, 1e-6)) << projected.values.transpose();
    EXPECT_EQ(projected.noise_covariance, projected.noise_covariance.transpose());
  }
}

TEST(HistoryProjectorTest, AFarTrialAddsAlmostNothingAndANearOneAlmostARepeat) {
  const MaternKernel kernel = ProjectorKernel(0.05, 1.0);
  const double noise = 0.1;
  // The model points at (0.1, 0.1) and (0.2, 0.2); a trial at (0.9, 0.9) is
  // twenty length scales from both.
  const HistoryProjector::Projected far =
      MustProject(2, kernel, noise, Points2d({{0.1, 0.1}, {0.2, 0.2}, {0.9, 0.9}}),
                  ProjectorValues({0.0, 1.0, 50.0}), {0, 1});
  EXPECT_EQ(far.projected, 1);
  EXPECT_NEAR(far.values[0], 0.0, 1e-6);
  EXPECT_NEAR(far.values[1], 1.0, 1e-6);
  EXPECT_NEAR(far.noise_covariance(0, 0), noise, 1e-8);
  // A trial a hundredth of a length scale from the first point: nearly
  // the mean of the two, with nearly half the noise.
  const HistoryProjector::Projected near =
      MustProject(2, kernel, noise, Points2d({{0.1, 0.1}, {0.2, 0.2}, {0.1002, 0.1}}),
                  ProjectorValues({0.0, 1.0, 2.0}), {0, 1});
  absl::StatusOr<GaussianProcess> model = GaussianProcess::CreateWithNoiseCovariance(
      kernel, noise, near.noise_covariance, Points2d({{0.1, 0.1}, {0.2, 0.2}}), near.values);
  ASSERT_TRUE(model.ok());
  absl::StatusOr<GaussianProcess> repeat =
      GaussianProcess::Create(kernel, noise, Points2d({{0.1, 0.1}, {0.2, 0.2}, {0.1, 0.1}}),
                              ProjectorValues({0.0, 1.0, 2.0}));
  ASSERT_TRUE(repeat.ok());
  ExpectSamePredictions(*model, *repeat, 1e-3);
}

TEST(HistoryProjectorTest, AManyTimesRepeatedPointIsKnownToTheNoiseOverTheRepeats) {
  // 200 repeats of one model point around a mean of 3: the posterior there
  // is their mean's, its variance about noise / 201.
  const MaternKernel kernel = ProjectorKernel(0.2, 1.0);
  const double noise = 0.3;
  std::vector<std::pair<double, double>> xy = {{0.5, 0.5}, {0.1, 0.9}};
  std::vector<double> values = {3.0, 0.0};
  for (int i = 0; i < 200; ++i) {
    xy.push_back({0.5, 0.5});
    values.push_back(3.0 + (i % 2 == 0 ? 0.5 : -0.5));
  }
  const HistoryProjector::Projected projected =
      MustProject(2, kernel, noise, Points2d(xy), ProjectorValues(values), {0, 1});
  EXPECT_EQ(projected.projected, 200);
  absl::StatusOr<GaussianProcess> model = GaussianProcess::CreateWithNoiseCovariance(
      kernel, noise, projected.noise_covariance, Points2d({{0.5, 0.5}, {0.1, 0.9}}),
      projected.values);
  ASSERT_TRUE(model.ok());
  Eigen::VectorXd mean, variance;
  model->Predict(Points2d({{0.5, 0.5}}), &mean, &variance);
  EXPECT_NEAR(mean[0], 3.0, 0.02);
  EXPECT_NEAR(variance[0], noise / 201, 0.1 * noise / 201);
}

}  // namespace
}  // namespace vernier::suggest
