#ifndef VERNIER_SUGGEST_GP_GP_INPUT_ENCODER_H_
#define VERNIER_SUGGEST_GP_GP_INPUT_ENCODER_H_

#include <Eigen/Dense>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// The Gaussian process's view of a search space: one coordinate per
// parameter. DOUBLE, INTEGER and DISCRETE parameters use their unit-cube
// coordinate (scales applied, so a log-scale parameter is modelled in log
// space); an INTEGER or DISCRETE value sits at the coordinate of the value
// itself. CATEGORICAL parameters hold the category's index, which the
// kernel compares for equality only.
//
// Snap maps any model point to the nearest point the space can take,
// through SearchSpace's own Decode and Encode, so the model is always
// asked about (and trained on) exactly the values a trial would get.
//
// Conditional spaces: the model sees the flattened tree, one coordinate per
// parameter of the tree. An inactive parameter sits at a fixed value outside
// its active range: kInactiveCoordinate for a continuous coordinate, one
// extra category (index category_count(j)) for a categorical one. Two trials
// that agree on which parameters are active are compared on exactly those;
// an inactive coordinate is at distance 0 from another inactive one, and at
// least 1 (a unit-cube width, or "another category") from any active value,
// so the length scale the fit learns for it says how much the branch
// matters. Snap canonicalises: whatever an inactive coordinate holds, it
// goes back to the fixed value; a coordinate that becomes active (its parent
// changed) starts at the middle of its range (the sentinel decodes as 0.5).
class GpInputEncoder {
 public:
  static constexpr double kInactiveCoordinate = -1.0;

  explicit GpInputEncoder(SearchSpace space);

  int dimension() const { return space_.dimension(); }
  const SearchSpace& space() const { return space_; }
  const std::vector<bool>& categorical() const { return categorical_; }
  // Categories of parameter j (0 for a non-categorical one).
  int category_count(int j) const { return category_counts_[j]; }
  bool has_continuous() const { return continuous_count_ > 0; }
  bool has_categorical() const { return continuous_count_ < dimension(); }
  // Whether some parameter is active only for some of its parent's values.
  bool conditional() const { return space_.conditional(); }
  // Whether other parameters' activity depends on parameter j.
  bool is_parent(int j) const { return is_parent_[j]; }
  // Whether coordinate j of an encoded (snapped) point is inactive.
  bool IsInactive(const Eigen::VectorXd& point, int j) const;

  absl::StatusOr<Eigen::VectorXd> Encode(const ParameterAssignment& assignment) const;
  // Coordinates out of range are clamped; categorical ones rounded.
  ParameterAssignment Decode(const Eigen::VectorXd& point) const;
  Eigen::VectorXd Snap(const Eigen::VectorXd& point) const;
  // A snapped model point from unit-cube coordinates (a quasi-random draw).
  Eigen::VectorXd FromUnit(std::span<const double> unit_point) const;
  // The values coordinate j of a snapped point can move to in one step: every
  // other category of a CATEGORICAL parameter, the next lower and higher
  // value of an INTEGER or DISCRETE one, none for DOUBLE.
  std::vector<double> Neighbours(const Eigen::VectorXd& point, int j) const;

 private:
  std::vector<double> UnitPoint(const Eigen::VectorXd& point) const;

  SearchSpace space_;
  std::vector<bool> categorical_;
  std::vector<int> category_counts_;
  std::vector<bool> is_parent_;
  int continuous_count_ = 0;
  // Every parameter is DOUBLE: snapping is clamping to [0,1].
  bool all_double_ = true;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_GP_INPUT_ENCODER_H_
