#include "bench/quality/quartiles.h"

#include <algorithm>
#include <cmath>

namespace vernier::bench {
namespace {

double Quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

Quartiles ComputeQuartiles(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {Quantile(values, 0.25), Quantile(values, 0.5), Quantile(values, 0.75)};
}

}  // namespace vernier::bench
