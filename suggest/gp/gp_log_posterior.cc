#include "suggest/gp/gp_log_posterior.h"

#include <algorithm>
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
// The warp's log concentrations: N(0, 0.5^2), within log(0.1) to log(10).
// Tighter than BoTorch's N(0, 0.75) for its Kumaraswamy warp: with that
// spread, kept only with evidence, the misscaled functions gained less
// (docs/benchmarks.md, "Parameters on the wrong scale").
constexpr double kWarpPriorDeviation = 0.5;
constexpr double kMaxLogConcentration = 2.302585092994046;  // log(10)

}  // namespace

GpLogPosterior::GpLogPosterior(std::vector<bool> categorical, const Eigen::MatrixXd& points,
                               Eigen::VectorXd values, std::vector<bool> warped)
    : categorical_(std::move(categorical)), values_(std::move(values)), warped_(std::move(warped)) {
  ABSL_RAW_CHECK(points.cols() == values_.size(), "GpLogPosterior: one value per point");
  ABSL_RAW_CHECK(warped_.empty() || warped_.size() == categorical_.size(),
                 "GpLogPosterior: one warping flag per coordinate");
  const Eigen::Index n = points.cols();
  const int d = dimension();
  for (size_t j = 0; j < warped_.size(); ++j) {
    ABSL_RAW_CHECK(!(warped_[j] && categorical_[j]),
                   "GpLogPosterior: a categorical coordinate warped");
    if (warped_[j]) warped_indices_.push_back(static_cast<int>(j));
  }
  warped_coordinates_.resize(warped_count(), n);
  for (int k = 0; k < warped_count(); ++k)
    warped_coordinates_.row(k) = points.row(warped_indices_[k]);
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
  // A warped coordinate's distances depend on theta: computed at each
  // evaluation (warped pair distances), 0 here.
  for (int j : warped_indices_) pair_distances_.row(j).setZero();
}

Eigen::VectorXd GpLogPosterior::PriorMean() const {
  Eigen::VectorXd mean(parameter_count());
  mean.head(dimension())
      .setConstant(std::log(kLengthScalePriorMedianPerRootDimension) + 0.5 * std::log(dimension()));
  mean[dimension()] = kSignalVariancePriorMean;
  mean[dimension() + 1] = kNoiseVariancePriorMean;
  mean.tail(2 * warped_count()).setZero();
  return mean;
}

Eigen::VectorXd GpLogPosterior::PriorStandardDeviation() const {
  Eigen::VectorXd deviation(parameter_count());
  deviation.head(dimension()).setConstant(std::sqrt(3.0));
  deviation[dimension()] = kSignalVariancePriorDeviation;
  deviation[dimension() + 1] = kNoiseVariancePriorDeviation;
  deviation.tail(2 * warped_count()).setConstant(kWarpPriorDeviation);
  return deviation;
}

Eigen::VectorXd GpLogPosterior::LowerBounds() const {
  Eigen::VectorXd bounds(parameter_count());
  bounds.head(dimension()).setConstant(kMinLogLengthScale);
  bounds[dimension()] = kMinLogSignalVariance;
  bounds[dimension() + 1] = kMinLogNoiseVariance;
  bounds.tail(2 * warped_count()).setConstant(-kMaxLogConcentration);
  return bounds;
}

