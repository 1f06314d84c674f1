#include "suggest/early_stopping/learning_curve_model.h"

#include <cmath>

namespace vernier::suggest {

double FinalValuePrediction::ProbabilityBetterThan(double target, v1::MetricSpec::Goal goal) const {
  if (means.empty()) return 0;
  double total = 0;
  for (double mean : means) {
    if (!(stddev > 0)) {
      total += IsBetterValue(mean, target, goal) ? 1 : 0;
      continue;
    }
    // How far the mean lies on the better side of the target, in spreads.
    const double z = (goal == v1::MetricSpec::MINIMIZE ? target - mean : mean - target) / stddev;
    total += 0.5 * std::erfc(-z / std::sqrt(2.0));
  }
  return total / static_cast<double>(means.size());
}

}  // namespace vernier::suggest
