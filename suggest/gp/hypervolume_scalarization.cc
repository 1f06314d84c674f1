#include "suggest/gp/hypervolume_scalarization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "suggest/random_numbers.h"

namespace vernier::suggest {
namespace {

// Components of a direction this close to 0 would make 1 / w_i overflow the
// scalarisation; they are raised to it (the direction stays almost on an
// axis).
constexpr double kSmallestWeight = 1e-6;

}  // namespace

HypervolumeScalarization::HypervolumeScalarization(Eigen::VectorXd reference, int directions,
                                                   std::mt19937_64& rng)
    : reference_(std::move(reference)),
      inverse_weights_(reference_.size(), std::max(directions, 1)) {
  const Eigen::Index m = reference_.size();
  for (Eigen::Index k = 0; k < inverse_weights_.cols(); ++k) {
    Eigen::VectorXd w(m);
    for (Eigen::Index i = 0; i < m; ++i) w[i] = std::abs(StandardNormal(rng));
    const double norm = w.norm();
    if (norm > 0) {
      w /= norm;
    } else {
      w.setConstant(1.0 / std::sqrt(static_cast<double>(m)));
    }
    for (Eigen::Index i = 0; i < m; ++i) {
      inverse_weights_(i, k) = 1.0 / std::max(w[i], kSmallestWeight);
    }
  }
}

Eigen::VectorXd HypervolumeScalarization::Scalarize(const Eigen::VectorXd& y) const {
  const Eigen::Index m = reference_.size();
  const Eigen::VectorXd above = (y - reference_).cwiseMax(0.0);
  Eigen::VectorXd values(inverse_weights_.cols());
  for (Eigen::Index k = 0; k < inverse_weights_.cols(); ++k) {
    values[k] =
        std::pow(above.cwiseProduct(inverse_weights_.col(k)).minCoeff(), static_cast<double>(m));
  }
  return values;
}

void HypervolumeScalarization::Include(const Eigen::VectorXd& y, Eigen::VectorXd& best) const {
  best = best.cwiseMax(Scalarize(y));
}

double HypervolumeScalarization::Improvement(const Eigen::VectorXd& y,
                                             const Eigen::VectorXd& best) const {
  return (Scalarize(y) - best).cwiseMax(0.0).mean();
}

double HypervolumeScalarization::Mean(const Eigen::VectorXd& y) const {
  return Scalarize(y).mean();
}

double HypervolumeScalarization::ExpectedImprovement(const Eigen::VectorXd& mean,
                                                     const Eigen::VectorXd& deviation,
                                                     const Eigen::MatrixXd& normals,
                                                     const Eigen::VectorXd& best) const {
  if (normals.cols() == 0) return Improvement(mean, best);
  double sum = 0;
  for (Eigen::Index j = 0; j < normals.cols(); ++j) {
    sum += Improvement(mean + deviation.cwiseProduct(normals.col(j)), best);
  }
  return sum / static_cast<double>(normals.cols());
}

}  // namespace vernier::suggest
