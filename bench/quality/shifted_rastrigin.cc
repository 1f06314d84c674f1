#include "bench/quality/shifted_rastrigin.h"

#include <cmath>
#include <numbers>

namespace vernier::bench {
namespace {

constexpr double kRastriginShift[3] = {1.3, -2.2, 0.7};

}  // namespace

ShiftedRastrigin::ShiftedRastrigin() : BoxProblem(std::vector<Bounds>(3, {-5.12, 5.12})) {}

std::string ShiftedRastrigin::name() const { return "rastrigin3_shifted"; }

double ShiftedRastrigin::OptimalValue() const { return 0; }

double ShiftedRastrigin::Value(std::span<const double> x) const {
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double z = x[i] - kRastriginShift[i];
    // The usual 10 d + sum(z^2 - 10 cos(2 pi z)), exactly 0 at the minimum.
    sum += z * z + 10 * (1 - std::cos(2 * std::numbers::pi * z));
  }
  return sum;
}

std::vector<double> ShiftedRastrigin::Minimizer() const {
  return {std::begin(kRastriginShift), std::end(kRastriginShift)};
}

}  // namespace vernier::bench
