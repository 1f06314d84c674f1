#include "bench/quality/six_hump_camel.h"

namespace vernier::bench {

SixHumpCamel::SixHumpCamel() : BoxProblem({{-3, 3}, {-2, 2}}) {}

std::string SixHumpCamel::name() const { return "six_hump_camel"; }

// Found by Newton's method from the published minimiser (0.0898, -0.7126).
double SixHumpCamel::OptimalValue() const { return -1.0316284534898774; }

double SixHumpCamel::Value(std::span<const double> x) const {
  const double x1 = x[0] * x[0];
  const double x2 = x[1] * x[1];
  return (4 - 2.1 * x1 + x1 * x1 / 3) * x1 + x[0] * x[1] + (-4 + 4 * x2) * x2;
}

std::vector<double> SixHumpCamel::Minimizer() const {
  return {0.08984201310112414, -0.7126564029512711};
}

}  // namespace vernier::bench
