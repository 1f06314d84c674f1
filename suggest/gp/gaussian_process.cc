#include "suggest/gp/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/base/internal/raw_logging.h"
#include "suggest/gp/jittered_cholesky.h"

namespace vernier::suggest {
namespace {

// Posterior variances are floored here (relative to the signal variance):
// cancellation can leave tiny negative values at the observed points.
constexpr double kRelativeVarianceFloor = 1e-12;
// Points per block of Predict.
constexpr Eigen::Index kPredictColumns = 64;

}  // namespace

absl::StatusOr<GaussianProcess> GaussianProcess::Create(MaternKernel kernel, double noise_variance,
                                                        Eigen::MatrixXd points,
                                                        Eigen::VectorXd values, InputWarp warp) {
  const Eigen::VectorXd noise_variances = Eigen::VectorXd::Constant(values.size(), noise_variance);
  return Create(std::move(kernel), noise_variance, noise_variances, std::move(points),
                std::move(values), std::move(warp));
}

absl::StatusOr<GaussianProcess> GaussianProcess::Create(MaternKernel kernel, double noise_variance,
                                                        const Eigen::VectorXd& noise_variances,
                                                        Eigen::MatrixXd points,
                                                        Eigen::VectorXd values, InputWarp warp) {
  ABSL_RAW_CHECK(noise_variances.size() == values.size(), "GaussianProcess: one noise per point");
  return Factor(std::move(kernel), noise_variance, noise_variances, Eigen::MatrixXd(),
                std::move(points), std::move(values), std::move(warp));
}

absl::StatusOr<GaussianProcess> GaussianProcess::CreateWithNoiseCovariance(
    MaternKernel kernel, double noise_variance, const Eigen::MatrixXd& noise_covariance,
    Eigen::MatrixXd points, Eigen::VectorXd values, InputWarp warp) {
  ABSL_RAW_CHECK(
      noise_covariance.rows() == values.size() && noise_covariance.cols() == values.size(),
      "GaussianProcess: a noise covariance row and column per point");
  Eigen::MatrixXd off_diagonal_noise = noise_covariance;
  off_diagonal_noise.diagonal().setZero();
  return Factor(std::move(kernel), noise_variance, noise_covariance.diagonal(),
                std::move(off_diagonal_noise), std::move(points), std::move(values),
                std::move(warp));
}

absl::StatusOr<GaussianProcess> GaussianProcess::Factor(MaternKernel kernel, double noise_variance,
                                                        const Eigen::VectorXd& noise_variances,
                                                        Eigen::MatrixXd off_diagonal_noise,
                                                        Eigen::MatrixXd points,
                                                        Eigen::VectorXd values, InputWarp warp) {
  ABSL_RAW_CHECK(points.cols() == values.size(), "GaussianProcess: one value per point");
  ABSL_RAW_CHECK(points.rows() == kernel.dimension(), "GaussianProcess: point dimension");
  if (!warp.identity()) points = warp.Apply(points);
  Eigen::MatrixXd covariance = kernel.Covariance(points);
  if (off_diagonal_noise.size() > 0) covariance += off_diagonal_noise;
  covariance.diagonal() += noise_variances;
  absl::StatusOr<JitteredCholesky> cholesky = JitteredCholesky::Factor(covariance);
  if (!cholesky.ok()) return cholesky.status();
  const double jitter = cholesky->jitter();
  Eigen::VectorXd diagonal_noise = noise_variances.array() + jitter;
  GaussianProcess process(std::move(kernel), std::move(warp), noise_variance, jitter,
                          std::move(points), std::move(values), std::move(diagonal_noise),
                          std::move(off_diagonal_noise), std::move(cholesky->lower()));
  return process;
}

GaussianProcess::GaussianProcess(MaternKernel kernel, InputWarp warp, double noise_variance,
                                 double jitter, Eigen::MatrixXd points, Eigen::VectorXd values,
                                 Eigen::VectorXd diagonal_noise, Eigen::MatrixXd off_diagonal_noise,
                                 Eigen::MatrixXd lower)
    : kernel_(std::move(kernel)),
      warp_(std::move(warp)),
      noise_variance_(noise_variance),
      jitter_(jitter),
      points_(std::move(points)),
      values_(std::move(values)),
      diagonal_noise_(std::move(diagonal_noise)),
      off_diagonal_noise_(std::move(off_diagonal_noise)),
      lower_(std::move(lower)) {
  UpdateWeights();
}

void GaussianProcess::UpdateWeights() {
  weights_ = lower_.triangularView<Eigen::Lower>().solve(values_);
  lower_.triangularView<Eigen::Lower>().transpose().solveInPlace(weights_);
}

Eigen::MatrixXd GaussianProcess::CrossCovarianceTo(const Eigen::MatrixXd& points) const {
  return warp_.identity() ? kernel_.CrossCovariance(points_, points)
                          : kernel_.CrossCovariance(points_, warp_.Apply(points));
}

void GaussianProcess::Predict(const Eigen::MatrixXd& points, Eigen::VectorXd* mean,
                              Eigen::VectorXd* variance) const {
  const Eigen::Index m = points.cols();
  mean->resize(m);
  variance->resize(m);
  const double floor = kRelativeVarianceFloor * kernel_.signal_variance();
  // A few columns at a time: the cross-covariance stays in cache and is
  // not a fresh allocation (fresh pages) the size of all of them.
  for (Eigen::Index start = 0; start < m; start += kPredictColumns) {
    const Eigen::Index width = std::min(kPredictColumns, m - start);
    Eigen::MatrixXd cross = CrossCovarianceTo(points.middleCols(start, width));
    mean->segment(start, width).noalias() = cross.transpose() * weights_;
    lower_.triangularView<Eigen::Lower>().solveInPlace(cross);
    variance->segment(start, width) =
        (kernel_.signal_variance() - cross.colwise().squaredNorm().array())
            .max(floor)
            .matrix()
            .transpose();
  }
}

Eigen::VectorXd GaussianProcess::PredictMean(const Eigen::MatrixXd& points) const {
  Eigen::VectorXd mean(points.cols());
  for (Eigen::Index start = 0; start < points.cols(); start += kPredictColumns) {
    const Eigen::Index width = std::min(kPredictColumns, points.cols() - start);
    mean.segment(start, width).noalias() =
        CrossCovarianceTo(points.middleCols(start, width)).transpose() * weights_;
  }
  return mean;
}

void GaussianProcess::PredictWithGradient(const Eigen::VectorXd& x, double* mean, double* variance,
                                          Eigen::VectorXd* mean_gradient,
                                          Eigen::VectorXd* variance_gradient) const {
  Eigen::VectorXd cross;
  Eigen::MatrixXd cross_gradient;
  if (warp_.identity()) {
    kernel_.CrossCovarianceWithGradient(x, points_, &cross, &cross_gradient);
  } else {
    // Through the warp: dk/dx_j = dk/du_j * du_j/dx_j.
    kernel_.CrossCovarianceWithGradient(warp_.Apply(x), points_, &cross, &cross_gradient);
    cross_gradient = cross_gradient * warp_.Slopes(x).asDiagonal();
  }
  *mean = cross.dot(weights_);
  *mean_gradient = cross_gradient.transpose() * weights_;
  // var = s - k^T K^-1 k; dvar/dx = -2 (dk/dx)^T K^-1 k.
  Eigen::VectorXd solved = lower_.triangularView<Eigen::Lower>().solve(cross);
  const double raw_variance = kernel_.signal_variance() - solved.squaredNorm();
  const double floor = kRelativeVarianceFloor * kernel_.signal_variance();
  if (raw_variance <= floor) {
    *variance = floor;
    *variance_gradient = Eigen::VectorXd::Zero(x.size());
    return;
  }
  *variance = raw_variance;
  lower_.triangularView<Eigen::Lower>().transpose().solveInPlace(solved);
  *variance_gradient = -2.0 * (cross_gradient.transpose() * solved);
}

Eigen::VectorXd GaussianProcess::MeanAtObservations() const {
  // y - Sigma K^-1 y, with Sigma the noise covariance (jitter included).
  Eigen::VectorXd mean = values_ - diagonal_noise_.cwiseProduct(weights_);
  const Eigen::Index correlated = off_diagonal_noise_.rows();
  if (correlated > 0) mean.head(correlated) -= off_diagonal_noise_ * weights_.head(correlated);
  return mean;
}

void GaussianProcess::LeaveOneOut(Eigen::VectorXd* residuals, Eigen::VectorXd* variances) const {
  const Eigen::Index n = lower_.rows();
  // [C^-1]_ii = |L^-1 e_i|^2: the columns of L^-1, which is lower
  // triangular, so column i is solved from row i down.
  Eigen::VectorXd precision(n);
  Eigen::VectorXd column(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index tail = n - i;
    column.head(tail).setZero();
    column[0] = 1.0;
    lower_.bottomRightCorner(tail, tail)
        .triangularView<Eigen::Lower>()
        .solveInPlace(column.head(tail));
    precision[i] = column.head(tail).squaredNorm();
  }
  *residuals = weights_.cwiseQuotient(precision);
  *variances = precision.cwiseInverse();
}

void GaussianProcess::AddObservation(const Eigen::VectorXd& x, double value,
                                     double noise_variance) {
  const Eigen::VectorXd warped = warp_.Apply(x);
  const Eigen::Index n = points_.cols();
  Eigen::VectorXd cross(n);
  for (Eigen::Index i = 0; i < n; ++i)
    cross[i] = kernel_.Covariance(warped.data(), points_.col(i).data());
  const Eigen::VectorXd row = lower_.triangularView<Eigen::Lower>().solve(cross);
  const double self = kernel_.signal_variance() + noise_variance + jitter_;
  // A point on top of an observed one leaves (almost) nothing: keep the
  // factor positive definite with the floor.
  const double pivot_squared =
      std::max(self - row.squaredNorm(), kRelativeVarianceFloor * kernel_.signal_variance());

  points_.conservativeResize(Eigen::NoChange, n + 1);
  points_.col(n) = warped;
  values_.conservativeResize(n + 1);
  values_[n] = value;
  diagonal_noise_.conservativeResize(n + 1);
  diagonal_noise_[n] = noise_variance + jitter_;
  lower_.conservativeResize(n + 1, n + 1);
  lower_.row(n).head(n) = row.transpose();
  lower_.col(n).head(n).setZero();
  lower_(n, n) = std::sqrt(pivot_squared);
  UpdateWeights();
}

}  // namespace vernier::suggest
