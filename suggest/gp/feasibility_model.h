#ifndef VERNIER_SUGGEST_GP_FEASIBILITY_MODEL_H_
#define VERNIER_SUGGEST_GP_FEASIBILITY_MODEL_H_

#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {

// The chance that a trial at a point ends with a value: that it is not
// INFEASIBLE or FAILED (a training run that diverged, ran out of memory).
// A Gaussian process regresses the trials' labels (1 with a value, -1
// without) around their mean, so a point far from every trial keeps about
// the study's share of trials with a value; the chance is the posterior's
// probability that the label is positive, Phi(mean / sqrt(variance +
// noise)).
//
// An acquisition is multiplied by the chance raised to `exponent` (its log
// plus `exponent` times the log chance: LogWeight), as expected improvement
// times the probability of feasibility (Gardner et al., "Bayesian
// Optimization with Inequality Constraints", 2014), so the search stays off
// a failure region's inside without a made-up value there dragging the
// objective's model down along its edge, where the best points often lie
// (the best learning rate is just short of divergence).
// Pure: no I/O, no randomness.
class FeasibilityModel {
 public:
  // `points`: one column per ended trial; `feasible`: whether it ended with
  // a value. The kernel and noise are fitted to CentredLabels(feasible).
  // INVALID_ARGUMENT without labels or with one count of labels and another
  // of points; FAILED_PRECONDITION when the covariance cannot be factored.
  static absl::StatusOr<FeasibilityModel> Create(MaternKernel kernel, double noise_variance,
                                                 Eigen::MatrixXd points,
                                                 const std::vector<bool>& feasible,
                                                 double exponent = 1);
  // The labels, 1 or -1, of `feasible`, less their mean (LabelMean).
  static Eigen::VectorXd CentredLabels(const std::vector<bool>& feasible);
  static double LabelMean(const std::vector<bool>& feasible);

  // log P(feasible) at each column of `points`.
  Eigen::VectorXd LogProbability(const Eigen::MatrixXd& points) const;
  // `exponent` x log P(feasible) at each column of `points`: what the log of
  // an acquisition gains.
  Eigen::VectorXd LogWeight(const Eigen::MatrixXd& points) const;
  // LogWeight at one point, with its gradient in the point's coordinates.
  double LogWeightWithGradient(const Eigen::VectorXd& x, Eigen::VectorXd* gradient) const;

 private:
  FeasibilityModel(GaussianProcess labels, double label_mean, double exponent)
      : model_(std::move(labels)), offset_(label_mean), exponent_(exponent) {}

  GaussianProcess model_;
  // The labels' mean, added back to the posterior mean.
  double offset_;
  double exponent_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_FEASIBILITY_MODEL_H_
