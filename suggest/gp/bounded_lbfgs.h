#ifndef VERNIER_SUGGEST_GP_BOUNDED_LBFGS_H_
#define VERNIER_SUGGEST_GP_BOUNDED_LBFGS_H_

#include <Eigen/Dense>
#include <functional>

namespace vernier::suggest {

// Minimises a smooth function inside a box with NLopt's L-BFGS and analytic
// gradients. NLopt reports round-off and line-search trouble by throwing;
// here every run ends with the best point it evaluated (the start at
// least), so a caller never sees an exception and never loses progress.
class BoundedLbfgs {
 public:
  struct Options {
    int max_evaluations = 100;
    // Stop when an iteration improves the value by less than this fraction.
    double relative_tolerance = 1e-7;
  };
  // The value at x, and its gradient into `gradient` (sized like x).
  // Non-finite values count as worse than any finite one.
  using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd* gradient)>;

  struct Result {
    Eigen::VectorXd point;
    double value = 0.0;
    int evaluations = 0;
  };

  explicit BoundedLbfgs(Options options) : options_(options) {}

  // `start` must lie in [lower, upper].
  Result Minimize(const Objective& objective, const Eigen::VectorXd& start,
                  const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) const;

 private:
  Options options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_BOUNDED_LBFGS_H_
