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

void MaternKernel::SquaredDistances(const Eigen::MatrixXd& by_dimension, const double* x,
                                   Eigen::ArrayXd* squared) const {
  squared->setZero(by_dimension.rows());
  for (int j = 0; j < dimension(); ++j) {
    if (categorical_[j]) {
      *squared += (by_dimension.col(j).array() != x[j]).cast<double>() *
                  inverse_squared_length_scales_[j];
    } else {
      *squared += (by_dimension.col(j).array() - x[j]).square() * inverse_squared_length_scales_[j];
    }
  }
}

Eigen::MatrixXd MaternKernel::Covariance(const Eigen::MatrixXd& points) const {
  const Eigen::Index n = points.cols();
  const Eigen::MatrixXd by_dimension = points.transpose();
  Eigen::MatrixXd covariance(n, n);
  Eigen::ArrayXd squared;
  for (Eigen::Index b = 0; b < n; ++b) {
    SquaredDistances(by_dimension, points.col(b).data(), &squared);
    covariance(b, b) = signal_variance_;
    for (Eigen::Index a = b + 1; a < n; ++a) {
      covariance(a, b) = covariance(b, a) = signal_variance_ * Shape(squared[a]);
    }
  }
  return covariance;
}

Eigen::MatrixXd MaternKernel::CrossCovariance(const Eigen::MatrixXd& points,
                                              const Eigen::MatrixXd& others) const {
  const Eigen::MatrixXd by_dimension = points.transpose();
  Eigen::MatrixXd covariance(points.cols(), others.cols());
  Eigen::ArrayXd squared;
  for (Eigen::Index b = 0; b < others.cols(); ++b) {
    SquaredDistances(by_dimension, others.col(b).data(), &squared);
    for (Eigen::Index a = 0; a < points.cols(); ++a) {
      covariance(a, b) = signal_variance_ * Shape(squared[a]);
    }
  }
  return covariance;
}

void MaternKernel::CrossCovarianceWithGradient(const Eigen::VectorXd& x,
                                               const Eigen::MatrixXd& points,
                                               Eigen::VectorXd* covariance,
                                               Eigen::MatrixXd* gradient) const {
  const Eigen::Index n = points.cols();
  const Eigen::MatrixXd by_dimension = points.transpose();
  Eigen::ArrayXd squared;
  SquaredDistances(by_dimension, x.data(), &squared);
  covariance->resize(n);
  Eigen::ArrayXd slopes(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    (*covariance)[i] = signal_variance_ * Shape(squared[i]);
    slopes[i] = signal_variance_ * ShapeSlope(squared[i]);
  }
  // dk/dx_j = -s * ShapeSlope * (x_j - p_j) / l_j^2.
  gradient->resize(n, dimension());
  for (int j = 0; j < dimension(); ++j) {
    if (categorical_[j]) {
      gradient->col(j).setZero();
    } else {
      gradient->col(j) = ((-slopes) * (x[j] - by_dimension.col(j).array())) *
                         inverse_squared_length_scales_[j];
    }
  }
}

}  // namespace vernier::suggest
