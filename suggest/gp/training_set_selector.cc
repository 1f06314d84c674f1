#include "suggest/gp/training_set_selector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>

namespace vernier::suggest {
namespace {

Eigen::MatrixXd Rows(const Eigen::MatrixXd& matrix, const std::vector<int>& rows) {
  Eigen::MatrixXd selected(rows.size(), matrix.cols());
  for (size_t i = 0; i < rows.size(); ++i) selected.row(i) = matrix.row(rows[i]);
  return selected;
}

// Chosen points whose distances one matrix product computes, and the
// points it computes them for.
constexpr int kBlock = 32;
constexpr Eigen::Index kSelectChunk = 1024;

// Squared distances between the history's points: continuous coordinates
// squared, as |x|^2 + |y|^2 - 2 x.y (so a history of thousands of trials
// costs one matrix product per kBlock points and no temporary), categorical
// ones 1 where they differ.
class Distances {
 public:
  // `continuous` c x n, `categorical` n x k (a column per parameter).
  Distances(const Eigen::MatrixXd& continuous, const Eigen::MatrixXd& categorical)
      : continuous_(continuous),
        categorical_(categorical),
        norms_(continuous.colwise().squaredNorm().transpose().array()),
        centres_(continuous.rows(), kBlock),
        products_(kSelectChunk, kBlock),
        distances_(kSelectChunk) {}

  // nearest[i] = min(nearest[i], squared distance of point i to each of
  // `from`), at most kBlock of them; kSelectChunk points at a time, so that the
  // products stay in cache.
  void LowerNearest(std::span<const int> from, Eigen::ArrayXd& nearest) {
    const auto size = static_cast<Eigen::Index>(from.size());
    for (Eigen::Index b = 0; b < size; ++b) centres_.col(b) = continuous_.col(from[b]);
    const Eigen::Index n = continuous_.cols();
    for (Eigen::Index start = 0; start < n; start += kSelectChunk) {
      const Eigen::Index length = std::min<Eigen::Index>(kSelectChunk, n - start);
      auto products = products_.topLeftCorner(length, size);
      products.noalias() =
          continuous_.middleCols(start, length).transpose() * centres_.leftCols(size);
      auto chunk = nearest.segment(start, length);
      for (Eigen::Index b = 0; b < size; ++b) {
        // Rounding can leave a point's distance to itself a hair under 0.
        auto distances = distances_.head(length);
        distances = (norms_.segment(start, length) + norms_[from[b]] - 2 * products.col(b).array())
                        .max(0.0);
        for (Eigen::Index j = 0; j < categorical_.cols(); ++j) {
          distances +=
              (categorical_.col(j).segment(start, length).array() != categorical_(from[b], j))
                  .cast<double>();
        }
        chunk = chunk.min(distances);
      }
    }
  }

 private:
  const Eigen::MatrixXd& continuous_;
  const Eigen::MatrixXd& categorical_;
  const Eigen::ArrayXd norms_;
  Eigen::MatrixXd centres_;
  Eigen::MatrixXd products_;
  Eigen::ArrayXd distances_;
};

}  // namespace

TrainingSetSelector::TrainingSetSelector(std::vector<bool> categorical)
    : categorical_(std::move(categorical)) {
  for (size_t j = 0; j < categorical_.size(); ++j) {
    (categorical_[j] ? categorical_rows_ : continuous_rows_).push_back(static_cast<int>(j));
  }
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
  const Eigen::MatrixXd categorical = Rows(points, categorical_rows_).transpose();
  Distances distances(continuous, categorical);
  Eigen::ArrayXd nearest = Eigen::ArrayXd::Constant(n, std::numeric_limits<double>::infinity());
  std::vector<int> from;
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) from.push_back(i);
  }
  for (size_t i = 0; i < from.size(); i += kBlock) {
    distances.LowerNearest(std::span(from).subspan(i, std::min<size_t>(kBlock, from.size() - i)),
                           nearest);
  }
  // A chosen point's distance is -1, below every other, so the farthest is
  // the first largest.
  for (int i : from) nearest[i] = -1;
  while (count < capacity) {
    int farthest = 0;
    for (int k = 1; k < n; ++k) {
      if (nearest[k] > nearest[farthest]) farthest = k;
    }
    choose(farthest);
    const int one[] = {farthest};
    distances.LowerNearest(one, nearest);
    nearest[farthest] = -1;
  }
  std::vector<int> selected;
  selected.reserve(capacity);
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) selected.push_back(i);
  }
  return selected;
}

std::vector<int> TrainingSetSelector::LeftOut(int n, const std::vector<int>& selected) {
  std::vector<bool> in_model(n, false);
  for (int index : selected) in_model[index] = true;
  std::vector<int> left_out;
  for (int j = 0; j < n; ++j) {
    if (!in_model[j]) left_out.push_back(j);
  }
  return left_out;
}

}  // namespace vernier::suggest
