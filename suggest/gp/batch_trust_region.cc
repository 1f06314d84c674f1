#include "suggest/gp/batch_trust_region.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vernier::suggest {

double BatchTrustRegion::Length(std::span<const double> values, int initial, int batch,
                                int dimension) const {
  if (batch < 2) return 1;
  const size_t first =
      static_cast<size_t>((std::max(initial, 0) + batch - 1) / batch) * static_cast<size_t>(batch);
  const int failures_to_shrink =
      static_cast<int>(std::ceil(static_cast<double>(std::max(4, dimension)) / batch));
  double best = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < first && i < values.size(); ++i) best = std::max(best, values[i]);
  double length = 1;
  int successes = 0;
  int failures = 0;
  for (size_t start = first; start + batch <= values.size(); start += batch) {
    const double batch_best =
        *std::max_element(values.begin() + static_cast<std::ptrdiff_t>(start),
                          values.begin() + static_cast<std::ptrdiff_t>(start + batch));
    if (!std::isfinite(best) || batch_best > best + kMinImprovement * std::abs(best)) {
      ++successes;
      failures = 0;
    } else {
      ++failures;
      successes = 0;
    }
    best = std::max(best, batch_best);
    if (successes >= kSuccessesToGrow) {
      length = std::min(kMaxLength, 2 * length);
      successes = 0;
    } else if (failures >= failures_to_shrink) {
      length /= 2;
      failures = 0;
    }
    if (length < kMinLength) length = 1;
  }
  return length;
}

}  // namespace vernier::suggest
