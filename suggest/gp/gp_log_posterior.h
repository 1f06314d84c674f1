#ifndef VERNIER_SUGGEST_GP_GP_LOG_POSTERIOR_H_
#define VERNIER_SUGGEST_GP_GP_LOG_POSTERIOR_H_

#include <Eigen/Dense>
#include <vector>

#include "suggest/gp/input_warp.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {

// The negative log posterior of a Gaussian process's hyper-parameters given
// observations, for MAP fitting. The hyper-parameters are
//   theta = (log l_1, ..., log l_d, log signal variance, log noise variance)
// with independent normal priors on each (log-normal on the parameters):
//   log l_j ~ N(log(0.34 sqrt(d)), 3): dimension-scaled as in Hvarfner et
//     al. (2024), so that a GP expects smoother functions the more
//     dimensions there are and does not overfit in 20-d with 30 points, but
//     centred on shorter length scales than theirs (median 0.34 sqrt(d)
//     unit-cube widths, not 4.1 sqrt(d)): with their centre the fitted
//     model was too smooth and expected improvement stayed in the first
//     good basin it found (Hartmann6's local optimum in half the studies of
//     bench/suggest_quality_bench, Ackley and Rastrigin 1.5x worse);
//   log signal variance ~ N(0, 1): the values are standardised;
//   log noise variance ~ N(-6, 2): little noise (2.5e-3 of the variance),
//     with room for a noisy objective (0.14 is two deviations up).
// With input warping (`warped`, per coordinate, not for categorical ones)
// theta goes on with (log a_1, ..., log a_c, log b_1, ..., log b_c), the
// Kumaraswamy concentrations of the c warped coordinates (InputWarp), each
// ~ N(0, 0.5^2): near the identity unless the data ask for a warp.
// Value and analytic gradient from one Cholesky factorisation:
//   -log p = y^T a / 2 + sum log L_ii + n/2 log(2 pi) + prior,  a = K^-1 y,
//   d/dtheta = -tr((a a^T - K^-1) dK/dtheta) / 2 + d prior.
// Pairwise distances are computed once (those of warped coordinates at each
// evaluation), so an evaluation costs one factorisation, one inverse and
// O(n^2 d).
class GpLogPosterior {
 public:
  // `points` d x n, `values` n (standardised); `warped` empty (no warping)
  // or one flag per coordinate.
  GpLogPosterior(std::vector<bool> categorical, const Eigen::MatrixXd& points,
                 Eigen::VectorXd values, std::vector<bool> warped = {});

  int dimension() const { return static_cast<int>(categorical_.size()); }
  int warped_count() const { return static_cast<int>(warped_indices_.size()); }
  int parameter_count() const { return dimension() + 2 + 2 * warped_count(); }
  int size() const { return static_cast<int>(values_.size()); }
  const std::vector<bool>& categorical() const { return categorical_; }

  // The prior's centre and spread per component of theta, and the box the
  // fit stays in.
  Eigen::VectorXd PriorMean() const;
  Eigen::VectorXd PriorStandardDeviation() const;
  Eigen::VectorXd LowerBounds() const;
  Eigen::VectorXd UpperBounds() const;

  // -log p(theta | y) up to a constant, and its gradient into `gradient`
  // when not null. +infinity when the covariance cannot be factored.
  double NegativeLogPosterior(const Eigen::VectorXd& theta, Eigen::VectorXd* gradient) const;

  // The kernel and noise variance that theta names (the static form for
  // a fitted theta, without the posterior at hand).
  MaternKernel Kernel(const Eigen::VectorXd& theta) const;
  static MaternKernel Kernel(const std::vector<bool>& categorical, const Eigen::VectorXd& theta);
  static double NoiseVariance(int dimension, const Eigen::VectorXd& theta);
  // The input warp theta names: the identity for a theta without warping.
  InputWarp Warp(const Eigen::VectorXd& theta) const;
  static InputWarp Warp(const std::vector<bool>& warped, const Eigen::VectorXd& theta);

 private:
  std::vector<bool> categorical_;
  Eigen::VectorXd values_;
  // Column p holds d_j(a, b) for the p-th pair a > b (column-major lower
  // triangle order).
  Eigen::MatrixXd pair_distances_;
  std::vector<bool> warped_;
  // The warped coordinates, and their values (one row each, n columns).
  std::vector<int> warped_indices_;
  Eigen::MatrixXd warped_coordinates_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_GP_LOG_POSTERIOR_H_
