#include "suggest/gp/log_expected_improvement.h"

#include <cmath>

#include "suggest/gp/normal_tail.h"

namespace vernier::suggest {
namespace {

// Above this u = -z, 1 - u m(u) comes from its asymptotic series: directly
// it loses about 2 log10(u) digits to cancellation.
constexpr double kAsymptoticU = 100.0;

// 1 - u m(u) = h(-u) / phi(u) > 0, u >= 1.
double ScaledH(double u) {
  if (u <= kAsymptoticU) return 1.0 - u * NormalTail::MillsRatio(u);
  const double s = 1.0 / (u * u);
  return s * (1.0 + s * (-3.0 + s * (15.0 + s * (-105.0 + s * 945.0))));
}

}  // namespace

double LogExpectedImprovement::LogH(double z) {
  if (z > -1.0) return std::log(NormalTail::Pdf(z) + z * NormalTail::Cdf(z));
  const double u = -z;
  return NormalTail::LogPdf(z) + std::log(ScaledH(u));
}

double LogExpectedImprovement::LogHSlope(double z) {
  if (z > -1.0) return NormalTail::Cdf(z) / (NormalTail::Pdf(z) + z * NormalTail::Cdf(z));
  const double u = -z;
  // Phi(z) / h(z) = m(u) phi(u) / (phi(u) (1 - u m(u))).
  if (u <= kAsymptoticU) return NormalTail::MillsRatio(u) / ScaledH(u);
  const double s = 1.0 / (u * u);
  const double mills = (1.0 + s * (-1.0 + s * (3.0 + s * (-15.0 + s * 105.0)))) / u;
  return mills / ScaledH(u);
}

double LogExpectedImprovement::Value(double mean, double variance) const {
  const double sigma = std::sqrt(variance);
  return std::log(sigma) + LogH((mean - best_) / sigma);
}

double LogExpectedImprovement::ValueWithDerivatives(double mean, double variance, double* d_mean,
                                                    double* d_variance) const {
  const double sigma = std::sqrt(variance);
  const double z = (mean - best_) / sigma;
  const double slope = LogHSlope(z);
  *d_mean = slope / sigma;
  // d/dsigma = 1/sigma - slope z / sigma, and dsigma/dvariance = 1 / (2 sigma).
  *d_variance = (1.0 - z * slope) / (2.0 * variance);
  return std::log(sigma) + LogH(z);
}

}  // namespace vernier::suggest
