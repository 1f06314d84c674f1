#ifndef VERNIER_SUGGEST_GP_INPUT_WARP_H_
#define VERNIER_SUGGEST_GP_INPUT_WARP_H_

#include <Eigen/Dense>
#include <vector>

namespace vernier::suggest {

// A monotone warp of each unit-cube coordinate, the Kumaraswamy
// distribution's CDF (Snoek et al. 2014, "Input warping for Bayesian
// optimization of non-stationary functions"):
//   w(x) = 1 - (1 - t^a)^b,  t = eps + (1 - 2 eps) x,
// with concentrations a, b > 0 per coordinate. a = b = 1 is (nearly) the
// identity; a < 1 stretches the low end of the range (a parameter that
// matters most near its minimum, as a learning rate on a linear scale),
// b < 1 the high end, and a, b > 1 both ends' middle. The Gaussian process
// compares warped coordinates, so one stationary kernel fits a function
// whose length scale changes along a coordinate.
//
// Coordinates outside [0, 1] (GpInputEncoder's inactive sentinel) and
// coordinates not warped (categorical ones) pass through unchanged.
class InputWarp {
 public:
  // Keeps t inside (0, 1), where the warp's slope is finite.
  static constexpr double kEpsilon = 1e-6;

  // The identity.
  InputWarp() = default;
  // `warped` per coordinate; `log_a`, `log_b` per warped coordinate, in
  // order.
  InputWarp(std::vector<bool> warped, const Eigen::VectorXd& log_a, const Eigen::VectorXd& log_b);

  bool identity() const { return warped_.empty(); }

  Eigen::VectorXd Apply(const Eigen::VectorXd& point) const;
  // Every column of `points`.
  Eigen::MatrixXd Apply(const Eigen::MatrixXd& points) const;
  // dw_j/dx_j at `point` (1 where a coordinate passes through).
  Eigen::VectorXd Slopes(const Eigen::VectorXd& point) const;

  // w at x for concentrations a and b, and (ValueWithGradient) its
  // derivatives in log a and log b, for the hyper-parameters' fit; Slope
  // is dw/dx. x in [0, 1].
  static double Value(double x, double a, double b);
  static void ValueWithGradient(double x, double a, double b, double* value, double* d_log_a,
                                double* d_log_b);
  static double Slope(double x, double a, double b);
  // Whether coordinate value x is warped (inside the unit interval).
  static bool Inside(double x) { return x >= 0.0 && x <= 1.0; }

 private:
  // Per coordinate: whether warped, and its concentrations.
  std::vector<bool> warped_;
  Eigen::VectorXd a_;
  Eigen::VectorXd b_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_INPUT_WARP_H_
