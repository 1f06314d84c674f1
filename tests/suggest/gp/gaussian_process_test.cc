#include "suggest/gp/gaussian_process.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

MaternKernel Kernel2d() {
  Eigen::VectorXd lengths(2);
  lengths << 0.3, 0.5;
  return MaternKernel({false, false}, lengths, 1.5);
}

Eigen::MatrixXd Points() {
  Eigen::MatrixXd points(2, 5);
  points << 0.1, 0.4, 0.8, 0.3, 0.9,  //
      0.2, 0.7, 0.4, 0.1, 0.9;
  return points;
}

Eigen::VectorXd Values() {
  Eigen::VectorXd values(5);
  values << 0.5, -1.0, 1.2, 0.1, -0.3;
  return values;
}

TEST(GaussianProcessTest, LeaveOneOutIsWhatTheOthersPredict) {
  const double noise = 0.02;
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), noise, Points(), Values());
  ASSERT_TRUE(gp.ok()) << gp.status();
  Eigen::VectorXd residuals;
  Eigen::VectorXd variances;
  gp->LeaveOneOut(&residuals, &variances);
  ASSERT_EQ(residuals.size(), 5);
  ASSERT_EQ(variances.size(), 5);
  for (int left = 0; left < 5; ++left) {
    // The model of the other four, asked at the one left out.
    Eigen::MatrixXd points(2, 4);
    Eigen::VectorXd values(4);
    for (int i = 0, k = 0; i < 5; ++i) {
      if (i == left) continue;
      points.col(k) = Points().col(i);
      values[k++] = Values()[i];
    }
    absl::StatusOr<GaussianProcess> others =
        GaussianProcess::Create(Kernel2d(), noise, points, values);
    ASSERT_TRUE(others.ok()) << others.status();
    Eigen::VectorXd mean;
    Eigen::VectorXd variance;
    others->Predict(Points().col(left), &mean, &variance);
    EXPECT_NEAR(residuals[left], Values()[left] - mean[0], 1e-9) << left;
    // The prediction of a noisy observation: the noise included.
    EXPECT_NEAR(variances[left], variance[0] + noise, 1e-9) << left;
  }
}

TEST(GaussianProcessTest, PredictMeanIsPredictsMean) {
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), 0.01, Points(), Values());
  ASSERT_TRUE(gp.ok()) << gp.status();
  // More columns than one chunk of Predict's, some far from the data.
  Eigen::MatrixXd queries(2, 300);
  for (int i = 0; i < queries.cols(); ++i) {
    queries(0, i) = std::fmod(0.37 * i, 1.3);
    queries(1, i) = std::fmod(0.61 * i, 1.1);
  }
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  gp->Predict(queries, &mean, &variance);
  const Eigen::VectorXd only = gp->PredictMean(queries);
  ASSERT_EQ(only.size(), 300);
  EXPECT_TRUE(only.isApprox(mean, 1e-12)) << (only - mean).cwiseAbs().maxCoeff();
  EXPECT_EQ(gp->PredictMean(Eigen::MatrixXd(2, 0)).size(), 0);
}

TEST(GaussianProcessTest, InterpolatesWithLittleNoiseAndIsUnsureFarAway) {
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), 1e-6, Points(), Values());
  ASSERT_TRUE(gp.ok()) << gp.status();
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  gp->Predict(Points(), &mean, &variance);
  EXPECT_TRUE(mean.isApprox(Values(), 1e-4)) << mean.transpose();
  EXPECT_LT(variance.maxCoeff(), 1e-5);
  EXPECT_TRUE(gp->MeanAtObservations().isApprox(mean, 1e-6));

  Eigen::MatrixXd far(2, 1);
  far << 5.0, 5.0;
  gp->Predict(far, &mean, &variance);
  EXPECT_NEAR(mean[0], 0.0, 1e-6);
  EXPECT_NEAR(variance[0], 1.5, 1e-6);
}

