#ifndef VERNIER_SUGGEST_GP_HISTORY_FOLDER_H_
#define VERNIER_SUGGEST_GP_HISTORY_FOLDER_H_

#include <Eigen/Dense>
#include <vector>

#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {

// Folds the observations a capped model leaves out into the model points
// nearest them, so that a Gaussian process over `capacity` points still
// learns from every trial of a long, noisy history.
//
// An observation y_j at x_j left out of the model is read as a noisy
// observation of f at its nearest model point x_c (by the kernel's
// covariance): y_j = f(x_c) + (f(x_j) - f(x_c)) + noise, whose error
// variance is the noise plus the prior variance of the difference,
// 2 (k(0) - k(x_c, x_j)). Only observations whose difference variance is
// at most `max_difference_ratio` times the noise variance are folded (a
// far one says little about f there and would bias it). Each model point's
// value becomes the precision-weighted mean of its own observation and
// those folded into it, and its noise variance the inverse of their summed
// precision plus their weighted mean difference variance: the differences
// of neighbours on one side of a point do not average out, so the folded
// value is never trusted more than its members' distance allows. A noisy
// study's best trials, selected by their luck, are thereby averaged with
// the trials around them; a noiseless study (noise near 0) folds nothing.
class HistoryFolder {
 public:
  struct Folded {
    // Per model point (in the order of `selected`).
    Eigen::VectorXd values;
    Eigen::VectorXd noise_variances;
    // How many left-out observations were folded in.
    int folded = 0;
  };

  explicit HistoryFolder(double max_difference_ratio = 1.0)
      : max_difference_ratio_(max_difference_ratio) {}

  // `points` d x n and `values` n: the whole history; `selected` the model's
  // indices into it (distinct). `noise_variance` the fitted noise.
  Folded Fold(const MaternKernel& kernel, double noise_variance, const Eigen::MatrixXd& points,
              const Eigen::VectorXd& values, const std::vector<int>& selected) const;

 private:
  double max_difference_ratio_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_HISTORY_FOLDER_H_
