#include "suggest/gp/hyperparameter_fitter.h"

#include <limits>

#include "absl/status/status.h"
#include "suggest/gp/bounded_lbfgs.h"

namespace vernier::suggest {

absl::StatusOr<Eigen::VectorXd> HyperparameterFitter::Fit(
    const GpLogPosterior& objective, std::span<const Eigen::VectorXd> starts) const {
  const Eigen::VectorXd lower = objective.LowerBounds();
  const Eigen::VectorXd upper = objective.UpperBounds();
  BoundedLbfgs::Result best;
  best.value = std::numeric_limits<double>::infinity();
  BoundedLbfgs::Options lbfgs;
  lbfgs.max_evaluations = options_.max_evaluations;
  lbfgs.relative_tolerance = options_.relative_tolerance;
  const BoundedLbfgs minimizer(lbfgs);
  for (const Eigen::VectorXd& start : starts) {
    const BoundedLbfgs::Result result = minimizer.Minimize(
        [&objective](const Eigen::VectorXd& theta, Eigen::VectorXd* gradient) {
          return objective.NegativeLogPosterior(theta, gradient);
        },
        start.cwiseMax(lower).cwiseMin(upper), lower, upper);
    if (result.value < best.value) best = result;
  }
  if (!(best.value < std::numeric_limits<double>::infinity())) {
    return absl::FailedPreconditionError(
        "hyper-parameter fit: the covariance was indefinite at every start");
  }
  return best.point;
}

}  // namespace vernier::suggest
