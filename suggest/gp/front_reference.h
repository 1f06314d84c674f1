#ifndef VERNIER_SUGGEST_GP_FRONT_REFERENCE_H_
#define VERNIER_SUGGEST_GP_FRONT_REFERENCE_H_

#include <Eigen/Dense>
#include <optional>
#include <random>
#include <vector>

namespace vernier::suggest {

// The reference point of a several-objective designer's hypervolume, which
// no user gives: inferred from the trials, in the designer's warped units
// (every objective larger-is-better, one row per objective, one column per
// trial).
//
// Without a front (two objectives, or no feasible trial yet) it lies below
// every trial's value by kMargin standard deviations of the values.
//
// With the Pareto front (three objectives or more) it lies inside the
// front's worst value in each objective, by kInset of the front's width (of
// the values' spread where every front point has the same value), so that
// the front's knee counts and not its far ends; except, at times, in one
// objective, the *focus*, where it lies a random kFocusInsetLow to
// kFocusInsetHigh of the width inside. The focus is the objective whose
// better half (values in the upper half of the front's range) holds the
// fewest trials, ties drawn at random, and there is one with probability
// 1 - (fewest / most)^2 of those counts: never while every objective's
// better half holds as many trials, rarely while they are nearly balanced.
//
// Why: the hypervolume a user judges a front by is taken at a reference
// the designer is not told, and from a reference out in every objective the
// improvement pays most at the front's cheapest corner, where a small gain
// in one objective is multiplied by the long distance to the reference in
// the others (on gboost_3obj a single depth-1 tree, the smallest model,
// varied in what does not change its size, took 60 to 87 of 90 model
// trials, and the trials good in error were few). A reference tight in the
// objective whose good end has had the fewest trials leaves that corner out
// of the box for the suggestion. A focus on a balanced front costs
// convergence (DTLZ2, where each objective's face is its own ideal), hence
// the probability. Measured in docs/benchmarks.md, "The front's least
// explored end". Pure: no I/O, randomness from the caller.
class FrontReference {
 public:
  static constexpr double kMargin = 0.1;
  static constexpr double kInset = 0.1;
  static constexpr double kFocusInsetLow = 0.5;
  static constexpr double kFocusInsetHigh = 0.7;

  // Below every trial's value (see the class comment); `warped` has at
  // least one column.
  Eigen::VectorXd BelowTrials(const Eigen::MatrixXd& warped) const;

  // Inside the front's worst values, tight in the focus objective (see the
  // class comment). `front` indexes columns of `warped` and is not empty.
  Eigen::VectorXd InsideFront(const Eigen::MatrixXd& warped, const std::vector<int>& front,
                              std::mt19937_64& rng) const;

  // The focus objective, if any: the one whose better half of the front's
  // range holds the fewest trials (columns of `warped`), ties drawn at
  // random; none with probability (fewest / most)^2 (see the class
  // comment).
  std::optional<int> FocusObjective(const Eigen::MatrixXd& warped, const std::vector<int>& front,
                                    std::mt19937_64& rng) const;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_FRONT_REFERENCE_H_
