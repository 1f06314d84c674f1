#include "suggest/gp/gp_log_posterior.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "absl/base/internal/raw_logging.h"
#include "absl/status/statusor.h"
#include "suggest/gp/jittered_cholesky.h"

namespace vernier::suggest {
namespace {

constexpr double kLengthScalePriorMedianPerRootDimension = 0.34;
constexpr double kSignalVariancePriorMean = 0.0;
constexpr double kSignalVariancePriorDeviation = 1.0;
constexpr double kNoiseVariancePriorMean = -6.0;
constexpr double kNoiseVariancePriorDeviation = 2.0;
// Boxes, in log space: length scales 0.01 to 1000 unit-cube widths, signal
// variance 0.01 to 100, noise variance 1e-6 to 1.
constexpr double kMinLogLengthScale = -4.605170185988091;  // log(0.01)
constexpr double kMaxLogLengthScale = 6.907755278982137;   // log(1000)
constexpr double kMinLogSignalVariance = -4.605170185988091;
constexpr double kMaxLogSignalVariance = 4.605170185988091;
constexpr double kMinLogNoiseVariance = -13.815510557964274;  // log(1e-6)
constexpr double kMaxLogNoiseVariance = 0.0;

}  // namespace

GpLogPosterior::GpLogPosterior(std::vector<bool> categorical, const Eigen::MatrixXd& points,
                               Eigen::VectorXd values)
    : categorical_(std::move(categorical)), values_(std::move(values)) {
  ABSL_RAW_CHECK(points.cols() == values_.size(), "GpLogPosterior: one value per point");
  const Eigen::Index n = points.cols();
  const int d = dimension();
  pair_distances_.resize(d, n * (n - 1) / 2);
  Eigen::Index pair = 0;
  for (Eigen::Index b = 0; b < n; ++b) {
    for (Eigen::Index a = b + 1; a < n; ++a, ++pair) {
      for (int j = 0; j < d; ++j) {
        const double difference = points(j, a) - points(j, b);
        pair_distances_(j, pair) =
            categorical_[j] ? (difference != 0.0 ? 1.0 : 0.0) : difference * difference;
      }
    }
  }
}

Eigen::VectorXd GpLogPosterior::PriorMean() const {
  Eigen::VectorXd mean(parameter_count());
  mean.head(dimension())
      .setConstant(std::log(kLengthScalePriorMedianPerRootDimension) + 0.5 * std::log(dimension()));
  mean[dimension()] = kSignalVariancePriorMean;
  mean[dimension() + 1] = kNoiseVariancePriorMean;
  return mean;
}

Eigen::VectorXd GpLogPosterior::PriorStandardDeviation() const {
  Eigen::VectorXd deviation(parameter_count());
  deviation.head(dimension()).setConstant(std::sqrt(3.0));
  deviation[dimension()] = kSignalVariancePriorDeviation;
  deviation[dimension() + 1] = kNoiseVariancePriorDeviation;
  return deviation;
}

Eigen::VectorXd GpLogPosterior::LowerBounds() const {
  Eigen::VectorXd bounds(parameter_count());
  bounds.head(dimension()).setConstant(kMinLogLengthScale);
  bounds[dimension()] = kMinLogSignalVariance;
  bounds[dimension() + 1] = kMinLogNoiseVariance;
  return bounds;
}

Eigen::VectorXd GpLogPosterior::UpperBounds() const {
  Eigen::VectorXd bounds(parameter_count());
  bounds.head(dimension()).setConstant(kMaxLogLengthScale);
  bounds[dimension()] = kMaxLogSignalVariance;
  bounds[dimension() + 1] = kMaxLogNoiseVariance;
  return bounds;
}

MaternKernel GpLogPosterior::Kernel(const Eigen::VectorXd& theta) const {
  return Kernel(categorical_, theta);
}

MaternKernel GpLogPosterior::Kernel(const std::vector<bool>& categorical,
                                    const Eigen::VectorXd& theta) {
  const Eigen::Index d = static_cast<Eigen::Index>(categorical.size());
  return MaternKernel(categorical, theta.head(d).array().exp(), std::exp(theta[d]));
}

double GpLogPosterior::NoiseVariance(const Eigen::VectorXd& theta) {
  return std::exp(theta[theta.size() - 1]);
}

double GpLogPosterior::NegativeLogPosterior(const Eigen::VectorXd& theta,
                                            Eigen::VectorXd* gradient) const {
  ABSL_RAW_CHECK(theta.size() == parameter_count(), "GpLogPosterior: theta size");
  const int d = dimension();
  const Eigen::Index n = size();
  const Eigen::ArrayXd inverse_squared_lengths = (-2.0 * theta.head(d).array()).exp();
  const double signal_variance = std::exp(theta[d]);
  const double noise_variance = NoiseVariance(theta);

  // Scaled squared distances of all pairs, then the covariance.
  const Eigen::RowVectorXd squared_distances =
      inverse_squared_lengths.matrix().transpose() * pair_distances_;
  // Shape and its slope share sqrt(5) r and exp(-sqrt(5) r), computed once
  // for all pairs (MaternKernel::Shape and ShapeSlope, vectorised).
  const Eigen::ArrayXd roots = std::sqrt(5.0) * squared_distances.array().sqrt().transpose();
  const Eigen::ArrayXd decays = (-roots).exp();
  const Eigen::ArrayXd shapes =
      (1.0 + roots + 5.0 / 3.0 * squared_distances.array().transpose()) * decays;
  Eigen::MatrixXd covariance(n, n);
  Eigen::Index pair = 0;
  for (Eigen::Index b = 0; b < n; ++b) {
    covariance(b, b) = signal_variance + noise_variance;
    for (Eigen::Index a = b + 1; a < n; ++a, ++pair) {
      covariance(a, b) = covariance(b, a) = signal_variance * shapes[pair];
    }
  }
  absl::StatusOr<JitteredCholesky> cholesky = JitteredCholesky::Factor(covariance);
  if (!cholesky.ok()) {
    if (gradient != nullptr) gradient->setZero(parameter_count());
    return std::numeric_limits<double>::infinity();
  }
  const Eigen::MatrixXd& factor = cholesky->lower();
  Eigen::VectorXd weights = factor.triangularView<Eigen::Lower>().solve(values_);
  const double data_fit = 0.5 * weights.squaredNorm();
  factor.triangularView<Eigen::Lower>().transpose().solveInPlace(weights);
  const double log_determinant = factor.diagonal().array().log().sum();

  const Eigen::VectorXd prior_mean = PriorMean();
  const Eigen::ArrayXd prior_deviation = PriorStandardDeviation().array();
  const Eigen::ArrayXd standardized = (theta - prior_mean).array() / prior_deviation;
  const double prior = 0.5 * standardized.square().sum();
  const double value =
      data_fit + log_determinant + 0.5 * n * std::log(2 * std::numbers::pi) + prior;
  if (gradient == nullptr) return value;

  // W = a a^T - K^-1 (its lower triangle is all that is read).
  const Eigen::MatrixXd inverse = cholesky->InverseLowerTriangle();

  // Off-diagonal pairs count twice: W is symmetric.
  Eigen::VectorXd length_weights(squared_distances.size());
  double signal_sum = 0.0;
  pair = 0;
  for (Eigen::Index b = 0; b < n; ++b) {
    for (Eigen::Index a = b + 1; a < n; ++a, ++pair) {
      const double w = 2.0 * (weights[a] * weights[b] - inverse(a, b));
      signal_sum += w * shapes[pair];
      length_weights[pair] = w * 5.0 / 3.0 * (1.0 + roots[pair]) * decays[pair];
    }
  }
  double diagonal_sum = 0.0;
  for (Eigen::Index a = 0; a < n; ++a) diagonal_sum += weights[a] * weights[a] - inverse(a, a);
  signal_sum += diagonal_sum;

  gradient->resize(parameter_count());
  // dK_ab/dlog l_j = s * ShapeSlope * d_j / l_j^2.
  gradient->head(d) =
      -0.5 * signal_variance * (pair_distances_ * length_weights).array() * inverse_squared_lengths;
  (*gradient)[d] = -0.5 * signal_variance * signal_sum;
  (*gradient)[d + 1] = -0.5 * noise_variance * diagonal_sum;
  gradient->array() += standardized / prior_deviation;
  return value;
}

}  // namespace vernier::suggest
