#include "suggest/gp/plateau_margin.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace vernier::suggest {

double PlateauMargin::Margin(const Eigen::VectorXd& values) const {
  if (values.size() < kMinTies) return 0;
  // Off a plateau (the common case) one pass decides, without a sort.
  const double best = values.maxCoeff();
  if ((values.array() == best).count() < kMinTies) return 0;
  std::vector<double> sorted(values.data(), values.data() + values.size());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  // The better half: the values at or above the median.
  const double median = sorted[(sorted.size() - 1) / 2];
  double smallest = std::numeric_limits<double>::infinity();
  double below_best = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i] == sorted[i - 1]) continue;
    if (std::isnan(below_best)) below_best = sorted[i];
    if (sorted[i] < median) break;
    smallest = std::min(smallest, sorted[i - 1] - sorted[i]);
  }
  if (std::isfinite(smallest)) return smallest / 2;
  return std::isnan(below_best) ? 0 : (best - below_best) / 2;
}

}  // namespace vernier::suggest
