#ifndef VERNIER_SUGGEST_GP_INPUT_WARP_FITTER_H_
#define VERNIER_SUGGEST_GP_INPUT_WARP_FITTER_H_

#include <Eigen/Dense>
#include <vector>

namespace vernier::suggest {

// Fits an input warp (InputWarp) beside a plain fit of a Gaussian
// process's hyper-parameters and keeps it only with evidence. On at most
// `fit_points` of the trials (the best, latest and spread, as
// TrainingSetSelector picks them), the plain model is fitted again from
// `plain` and the warped one from that with the identity warp (one L-BFGS
// start of `evaluations`); the warp is kept when it lowers the negative log
// posterior there by more than `evidence` per warp parameter (two per
// warped coordinate). Draws no random numbers: when the warp is not kept,
// the caller's model is exactly its plain one.
class InputWarpFitter {
 public:
  struct Options {
    int evaluations = 60;
    double evidence = 0.5;
    int fit_points = 50;
    // Evaluations of the plain model's refit on the chosen trials.
    int refit_evaluations = 50;
  };

  explicit InputWarpFitter(Options options) : options_(options) {}

  // `plain`: theta fitted on `points` (d x n) and `values` without a warp;
  // `warped`: GpLogPosterior's flags. Returns the warped theta
  // (GpLogPosterior::Warp reads the warp back) or `plain`.
  Eigen::VectorXd Fit(const std::vector<bool>& categorical, const std::vector<bool>& warped,
                      const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                      const Eigen::VectorXd& plain) const;

 private:
  Options options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_INPUT_WARP_FITTER_H_
