#include "suggest/gp/front_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "suggest/random_numbers.h"

namespace vernier::suggest {
namespace {

// The spread of a row's values (population standard deviation).
double Spread(const Eigen::VectorXd& row) {
  return std::sqrt((row.array() - row.mean()).square().mean());
}

// The front's lowest and highest value in objective `k`, and its width (the
// values' spread when the front has one value there), at least 1e-9.
struct Range {
  double low;
  double high;
  double width;
};

Range FrontRange(const Eigen::MatrixXd& warped, const std::vector<int>& front, Eigen::Index k) {
  Range range{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
              0.0};
  for (int i : front) {
    range.low = std::min(range.low, warped(k, i));
    range.high = std::max(range.high, warped(k, i));
  }
  const double width =
      range.high > range.low ? range.high - range.low : Spread(warped.row(k).transpose());
  range.width = std::max(width, 1e-9);
  return range;
}

}  // namespace

Eigen::VectorXd FrontReference::BelowTrials(const Eigen::MatrixXd& warped) const {
  Eigen::VectorXd reference(warped.rows());
  for (Eigen::Index k = 0; k < warped.rows(); ++k) {
    const Eigen::VectorXd row = warped.row(k).transpose();
    reference[k] = row.minCoeff() - kMargin * std::max(Spread(row), 1e-9);
  }
  return reference;
}

std::optional<int> FrontReference::FocusObjective(const Eigen::MatrixXd& warped,
                                                  const std::vector<int>& front,
                                                  std::mt19937_64& rng) const {
  std::vector<int> counts(warped.rows(), 0);
  for (Eigen::Index k = 0; k < warped.rows(); ++k) {
    const Range range = FrontRange(warped, front, k);
    const double better_half = range.high - 0.5 * range.width;
    for (Eigen::Index i = 0; i < warped.cols(); ++i) {
      if (warped(k, i) >= better_half) ++counts[k];
    }
  }
  const int fewest = *std::min_element(counts.begin(), counts.end());
  const int most = *std::max_element(counts.begin(), counts.end());
  // No focus with probability (fewest / most)^2: always when balanced.
  const double balance = most > 0 ? static_cast<double>(fewest) / most : 1.0;
  if (UnitUniform(rng) < balance * balance) return std::nullopt;
  std::vector<int> least;
  for (int k = 0; k < static_cast<int>(counts.size()); ++k) {
    if (counts[k] == fewest) least.push_back(k);
  }
  return least[UniformIndex(rng, least.size())];
}

Eigen::VectorXd FrontReference::InsideFront(const Eigen::MatrixXd& warped,
                                            const std::vector<int>& front,
                                            std::mt19937_64& rng) const {
  const std::optional<int> focus = FocusObjective(warped, front, rng);
  const double focus_inset = kFocusInsetLow + (kFocusInsetHigh - kFocusInsetLow) * UnitUniform(rng);
  Eigen::VectorXd reference(warped.rows());
  for (Eigen::Index k = 0; k < warped.rows(); ++k) {
    const Range range = FrontRange(warped, front, k);
    reference[k] = range.low + (focus == k ? focus_inset : kInset) * range.width;
  }
  return reference;
}

}  // namespace vernier::suggest
