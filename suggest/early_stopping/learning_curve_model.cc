#include "suggest/early_stopping/learning_curve_model.h"

#include <cmath>

namespace vernier::suggest {

double FinalValuePrediction::ProbabilityBetterThan(double target, v1::MetricSpec::Goal goal) const {
  if (means.empty()) return 0;
  // Values in minimised form are these times the metric's.
  const double sign = goal == v1::MetricSpec::MINIMIZE ? 1 : -1;
  double total = 0;
  for (double mean : means) {
    if (!(stddev > 0)) {
      total += IsBetterValue(mean, target, goal) ? 1 : 0;
      continue;
    }
    // How far the mean lies on the better side of the target, in spreads.
    double z = 0;
    if (log_scale) {
      // Distances to the bound, on its worse side: nothing is better than
      // the bound itself (nor than a target reported beyond it).
      const double target_distance = sign * (target - bound);
      const double mean_distance = sign * (mean - bound);
      if (!(target_distance > 0)) continue;
      if (!(mean_distance > 0)) {
        total += 1;
        continue;
      }
      z = (std::log(target_distance) - std::log(mean_distance)) / stddev;
    } else {
      z = sign * (target - mean) / stddev;
    }
    total += 0.5 * std::erfc(-z / std::sqrt(2.0));
  }
  return total / static_cast<double>(means.size());
}

}  // namespace vernier::suggest