TEST(GaussianProcessTest, PredictingManyPointsEqualsPredictingEachAlone) {
  // Predict works through its points a block at a time; no point's mean
  // or variance may depend on how many others came with it, beyond rounding:
  // built with AVX2 and FMA, one point's products and a block's sum their
  // terms in different orders, so the last few bits may differ.
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), 1e-3, Points(), Values());
  ASSERT_TRUE(gp.ok()) << gp.status();
  const int m = 300;
  Eigen::MatrixXd many(2, m);
  for (int i = 0; i < m; ++i) many.col(i) << (i % 17) / 16.0, (i % 13) / 12.0 - 0.1;
  Eigen::VectorXd means;
  Eigen::VectorXd variances;
  gp->Predict(many, &means, &variances);
  ASSERT_EQ(means.size(), m);
  ASSERT_EQ(variances.size(), m);
  for (int i = 0; i < m; ++i) {
    Eigen::VectorXd mean;
    Eigen::VectorXd variance;
    gp->Predict(many.col(i), &mean, &variance);
    EXPECT_NEAR(means[i], mean[0], 1e-13 * (1 + std::abs(mean[0]))) << i;
    EXPECT_NEAR(variances[i], variance[0], 1e-13 * (1 + std::abs(variance[0]))) << i;
  }
}

// PredictWithGradient at `x`: the values Predict gives, and gradients
// within `tolerance` of central differences of Predict.
void ExpectGradientsMatchFiniteDifferences(const GaussianProcess& gp, const Eigen::VectorXd& x,
                                           double tolerance) {
  double mean;
  double variance;
  Eigen::VectorXd mean_gradient;
  Eigen::VectorXd variance_gradient;
  gp.PredictWithGradient(x, &mean, &variance, &mean_gradient, &variance_gradient);
  Eigen::VectorXd batch_mean;
  Eigen::VectorXd batch_variance;
  gp.Predict(x, &batch_mean, &batch_variance);
  EXPECT_NEAR(mean, batch_mean[0], 1e-12);
  EXPECT_NEAR(variance, batch_variance[0], 1e-12);
  const double h = 1e-6;
  for (int j = 0; j < x.size(); ++j) {
    Eigen::VectorXd up = x;
    Eigen::VectorXd down = x;
    up[j] += h;
    down[j] -= h;
    Eigen::VectorXd m_up, v_up, m_down, v_down;
    gp.Predict(up, &m_up, &v_up);
    gp.Predict(down, &m_down, &v_down);
    EXPECT_NEAR(mean_gradient[j], (m_up[0] - m_down[0]) / (2 * h), tolerance);
    EXPECT_NEAR(variance_gradient[j], (v_up[0] - v_down[0]) / (2 * h), tolerance);
  }
}

TEST(GaussianProcessTest, GradientsMatchFiniteDifferences) {
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), 1e-3, Points(), Values());
  ASSERT_TRUE(gp.ok());
  Eigen::VectorXd x(2);
  x << 0.55, 0.35;
  ExpectGradientsMatchFiniteDifferences(*gp, x, 1e-6);
}

InputWarp Warp2d() {
  Eigen::VectorXd log_a(2);
  Eigen::VectorXd log_b(2);
  log_a << std::log(0.4), std::log(1.5);
  log_b << std::log(2.0), std::log(0.6);
  return InputWarp({true, true}, log_a, log_b);
}

TEST(GaussianProcessTest, AWarpedProcessIsTheProcessOfWarpedPoints) {
  const InputWarp warp = Warp2d();
  absl::StatusOr<GaussianProcess> warped =
      GaussianProcess::Create(Kernel2d(), 1e-3, Points(), Values(), warp);
  absl::StatusOr<GaussianProcess> plain =
      GaussianProcess::Create(Kernel2d(), 1e-3, warp.Apply(Points()), Values());
  ASSERT_TRUE(warped.ok() && plain.ok());
  Eigen::MatrixXd queries(2, 3);
  queries << 0.1, 0.5, 0.95, 0.7, 0.2, 0.4;
  Eigen::VectorXd mean, variance, plain_mean, plain_variance;
  warped->Predict(queries, &mean, &variance);
  plain->Predict(warp.Apply(queries), &plain_mean, &plain_variance);
  EXPECT_TRUE(mean.isApprox(plain_mean, 1e-12));
  EXPECT_TRUE(variance.isApprox(plain_variance, 1e-12));
  EXPECT_TRUE(warped->PredictMean(queries).isApprox(plain_mean, 1e-12));
  // A fantasy at an encoder point is one at its warped point.
  warped->AddObservation(queries.col(1), 0.3, 0.0);
  plain->AddObservation(warp.Apply(Eigen::VectorXd(queries.col(1))), 0.3, 0.0);
  warped->Predict(queries, &mean, &variance);
  plain->Predict(warp.Apply(queries), &plain_mean, &plain_variance);
  EXPECT_TRUE(mean.isApprox(plain_mean, 1e-10));
}

