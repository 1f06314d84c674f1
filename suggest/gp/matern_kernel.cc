#include "suggest/gp/matern_kernel.h"

#include <cmath>
#include <utility>

#include "absl/base/internal/raw_logging.h"

namespace vernier::suggest {
namespace {

const double kSqrt5 = std::sqrt(5.0);

}  // namespace

MaternKernel::MaternKernel(std::vector<bool> categorical, Eigen::VectorXd length_scales,
                           double signal_variance)
    : categorical_(std::move(categorical)),
      length_scales_(std::move(length_scales)),
      inverse_squared_length_scales_(length_scales_.array().square().inverse()),
      signal_variance_(signal_variance) {
  ABSL_RAW_CHECK(static_cast<Eigen::Index>(categorical_.size()) == length_scales_.size(),
                 "MaternKernel: one length scale per dimension");
}

double MaternKernel::Shape(double squared_distance) {
  const double r = std::sqrt(squared_distance);
  return (1.0 + kSqrt5 * r + 5.0 / 3.0 * squared_distance) * std::exp(-kSqrt5 * r);
}

double MaternKernel::ShapeSlope(double squared_distance) {
  const double r = std::sqrt(squared_distance);
  return 5.0 / 3.0 * (1.0 + kSqrt5 * r) * std::exp(-kSqrt5 * r);
}

double MaternKernel::SquaredDistance(const double* a, const double* b) const {
  double total = 0.0;
  for (int j = 0; j < dimension(); ++j) {
    const double difference = a[j] - b[j];
    const double d = categorical_[j] ? (difference != 0.0 ? 1.0 : 0.0) : difference * difference;
    total += d * inverse_squared_length_scales_[j];
  }
  return total;
}

double MaternKernel::Covariance(const double* a, const double* b) const {
  return signal_variance_ * Shape(SquaredDistance(a, b));
}

Eigen::MatrixXd MaternKernel::Covariance(const Eigen::MatrixXd& points) const {
  const Eigen::Index n = points.cols();
  Eigen::MatrixXd covariance(n, n);
  for (Eigen::Index b = 0; b < n; ++b) {
    covariance(b, b) = signal_variance_;
    for (Eigen::Index a = b + 1; a < n; ++a) {
      covariance(a, b) = covariance(b, a) = Covariance(points.col(a).data(), points.col(b).data());
    }
  }
  return covariance;
}

Eigen::MatrixXd MaternKernel::CrossCovariance(const Eigen::MatrixXd& points,
                                              const Eigen::MatrixXd& others) const {
  Eigen::MatrixXd covariance(points.cols(), others.cols());
  for (Eigen::Index b = 0; b < others.cols(); ++b) {
    for (Eigen::Index a = 0; a < points.cols(); ++a) {
      covariance(a, b) = Covariance(points.col(a).data(), others.col(b).data());
    }
  }
  return covariance;
}

void MaternKernel::CrossCovarianceWithGradient(const Eigen::VectorXd& x,
                                               const Eigen::MatrixXd& points,
                                               Eigen::VectorXd* covariance,
                                               Eigen::MatrixXd* gradient) const {
  const Eigen::Index n = points.cols();
  covariance->resize(n);
  gradient->resize(n, dimension());
  for (Eigen::Index i = 0; i < n; ++i) {
    const double squared_distance = SquaredDistance(x.data(), points.col(i).data());
    (*covariance)[i] = signal_variance_ * Shape(squared_distance);
    // dk/dx_j = -s * ShapeSlope * (x_j - p_j) / l_j^2.
    const double slope = signal_variance_ * ShapeSlope(squared_distance);
    for (int j = 0; j < dimension(); ++j) {
      (*gradient)(i, j) = categorical_[j]
                              ? 0.0
                              : -slope * (x[j] - points(j, i)) * inverse_squared_length_scales_[j];
    }
  }
}

}  // namespace vernier::suggest
