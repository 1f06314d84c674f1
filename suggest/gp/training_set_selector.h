#ifndef VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_
#define VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_

#include <Eigen/Dense>
#include <vector>

namespace vernier::suggest {

// Picks at most `capacity` of n observations, so that a Gaussian process
// over a long history costs O(capacity^3), not O(n^3): the best ones (where
// the search is heading), the most recent ones (what the search did last),
// and then the rest spread over the space by farthest-point sampling (so no
// region the search has seen is forgotten). Deterministic.
class TrainingSetSelector {
 public:
  // Fractions of the capacity kept for the best and the most recent.
  static constexpr double kBestShare = 0.3;
  static constexpr double kRecentShare = 0.2;

  // `categorical` marks coordinates compared for equality only.
  explicit TrainingSetSelector(std::vector<bool> categorical)
      : categorical_(std::move(categorical)) {}

  // `points` d x n in history order (later columns more recent), `values`
  // larger is better. Returns indices, ascending; all of them when
  // n <= capacity.
  std::vector<int> Select(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                          int capacity) const;

 private:
  double SquaredDistance(const Eigen::MatrixXd& points, int a, int b) const;

  std::vector<bool> categorical_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_
