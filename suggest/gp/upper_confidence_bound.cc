#include "suggest/gp/upper_confidence_bound.h"

#include <cmath>

namespace vernier::suggest {

double UpperConfidenceBound::Value(double mean, double variance) const {
  return mean + beta_ * std::sqrt(variance);
}

double UpperConfidenceBound::ValueWithDerivatives(double mean, double variance, double* d_mean,
                                                  double* d_variance) const {
  const double sigma = std::sqrt(variance);
  *d_mean = 1.0;
  *d_variance = 0.5 * beta_ / sigma;
  return mean + beta_ * sigma;
}

}  // namespace vernier::suggest
