#include "bench/quality/shifted_ackley.h"

#include <cmath>
#include <numbers>

namespace vernier::bench {
namespace {

constexpr double kAckleyShift[5] = {-11.3, 7.9, 3.1, -19.4, 14.2};

}  // namespace

ShiftedAckley::ShiftedAckley() : BoxProblem(std::vector<Bounds>(5, {-32.768, 32.768})) {}

std::string ShiftedAckley::name() const { return "ackley5_shifted"; }

double ShiftedAckley::OptimalValue() const { return 0; }

double ShiftedAckley::Value(std::span<const double> x) const {
  double squares = 0;
  double cosines = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double z = x[i] - kAckleyShift[i];
    squares += z * z;
    cosines += std::cos(2 * std::numbers::pi * z);
  }
  const double n = static_cast<double>(x.size());
  // The usual -20 e^(..) - e^(..) + 20 + e, grouped so that the minimum is
  // exactly 0 in floating point.
  return 20 * (1 - std::exp(-0.2 * std::sqrt(squares / n))) +
         (std::numbers::e - std::exp(cosines / n));
}

std::vector<double> ShiftedAckley::Minimizer() const {
  return {std::begin(kAckleyShift), std::end(kAckleyShift)};
}

}  // namespace vernier::bench