TEST(GaussianProcessTest, WarpedGradientsMatchFiniteDifferences) {
  absl::StatusOr<GaussianProcess> gp =
      GaussianProcess::Create(Kernel2d(), 1e-3, Points(), Values(), Warp2d());
  ASSERT_TRUE(gp.ok());
  Eigen::VectorXd x(2);
  x << 0.15, 0.8;
  ExpectGradientsMatchFiniteDifferences(*gp, x, 1e-5);
}

TEST(GaussianProcessTest, AddingAnObservationEqualsRefittingWithIt) {
  Eigen::MatrixXd points = Points();
  Eigen::VectorXd values = Values();
  absl::StatusOr<GaussianProcess> incremental =
      GaussianProcess::Create(Kernel2d(), 1e-3, points.leftCols(4), values.head(4));
  ASSERT_TRUE(incremental.ok());
  incremental->AddObservation(points.col(4), values[4], 1e-3);
  absl::StatusOr<GaussianProcess> full = GaussianProcess::Create(Kernel2d(), 1e-3, points, values);
  ASSERT_TRUE(full.ok());
  Eigen::MatrixXd queries(2, 3);
  queries << 0.5, 0.05, 0.7, 0.5, 0.95, 0.6;
  Eigen::VectorXd m1, v1, m2, v2;
  incremental->Predict(queries, &m1, &v1);
  full->Predict(queries, &m2, &v2);
  EXPECT_TRUE(m1.isApprox(m2, 1e-10));
  EXPECT_TRUE(v1.isApprox(v2, 1e-10));
  EXPECT_EQ(incremental->size(), 5);
}

TEST(GaussianProcessTest, DuplicatePointsWithoutNoiseFactorWithJitter) {
  Eigen::MatrixXd points(2, 3);
  points << 0.2, 0.2, 0.6, 0.3, 0.3, 0.1;
  Eigen::VectorXd values(3);
  values << 1.0, 1.0, -1.0;
  absl::StatusOr<GaussianProcess> gp = GaussianProcess::Create(Kernel2d(), 0.0, points, values);
  ASSERT_TRUE(gp.ok()) << gp.status();
  EXPECT_GT(gp->jitter(), 0.0);
  // A fantasy on top of an observed point keeps the factor usable.
  gp->AddObservation(points.col(0), 1.0, 0.0);
  Eigen::VectorXd mean, variance;
  gp->Predict(points, &mean, &variance);
  EXPECT_TRUE(mean.allFinite());
  EXPECT_NEAR(mean[0], 1.0, 1e-3);
}

TEST(GaussianProcessTest, AnObservationWithAShareOfTheNoiseIsTheMeanOfThatManyRepeats) {
  // m repeats at one point with noise s each tell the posterior exactly what
  // one observation of their mean with noise s / m does.
  const double noise = 0.2;
  Eigen::MatrixXd repeated(2, 7);
  Eigen::VectorXd repeated_values(7);
  repeated.leftCols(4) = Points().leftCols(4);
  repeated_values.head(4) = Values().head(4);
  for (int i = 4; i < 7; ++i) repeated.col(i) = Points().col(4);
  repeated_values.tail(3) << -0.1, -0.6, 0.1;
  absl::StatusOr<GaussianProcess> each =
      GaussianProcess::Create(Kernel2d(), noise, repeated, repeated_values);
  ASSERT_TRUE(each.ok()) << each.status();

  Eigen::VectorXd values = Values();
  values[4] = repeated_values.tail(3).mean();
  Eigen::VectorXd noises = Eigen::VectorXd::Constant(5, noise);
  noises[4] = noise / 3;
  absl::StatusOr<GaussianProcess> folded =
      GaussianProcess::Create(Kernel2d(), noise, noises, Points(), values);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(folded->noise_variance(), noise);

  Eigen::MatrixXd queries(2, 3);
  queries << 0.5, 0.9, 0.0,  //
      0.5, 0.85, 1.0;
  Eigen::VectorXd mean_each, variance_each, mean_folded, variance_folded;
  each->Predict(queries, &mean_each, &variance_each);
  folded->Predict(queries, &mean_folded, &variance_folded);
  EXPECT_TRUE(mean_folded.isApprox(mean_each, 1e-9)) << mean_folded.transpose();
  EXPECT_TRUE(variance_folded.isApprox(variance_each, 1e-9)) << variance_folded.transpose();
}

