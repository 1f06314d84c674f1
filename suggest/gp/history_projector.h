#ifndef VERNIER_SUGGEST_GP_HISTORY_PROJECTOR_H_
#define VERNIER_SUGGEST_GP_HISTORY_PROJECTOR_H_

#include <Eigen/Dense>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {

// Projects the observations a capped model leaves out onto the model
// points, so that a Gaussian process over `capacity` points learns from
// every trial of a long history: a local form of the fully independent
// training conditional (FITC; Snelson and Ghahramani 2006), with the model
// points as the inducing points.
//
// The model points' latent values u have the prior N(0, K_zz), and each
// model point's own observation is u_i plus the noise. An observation y_j
// at x_j left out of the model is read through its `neighbours` nearest
// model points S (by the kernel's covariance): f(x_j) is the prior
// conditional's mean given u_S, b_j^T u_S with b_j = K_SS^-1 k_S(x_j),
// plus an independent error whose variance is the noise plus the
// conditional's variance, r_j = k(x_j, x_j) - k_S(x_j)^T b_j. So a trial on
// top of a model point counts as a repeat of it, and a trial far from every
// model point adds almost nothing. Together the observations give u the
// likelihood exp(-u^T W u / 2 + h^T u), with
//   W = I / noise + sum_j b_j b_j^T / (noise + r_j),
//   h = y_z / noise + sum_j b_j y_j / (noise + r_j),
// which is that of pseudo-observations h' = W^-1 h of u with the error
// covariance W^-1: a Gaussian process over the model points given these
// (GaussianProcess::CreateWithNoiseCovariance) has exactly the
// posterior of u that every observation gives, and predicts anywhere
// through the prior's conditional as an exact one does. With every model
// point a neighbour and every left-out trial on a model point, it is the
// exact posterior of the whole history.
//
// Cost: one kernel evaluation per left-out trial and model point, a solve
// of `neighbours` unknowns per left-out trial, and the inverse of the model
// points' m x m precision W. Past the capacity a suggestion costs about 20
// ms more at 1,000 trials and 100 ms more at 10,000 (10-d, 400 model points;
// suggest_speed_bench's Projected rows, docs/benchmarks.md).
class HistoryProjector {
 public:
  struct Projected {
    // Per model point (in the order of `selected`): the pseudo-observations
    // and their error covariance.
    Eigen::VectorXd values;
    Eigen::MatrixXd noise_covariance;
    // How many left-out observations were projected.
    int projected = 0;
  };

  explicit HistoryProjector(int neighbours) : neighbours_(neighbours) {}

  // `points` d x n and `values` n: the whole history; `selected` the model's
  // indices into it (distinct). `noise_variance` the fitted noise. Without
  // a left-out trial, or without noise, the model's own values with the
  // noise on the diagonal. FAILED_PRECONDITION when W cannot be factored
  // (a non-finite value).
  absl::StatusOr<Projected> Project(const MaternKernel& kernel, double noise_variance,
                                    const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                                    const std::vector<int>& selected) const;

 private:
  int neighbours_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_HISTORY_PROJECTOR_H_
