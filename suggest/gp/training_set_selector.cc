#include "suggest/gp/training_set_selector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace vernier::suggest {
namespace {

Eigen::MatrixXd Rows(const Eigen::MatrixXd& matrix, const std::vector<int>& rows) {
  Eigen::MatrixXd selected(rows.size(), matrix.cols());
  for (size_t i = 0; i < rows.size(); ++i) selected.row(i) = matrix.row(rows[i]);
  return selected;
}

}  // namespace

TrainingSetSelector::TrainingSetSelector(std::vector<bool> categorical)
    : categorical_(std::move(categorical)) {
  for (size_t j = 0; j < categorical_.size(); ++j) {
    (categorical_[j] ? categorical_rows_ : continuous_rows_).push_back(static_cast<int>(j));
  }
}

Eigen::ArrayXd TrainingSetSelector::SquaredDistances(const Eigen::MatrixXd& continuous,
                                                     const Eigen::MatrixXd& categorical,
                                                     int from) const {
  Eigen::ArrayXd distances = (continuous.colwise() - continuous.col(from)).colwise().squaredNorm();
  for (Eigen::Index j = 0; j < categorical.rows(); ++j) {
    const double category = categorical(j, from);
    distances += (categorical.row(j).array().transpose() != category).cast<double>();
  }
  return distances;
}

std::vector<int> TrainingSetSelector::Select(const Eigen::MatrixXd& points,
                                             const Eigen::VectorXd& values, int capacity,
                                             const Neighbourhood* neighbourhood) const {
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
  int rest = capacity;
  if (neighbourhood != nullptr) {
    const int nearest = static_cast<int>(std::clamp(neighbourhood->share, 0.0, 1.0) * capacity);
    std::vector<int> by_distance = all;
    std::partial_sort(by_distance.begin(), by_distance.begin() + nearest, by_distance.end(),
                      [&](int a, int b) {
                        const double da = neighbourhood->squared_distances[a];
                        const double db = neighbourhood->squared_distances[b];
                        return da != db ? da < db : a > b;  // Ties: the more recent.
                      });
    for (int i = 0; i < nearest; ++i) choose(by_distance[i]);
    rest = capacity - count;
  }
  // Best first; ties keep history order.
  std::vector<int> by_value = all;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&values](int a, int b) { return values[a] > values[b]; });
  const int best = std::max(1, static_cast<int>(kBestShare * rest));
  for (int i = 0; i < best && count < capacity; ++i) choose(by_value[i]);
  const int recent = static_cast<int>(kRecentShare * rest);
  for (int i = n - 1; i >= 0 && i >= n - recent && count < capacity; --i) choose(i);

  // Farthest-point sampling: repeatedly the point farthest from the chosen.
  const Eigen::MatrixXd continuous = Rows(points, continuous_rows_);
  const Eigen::MatrixXd categorical = Rows(points, categorical_rows_);
  Eigen::ArrayXd nearest = Eigen::ArrayXd::Constant(n, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) nearest = nearest.min(SquaredDistances(continuous, categorical, i));
  }
  while (count < capacity) {
    int farthest = -1;
    for (int k = 0; k < n; ++k) {
      if (!chosen[k] && (farthest < 0 || nearest[k] > nearest[farthest])) farthest = k;
    }
    choose(farthest);
    nearest = nearest.min(SquaredDistances(continuous, categorical, farthest));
  }
  std::vector<int> selected;
  selected.reserve(capacity);
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) selected.push_back(i);
  }
  return selected;
}

}  // namespace vernier::suggest