TEST(GaussianProcessTest, ANoisePerObservationOfOneValueIsTheSharedNoise) {
  absl::StatusOr<GaussianProcess> shared =
      GaussianProcess::Create(Kernel2d(), 0.05, Points(), Values());
  absl::StatusOr<GaussianProcess> each = GaussianProcess::Create(
      Kernel2d(), 0.05, Eigen::VectorXd::Constant(5, 0.05), Points(), Values());
  ASSERT_TRUE(shared.ok() && each.ok());
  Eigen::VectorXd mean_shared, variance_shared, mean_each, variance_each;
  shared->Predict(Points(), &mean_shared, &variance_shared);
  each->Predict(Points(), &mean_each, &variance_each);
  EXPECT_EQ(mean_shared, mean_each);
  EXPECT_EQ(variance_shared, variance_each);
  EXPECT_EQ(shared->MeanAtObservations(), each->MeanAtObservations());
}

TEST(GaussianProcessTest, ADiagonalNoiseCovarianceIsANoisePerObservation) {
  Eigen::VectorXd noises(5);
  noises << 0.05, 0.1, 0.02, 0.3, 0.07;
  const Eigen::MatrixXd covariance = noises.asDiagonal();
  absl::StatusOr<GaussianProcess> each =
      GaussianProcess::Create(Kernel2d(), 0.05, noises, Points(), Values());
  absl::StatusOr<GaussianProcess> full =
      GaussianProcess::CreateWithNoiseCovariance(Kernel2d(), 0.05, covariance, Points(), Values());
  ASSERT_TRUE(each.ok() && full.ok());
  Eigen::MatrixXd queries(2, 2);
  queries << 0.5, 0.0,  //
      0.5, 1.0;
  Eigen::VectorXd mean_each, variance_each, mean_full, variance_full;
  each->Predict(queries, &mean_each, &variance_each);
  full->Predict(queries, &mean_full, &variance_full);
  EXPECT_TRUE(mean_full.isApprox(mean_each, 1e-12));
  EXPECT_TRUE(variance_full.isApprox(variance_each, 1e-12));
  EXPECT_TRUE(full->MeanAtObservations().isApprox(each->MeanAtObservations(), 1e-12));
}

TEST(GaussianProcessTest, CorrelatedNoiseGivesTheDensePosterior) {
  // A correlated error covariance R: the posterior mean at the observations
  // is K (K + R)^-1 y and at a new point k^T (K + R)^-1 y, with variance
  // s - k^T (K + R)^-1 k; an observation added later has its own error.
  Eigen::MatrixXd root(5, 5);
  root << 0.3, 0.1, 0.0, 0.05, 0.0,  //
      0.0, 0.2, 0.1, 0.0, 0.02,      //
      0.1, 0.0, 0.25, 0.0, 0.0,      //
      0.0, 0.05, 0.0, 0.2, 0.1,      //
      0.02, 0.0, 0.0, 0.1, 0.3;
  const Eigen::MatrixXd noise = root * root.transpose();
  absl::StatusOr<GaussianProcess> process =
      GaussianProcess::CreateWithNoiseCovariance(Kernel2d(), 0.04, noise, Points(), Values());
  ASSERT_TRUE(process.ok()) << process.status();
  const Eigen::MatrixXd gram = Kernel2d().Covariance(Points());
  const Eigen::MatrixXd inverse = (gram + noise).inverse();
  EXPECT_TRUE(process->MeanAtObservations().isApprox(gram * inverse * Values(), 1e-9))
      << process->MeanAtObservations().transpose();
  Eigen::VectorXd x(2);
  x << 0.55, 0.35;
  Eigen::VectorXd mean, variance;
  process->Predict(x, &mean, &variance);
  const Eigen::VectorXd cross = Kernel2d().CrossCovariance(Points(), x).col(0);
  EXPECT_NEAR(mean[0], cross.dot(inverse * Values()), 1e-9);
  EXPECT_NEAR(variance[0], 1.5 - cross.dot(inverse * cross), 1e-9);

  // A sixth observation with its own noise: the dense block-diagonal form.
  process->AddObservation(x, 0.7, 0.04);
  Eigen::MatrixXd points(2, 6);
  points << Points(), x;
  Eigen::VectorXd values(6);
  values << Values(), 0.7;
  Eigen::MatrixXd noise6 = Eigen::MatrixXd::Zero(6, 6);
  noise6.topLeftCorner(5, 5) = noise;
  noise6(5, 5) = 0.04;
  const Eigen::MatrixXd gram6 = Kernel2d().Covariance(points);
  EXPECT_TRUE(
      process->MeanAtObservations().isApprox(gram6 * (gram6 + noise6).inverse() * values, 1e-9))
      << process->MeanAtObservations().transpose();
}

}  // namespace
}  // namespace vernier::suggest
