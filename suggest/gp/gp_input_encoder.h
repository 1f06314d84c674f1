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
class GpInputEncoder {
 public:
  explicit GpInputEncoder(SearchSpace space);

  int dimension() const { return space_.dimension(); }
  const SearchSpace& space() const { return space_; }
  const std::vector<bool>& categorical() const { return categorical_; }
  // Categories of parameter j (0 for a non-categorical one).
  int category_count(int j) const { return category_counts_[j]; }
  bool has_continuous() const { return continuous_count_ > 0; }

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
  int continuous_count_ = 0;
  // Every parameter is DOUBLE: snapping is clamping to [0,1].
  bool all_double_ = true;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_GP_INPUT_ENCODER_H_
