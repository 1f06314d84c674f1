#include "suggest/gp/input_warp.h"

#include <cmath>
#include <utility>

#include "absl/base/internal/raw_logging.h"

namespace vernier::suggest {
namespace {

double Squeezed(double x) { return InputWarp::kEpsilon + (1.0 - 2.0 * InputWarp::kEpsilon) * x; }

}  // namespace

InputWarp::InputWarp(std::vector<bool> warped, const Eigen::VectorXd& log_a,
                     const Eigen::VectorXd& log_b)
    : warped_(std::move(warped)),
      a_(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(warped_.size()))),
      b_(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(warped_.size()))) {
  ABSL_RAW_CHECK(log_a.size() == log_b.size(), "InputWarp: one a and one b per warped coordinate");
  Eigen::Index next = 0;
  for (size_t j = 0; j < warped_.size(); ++j) {
    if (!warped_[j]) continue;
    ABSL_RAW_CHECK(next < log_a.size(), "InputWarp: too few concentrations");
    a_[static_cast<Eigen::Index>(j)] = std::exp(log_a[next]);
    b_[static_cast<Eigen::Index>(j)] = std::exp(log_b[next]);
    ++next;
  }
  ABSL_RAW_CHECK(next == log_a.size(), "InputWarp: too many concentrations");
}

double InputWarp::Value(double x, double a, double b) {
  return 1.0 - std::pow(1.0 - std::pow(Squeezed(x), a), b);
}

void InputWarp::ValueWithGradient(double x, double a, double b, double* value, double* d_log_a,
                                  double* d_log_b) {
  const double t = Squeezed(x);
  const double power = std::pow(t, a);    // t^a
  const double rest = 1.0 - power;        // 1 - t^a, in (0, 1)
  const double tail = std::pow(rest, b);  // (1 - t^a)^b
  *value = 1.0 - tail;
  // dw/da = b (1 - t^a)^(b - 1) t^a log t;  dw/db = -(1 - t^a)^b log(1 - t^a).
  *d_log_a = a * b * (tail / rest) * power * std::log(t);
  *d_log_b = -b * tail * std::log(rest);
}

double InputWarp::Slope(double x, double a, double b) {
  const double t = Squeezed(x);
  const double power = std::pow(t, a);
  // dw/dt = a b t^(a - 1) (1 - t^a)^(b - 1); dt/dx = 1 - 2 eps.
  return a * b * (power / t) * std::pow(1.0 - power, b - 1.0) * (1.0 - 2.0 * kEpsilon);
}

Eigen::VectorXd InputWarp::Apply(const Eigen::VectorXd& point) const {
  if (identity()) return point;
  Eigen::VectorXd warped = point;
  for (Eigen::Index j = 0; j < point.size(); ++j) {
    if (warped_[j] && Inside(point[j])) warped[j] = Value(point[j], a_[j], b_[j]);
  }
  return warped;
}

Eigen::MatrixXd InputWarp::Apply(const Eigen::MatrixXd& points) const {
  if (identity()) return points;
  Eigen::MatrixXd warped = points;
  for (Eigen::Index i = 0; i < points.cols(); ++i) {
    for (Eigen::Index j = 0; j < points.rows(); ++j) {
      if (warped_[j] && Inside(points(j, i))) warped(j, i) = Value(points(j, i), a_[j], b_[j]);
    }
  }
  return warped;
}

Eigen::VectorXd InputWarp::Slopes(const Eigen::VectorXd& point) const {
  Eigen::VectorXd slopes = Eigen::VectorXd::Ones(point.size());
  if (identity()) return slopes;
  for (Eigen::Index j = 0; j < point.size(); ++j) {
    if (warped_[j] && Inside(point[j])) slopes[j] = Slope(point[j], a_[j], b_[j]);
  }
  return slopes;
}

}  // namespace vernier::suggest
