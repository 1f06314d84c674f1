#include "suggest/early_stopping/learning_curve.h"

#include <algorithm>

namespace vernier::suggest {

bool IsBetterValue(double a, double b, v1::MetricSpec::Goal goal) {
  return goal == v1::MetricSpec::MINIMIZE ? a < b : a > b;
}

std::optional<int64_t> LastStep(const LearningCurve& curve) {
  std::optional<int64_t> last;
  for (const CurvePoint& point : curve.points) {
    if (!last.has_value() || point.step > *last) last = point.step;
  }
  return last;
}

std::optional<double> BestValueUpTo(const LearningCurve& curve, int64_t step,
                                    v1::MetricSpec::Goal goal) {
  std::optional<double> best;
  for (const CurvePoint& point : curve.points) {
    if (point.step > step) continue;
    if (!best.has_value() || IsBetterValue(point.value, *best, goal)) best = point.value;
  }
  return best;
}

std::optional<double> RunningAverageUpTo(const LearningCurve& curve, int64_t step) {
  double sum = 0;
  int count = 0;
  for (const CurvePoint& point : curve.points) {
    if (point.step > step) continue;
    sum += point.value;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

double Median(std::vector<double> values) {
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

}  // namespace vernier::suggest
