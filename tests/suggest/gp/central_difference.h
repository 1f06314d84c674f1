#ifndef VERNIER_TESTS_SUGGEST_GP_CENTRAL_DIFFERENCE_H_
#define VERNIER_TESTS_SUGGEST_GP_CENTRAL_DIFFERENCE_H_

#include <Eigen/Dense>

namespace vernier::suggest::testing {

// (f(x + h e_i) - f(x - h e_i)) / 2h: the derivative of `f` in coordinate
// `i` at `x`, to check an analytic gradient against.
template <typename Function>
double CentralDifference(const Function& f, const Eigen::VectorXd& x, int i, double h) {
  Eigen::VectorXd up = x;
  Eigen::VectorXd down = x;
  up[i] += h;
  down[i] -= h;
  return (f(up) - f(down)) / (2 * h);
}

}  // namespace vernier::suggest::testing

#endif  // VERNIER_TESTS_SUGGEST_GP_CENTRAL_DIFFERENCE_H_
