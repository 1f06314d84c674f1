#include "suggest/gp/input_warp_fitter.h"

#include <utility>

#include "absl/status/statusor.h"
#include "suggest/gp/gp_log_posterior.h"
#include "suggest/gp/hyperparameter_fitter.h"
#include "suggest/gp/training_set_selector.h"

namespace vernier::suggest {

Eigen::VectorXd InputWarpFitter::Fit(const std::vector<bool>& categorical,
                                     const std::vector<bool>& warped, const Eigen::MatrixXd& points,
                                     const Eigen::VectorXd& values,
                                     const Eigen::VectorXd& plain) const {
  // On at most fit_points of the trials, against the plain model fitted
  // again on the same ones.
  Eigen::MatrixXd warp_points = points;
  Eigen::VectorXd warp_values = values;
  const bool subset = points.cols() > options_.fit_points;
  if (subset) {
    const std::vector<int> chosen =
        TrainingSetSelector(categorical).Select(points, values, options_.fit_points);
    warp_points = points(Eigen::all, chosen);
    warp_values = values(chosen);
  }
  const GpLogPosterior unwarped(categorical, warp_points, warp_values);
  Eigen::VectorXd plain_theta = plain;
  HyperparameterFitter::Options fit;
  if (subset) {
    fit.max_evaluations = options_.refit_evaluations;
    absl::StatusOr<Eigen::VectorXd> refit = HyperparameterFitter(fit).Fit(unwarped, {&plain, 1});
    if (!refit.ok() || !refit->allFinite()) return plain;
    plain_theta = *std::move(refit);
  }
  const GpLogPosterior posterior(categorical, warp_points, warp_values, warped);
  // From the plain fit with the identity warp, where the two posteriors
  // agree (but for the squeeze off the bounds).
  const Eigen::Index warp_parameters = posterior.parameter_count() - plain.size();
  Eigen::VectorXd start(posterior.parameter_count());
  start << plain_theta, Eigen::VectorXd::Zero(warp_parameters);
  fit.max_evaluations = options_.evaluations;
  absl::StatusOr<Eigen::VectorXd> theta = HyperparameterFitter(fit).Fit(posterior, {&start, 1});
  if (!theta.ok() || !theta->allFinite()) return plain;
  const double gain = unwarped.NegativeLogPosterior(plain_theta, nullptr) -
                      posterior.NegativeLogPosterior(*theta, nullptr);
  return gain > options_.evidence * static_cast<double>(warp_parameters) ? *theta : plain;
}

}  // namespace vernier::suggest
