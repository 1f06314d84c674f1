#ifndef VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_
#define VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_

#include <Eigen/Dense>
#include <vector>

namespace vernier::suggest {

// Picks at most `capacity` of n observations, so that a Gaussian process
// over a long history costs O(capacity^3), not O(n^3). Deterministic.
// - With no neighbourhood: the best ones (where the search is heading), the
//   most recent ones (what the search did last), and then the rest spread
//   over the space by farthest-point sampling (so no region the search has
//   seen is forgotten).
// - With a neighbourhood (a centre's distance to every observation): first
//   every observation nearest the centre, up to the neighbourhood's share,
//   whatever its value, so the region the acquisition searches is modelled
//   with all the trials there; a noisy study's best values are selected by
//   their luck, and a model of those alone is biased upwards. Then the best,
//   the recent and the spread ones share the rest in the same proportions.
class TrainingSetSelector {
 public:
  // Fractions of the capacity kept for the best and the most recent (of the
  // capacity left after the neighbourhood, when there is one).
  static constexpr double kBestShare = 0.3;
  static constexpr double kRecentShare = 0.2;

  struct Neighbourhood {
    // The scaled squared distance of each observation to the centre (n).
    Eigen::VectorXd squared_distances;
    // The fraction of the capacity given to the nearest, in [0, 1].
    double share = 0.5;
  };

  // `categorical` marks coordinates compared for equality only.
  explicit TrainingSetSelector(std::vector<bool> categorical);

  // `points` d x n in history order (later columns more recent), `values`
  // larger is better. Returns indices, ascending; all of them when
  // n <= capacity.
  std::vector<int> Select(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                          int capacity, const Neighbourhood* neighbourhood = nullptr) const;
  // The indices of 0 .. n - 1 that `selected` does not hold, ascending: the
  // trials a capped model leaves out.
  static std::vector<int> LeftOut(int n, const std::vector<int>& selected);

 private:
  std::vector<bool> categorical_;
  std::vector<int> continuous_rows_;
  std::vector<int> categorical_rows_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_TRAINING_SET_SELECTOR_H_
