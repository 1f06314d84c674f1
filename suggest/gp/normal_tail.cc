#include "suggest/gp/normal_tail.h"

#include <cmath>
#include <numbers>

namespace vernier::suggest {
namespace {

const double kLogSqrtTwoPi = 0.5 * std::log(2.0 * std::numbers::pi);
const double kSqrtHalfPi = std::sqrt(0.5 * std::numbers::pi);
// Below this z, log Phi(z) is taken through the Mills ratio: Phi(z) itself
// loses its digits to erfc's underflow further out.
constexpr double kTailZ = -5.0;

}  // namespace

double NormalTail::Pdf(double z) { return std::exp(LogPdf(z)); }

double NormalTail::LogPdf(double z) { return -0.5 * z * z - kLogSqrtTwoPi; }

double NormalTail::Cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double NormalTail::Erfcx(double x) {
  if (x < 26.0) return std::exp(x * x) * std::erfc(x);
  const double inverse_square = 1.0 / (x * x);
  return (1.0 + inverse_square *
                    (-0.5 + inverse_square *
                                (0.75 + inverse_square * (-1.875 + inverse_square * 6.5625)))) /
         (x * std::sqrt(std::numbers::pi));
}

double NormalTail::MillsRatio(double u) { return kSqrtHalfPi * Erfcx(u / std::numbers::sqrt2); }

double NormalTail::LogCdf(double z) {
  if (z > kTailZ) return std::log(Cdf(z));
  // Phi(z) = phi(z) m(-z).
  return LogPdf(z) + std::log(MillsRatio(-z));
}

double NormalTail::LogCdfSlope(double z) {
  if (z > kTailZ) return Pdf(z) / Cdf(z);
  return 1.0 / MillsRatio(-z);
}

}  // namespace vernier::suggest
