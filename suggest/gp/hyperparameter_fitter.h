#ifndef VERNIER_SUGGEST_GP_HYPERPARAMETER_FITTER_H_
#define VERNIER_SUGGEST_GP_HYPERPARAMETER_FITTER_H_

#include <Eigen/Dense>
#include <span>

#include "absl/status/statusor.h"
#include "suggest/gp/gp_log_posterior.h"

namespace vernier::suggest {

// MAP hyper-parameters: minimises a GpLogPosterior with NLopt's L-BFGS
// (analytic gradients, box constraints) from each start, and returns the
// best point any run reached. A run that stops on a round-off or line-search
// failure still counts with the best point it evaluated.
class HyperparameterFitter {
 public:
  struct Options {
    // Objective evaluations per start.
    int max_evaluations = 60;
    double relative_tolerance = 1e-6;
  };

  explicit HyperparameterFitter(Options options) : options_(options) {}

  // Starts outside the box are clamped into it. FAILED_PRECONDITION when no
  // start reached a finite value (every covariance was indefinite).
  absl::StatusOr<Eigen::VectorXd> Fit(const GpLogPosterior& objective,
                                      std::span<const Eigen::VectorXd> starts) const;

 private:
  Options options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_HYPERPARAMETER_FITTER_H_
