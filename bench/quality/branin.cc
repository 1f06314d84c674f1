#include "bench/quality/branin.h"

#include <cmath>
#include <numbers>

namespace vernier::bench {

Branin::Branin() : BoxProblem({{-5, 10}, {0, 15}}) {}

std::string Branin::name() const { return "branin"; }

double Branin::OptimalValue() const { return 5 / (4 * std::numbers::pi); }

double Branin::Value(std::span<const double> x) const {
  constexpr double kPi = std::numbers::pi;
  const double b = 5.1 / (4 * kPi * kPi);
  const double c = 5 / kPi;
  const double t = 1 / (8 * kPi);
  const double valley = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return valley * valley + 10 * (1 - t) * std::cos(x[0]) + 10;
}

std::vector<double> Branin::Minimizer() const { return {std::numbers::pi, 2.275}; }

}  // namespace vernier::bench