Eigen::VectorXd GpLogPosterior::UpperBounds() const {
  Eigen::VectorXd bounds(parameter_count());
  bounds.head(dimension()).setConstant(kMaxLogLengthScale);
  bounds[dimension()] = kMaxLogSignalVariance;
  bounds[dimension() + 1] = kMaxLogNoiseVariance;
  bounds.tail(2 * warped_count()).setConstant(kMaxLogConcentration);
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

double GpLogPosterior::NoiseVariance(int dimension, const Eigen::VectorXd& theta) {
  return std::exp(theta[dimension + 1]);
}

InputWarp GpLogPosterior::Warp(const Eigen::VectorXd& theta) const { return Warp(warped_, theta); }

InputWarp GpLogPosterior::Warp(const std::vector<bool>& warped, const Eigen::VectorXd& theta) {
  const Eigen::Index d = static_cast<Eigen::Index>(warped.size());
  const Eigen::Index c = std::count(warped.begin(), warped.end(), true);
  if (c == 0 || theta.size() == d + 2) return InputWarp();
  ABSL_RAW_CHECK(theta.size() == d + 2 + 2 * c, "GpLogPosterior: theta size for the warp");
  return InputWarp(warped, theta.segment(d + 2, c), theta.tail(c));
}

double GpLogPosterior::NegativeLogPosterior(const Eigen::VectorXd& theta,
                                            Eigen::VectorXd* gradient) const {
  ABSL_RAW_CHECK(theta.size() == parameter_count(), "GpLogPosterior: theta size");
  const int d = dimension();
  const Eigen::Index n = size();
  const Eigen::ArrayXd inverse_squared_lengths = (-2.0 * theta.head(d).array()).exp();
  const double signal_variance = std::exp(theta[d]);
  const double noise_variance = NoiseVariance(d, theta);

  // Warped coordinates: their values and derivatives in log a and log b at
  // every point (columns: the warped coordinates, contiguous), and their
  // pairs' differences and squared distances (pairs in the order of
  // pair_distances_; the differences serve the gradient too).
  const int c = warped_count();
  Eigen::MatrixXd warped_values(n, c);
  Eigen::MatrixXd warped_by_a(n, c);
  Eigen::MatrixXd warped_by_b(n, c);
  Eigen::MatrixXd warped_differences(n * (n - 1) / 2, c);
  Eigen::MatrixXd warped_distances(n * (n - 1) / 2, c);
  Eigen::VectorXd warped_inverse_squared_lengths(c);
  for (int k = 0; k < c; ++k) {
    const double concentration_a = std::exp(theta[d + 2 + k]);
    const double concentration_b = std::exp(theta[d + 2 + c + k]);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double x = warped_coordinates_(k, i);
      if (InputWarp::Inside(x)) {
        InputWarp::ValueWithGradient(x, concentration_a, concentration_b, &warped_values(i, k),
                                     &warped_by_a(i, k), &warped_by_b(i, k));
      } else {
        warped_values(i, k) = x;
        warped_by_a(i, k) = warped_by_b(i, k) = 0.0;
      }
    }
    Eigen::Index pair = 0;
    for (Eigen::Index b = 0; b + 1 < n; ++b) {
      const Eigen::Index after = n - b - 1;
      warped_differences.col(k).segment(pair, after) =
          (warped_values.col(k).tail(after).array() - warped_values(b, k)).matrix();
      pair += after;
    }
    warped_distances.col(k) = warped_differences.col(k).array().square().matrix();
    warped_inverse_squared_lengths[k] = inverse_squared_lengths[warped_indices_[k]];
  }

  // Scaled squared distances of all pairs, then the covariance.
  Eigen::RowVectorXd squared_distances =
      inverse_squared_lengths.matrix().transpose() * pair_distances_;
  if (c > 0) squared_distances += (warped_distances * warped_inverse_squared_lengths).transpose();
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
  if (c > 0) {
    const Eigen::VectorXd warped_sums = warped_distances.transpose() * length_weights;
    for (int k = 0; k < c; ++k) {
      (*gradient)[warped_indices_[k]] =
          -0.5 * signal_variance * warped_sums[k] * warped_inverse_squared_lengths[k];
    }
  }
  (*gradient)[d] = -0.5 * signal_variance * signal_sum;
  (*gradient)[d + 1] = -0.5 * noise_variance * diagonal_sum;
  // dK_ab/dlog a_j = -s * ShapeSlope / l_j^2 * (u_a - u_b) (du_a - du_b),
  // u the warped coordinate (and the same in log b).
  for (int k = 0; k < c; ++k) {
    double by_a = 0.0;
    double by_b = 0.0;
    pair = 0;
    for (Eigen::Index b = 0; b + 1 < n; ++b) {
      const Eigen::Index after = n - b - 1;
      const Eigen::ArrayXd weighted = length_weights.segment(pair, after).array() *
                                      warped_differences.col(k).segment(pair, after).array();
      by_a += (weighted * (warped_by_a.col(k).tail(after).array() - warped_by_a(b, k))).sum();
      by_b += (weighted * (warped_by_b.col(k).tail(after).array() - warped_by_b(b, k))).sum();
      pair += after;
    }
    const double scale = 0.5 * signal_variance * warped_inverse_squared_lengths[k];
    (*gradient)[d + 2 + k] = scale * by_a;
    (*gradient)[d + 2 + c + k] = scale * by_b;
  }
  gradient->array() += standardized / prior_deviation;
  return value;
}

}  // namespace vernier::suggest
