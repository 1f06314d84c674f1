#include "suggest/gp/training_set_selector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace vernier::suggest {

double TrainingSetSelector::SquaredDistance(const Eigen::MatrixXd& points, int a, int b) const {
  double total = 0.0;
  for (Eigen::Index j = 0; j < points.rows(); ++j) {
    const double difference = points(j, a) - points(j, b);
    total += categorical_[j] ? (difference != 0.0 ? 1.0 : 0.0) : difference * difference;
  }
  return total;
}

std::vector<int> TrainingSetSelector::Select(const Eigen::MatrixXd& points,
                                             const Eigen::VectorXd& values, int capacity) const {
  const int n = static_cast<int>(points.cols());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (n <= capacity) return all;
  if (capacity <= 0) return {};

  std::vector<bool> chosen(n, false);
  int count = 0;
  auto choose = [&](int index) {
    if (!chosen[index]) {
      chosen[index] = true;
      ++count;
    }
  };
  // Best first; ties keep history order.
  std::vector<int> by_value = all;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&values](int a, int b) { return values[a] > values[b]; });
  const int best = std::max(1, static_cast<int>(kBestShare * capacity));
  for (int i = 0; i < best && count < capacity; ++i) choose(by_value[i]);
  const int recent = static_cast<int>(kRecentShare * capacity);
  for (int i = n - 1; i >= 0 && i >= n - recent && count < capacity; --i) choose(i);

  // Farthest-point sampling: repeatedly the point farthest from the chosen.
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    if (!chosen[i]) continue;
    for (int k = 0; k < n; ++k) {
      if (!chosen[k]) nearest[k] = std::min(nearest[k], SquaredDistance(points, i, k));
    }
  }
  while (count < capacity) {
    int farthest = -1;
    for (int k = 0; k < n; ++k) {
      if (!chosen[k] && (farthest < 0 || nearest[k] > nearest[farthest])) farthest = k;
    }
    choose(farthest);
    for (int k = 0; k < n; ++k) {
      if (!chosen[k]) nearest[k] = std::min(nearest[k], SquaredDistance(points, farthest, k));
    }
  }
  std::vector<int> selected;
  selected.reserve(capacity);
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) selected.push_back(i);
  }
  return selected;
}

}  // namespace vernier::suggest
