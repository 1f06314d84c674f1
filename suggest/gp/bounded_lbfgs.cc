#include "suggest/gp/bounded_lbfgs.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <nlopt.hpp>
#include <vector>

namespace vernier::suggest {
namespace {

struct Run {
  const BoundedLbfgs::Objective* objective;
  BoundedLbfgs::Result* best;
  Eigen::VectorXd x;
  Eigen::VectorXd gradient;
};

double Evaluate(unsigned n, const double* x, double* gradient, void* data) {
  Run& run = *static_cast<Run*>(data);
  run.x = Eigen::Map<const Eigen::VectorXd>(x, n);
  double value = (*run.objective)(run.x, gradient != nullptr ? &run.gradient : nullptr);
  ++run.best->evaluations;
  if (!std::isfinite(value)) {
    // NLopt cannot step on infinity: a huge value with no slope makes the
    // line search back off.
    value = std::numeric_limits<double>::max() / 4;
    if (gradient != nullptr) std::fill(gradient, gradient + n, 0.0);
    return value;
  }
  if (gradient != nullptr) {
    for (unsigned i = 0; i < n; ++i) {
      gradient[i] = std::isfinite(run.gradient[i]) ? run.gradient[i] : 0.0;
    }
  }
  if (value < run.best->value) {
    run.best->value = value;
    run.best->point = run.x;
  }
  return value;
}

}  // namespace

BoundedLbfgs::Result BoundedLbfgs::Minimize(const Objective& objective,
                                            const Eigen::VectorXd& start,
                                            const Eigen::VectorXd& lower,
                                            const Eigen::VectorXd& upper) const {
  Result best;
  best.point = start;
  best.value = std::numeric_limits<double>::infinity();
  Run run{&objective, &best, Eigen::VectorXd(), Eigen::VectorXd(start.size())};
  const auto n = static_cast<unsigned>(start.size());
  if (n == 0) {
    Evaluate(0, start.data(), nullptr, &run);
    return best;
  }
  try {
    nlopt::opt optimizer(nlopt::LD_LBFGS, n);
    optimizer.set_lower_bounds(std::vector<double>(lower.data(), lower.data() + n));
    optimizer.set_upper_bounds(std::vector<double>(upper.data(), upper.data() + n));
    optimizer.set_min_objective(Evaluate, &run);
    optimizer.set_maxeval(options_.max_evaluations);
    optimizer.set_ftol_rel(options_.relative_tolerance);
    std::vector<double> x(start.data(), start.data() + n);
    double value;
    optimizer.optimize(x, value);
  } catch (const std::exception&) {
    // Round-off or a failed line search: the best point seen stands.
  }
  if (best.evaluations == 0) Evaluate(n, start.data(), nullptr, &run);
  return best;
}

}  // namespace vernier::suggest
