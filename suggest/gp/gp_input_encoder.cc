#include "suggest/gp/gp_input_encoder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/base/internal/raw_logging.h"

namespace vernier::suggest {

GpInputEncoder::GpInputEncoder(SearchSpace space) : space_(std::move(space)) {
  for (const v1::ParameterSpec& parameter : space_.parameters()) {
    const bool categorical = parameter.type() == v1::ParameterSpec::CATEGORICAL;
    categorical_.push_back(categorical);
    category_counts_.push_back(categorical ? parameter.categorical_values_size() : 0);
    if (!categorical) ++continuous_count_;
    if (parameter.type() != v1::ParameterSpec::DOUBLE) all_double_ = false;
  }
  is_parent_.assign(space_.dimension(), false);
  for (int j = 0; j < space_.dimension(); ++j) {
    if (space_.ParentOf(j) >= 0) is_parent_[space_.ParentOf(j)] = true;
  }
}

bool GpInputEncoder::IsInactive(const Eigen::VectorXd& point, int j) const {
  return categorical_[j] ? point[j] > category_counts_[j] - 0.5 : point[j] < -0.5;
}

absl::StatusOr<Eigen::VectorXd> GpInputEncoder::Encode(
    const ParameterAssignment& assignment) const {
  absl::StatusOr<std::vector<double>> unit = space_.Encode(assignment);
  if (!unit.ok()) return unit.status();
  Eigen::VectorXd point(dimension());
  for (int j = 0; j < dimension(); ++j) {
    if (std::isnan((*unit)[j])) {  // Inactive.
      point[j] = categorical_[j] ? category_counts_[j] : kInactiveCoordinate;
      continue;
    }
    point[j] = categorical_[j] ? std::min(std::floor((*unit)[j] * category_counts_[j]),
                                          category_counts_[j] - 1.0)
                               : (*unit)[j];
  }
  return point;
}

std::vector<double> GpInputEncoder::UnitPoint(const Eigen::VectorXd& point) const {
  ABSL_RAW_CHECK(point.size() == dimension(), "GpInputEncoder: point dimension");
  std::vector<double> unit(dimension());
  for (int j = 0; j < dimension(); ++j) {
    if (IsInactive(point, j)) {
      // Decode drops it if it is still inactive; if its parent changed, it
      // starts in the middle of its range.
      unit[j] = 0.5;
    } else if (categorical_[j]) {
      const double index = std::clamp(std::round(point[j]), 0.0, category_counts_[j] - 1.0);
      unit[j] = (index + 0.5) / category_counts_[j];
    } else {
      unit[j] = std::clamp(point[j], 0.0, 1.0);
    }
  }
  return unit;
}

ParameterAssignment GpInputEncoder::Decode(const Eigen::VectorXd& point) const {
  return space_.Decode(UnitPoint(point));
}

Eigen::VectorXd GpInputEncoder::Snap(const Eigen::VectorXd& point) const {
  if (all_double_) return point.cwiseMax(0.0).cwiseMin(1.0);
  absl::StatusOr<Eigen::VectorXd> snapped = Encode(Decode(point));
  // Decode always yields values Encode accepts.
  ABSL_RAW_CHECK(snapped.ok(), "GpInputEncoder: a decoded point does not encode");
  return *std::move(snapped);
}

Eigen::VectorXd GpInputEncoder::FromUnit(std::span<const double> unit_point) const {
  if (all_double_) return Eigen::Map<const Eigen::VectorXd>(unit_point.data(), unit_point.size());
  absl::StatusOr<Eigen::VectorXd> point = Encode(space_.Decode(unit_point));
  ABSL_RAW_CHECK(point.ok(), "GpInputEncoder: a decoded point does not encode");
  return *std::move(point);
}

std::vector<double> GpInputEncoder::Neighbours(const Eigen::VectorXd& point, int j) const {
  std::vector<double> neighbours;
  if (IsInactive(point, j)) return neighbours;
  const v1::ParameterSpec& parameter = space_.parameters()[j];
  switch (parameter.type()) {
    case v1::ParameterSpec::CATEGORICAL:
      for (int category = 0; category < category_counts_[j]; ++category) {
        if (category != static_cast<int>(point[j])) neighbours.push_back(category);
      }
      break;
    case v1::ParameterSpec::INTEGER:
    case v1::ParameterSpec::DISCRETE: {
      ParameterAssignment assignment = Decode(point);
      const v1::ParameterValue current = assignment[j];
      for (int step : {-1, 1}) {
        if (parameter.type() == v1::ParameterSpec::INTEGER) {
          const int64_t value = current.int_value();
          if ((step < 0 && value <= static_cast<int64_t>(parameter.min_value())) ||
              (step > 0 && value >= static_cast<int64_t>(parameter.max_value()))) {
            continue;
          }
          assignment[j].set_int_value(value + step);
        } else {
          const auto& allowed = parameter.discrete_values();
          const auto at = std::lower_bound(allowed.begin(), allowed.end(), current.double_value());
          const int index = static_cast<int>(at - allowed.begin()) + step;
          if (index < 0 || index >= allowed.size()) continue;
          assignment[j].set_double_value(allowed[index]);
        }
        absl::StatusOr<Eigen::VectorXd> moved = Encode(assignment);
        if (moved.ok()) neighbours.push_back((*moved)[j]);
      }
      break;
    }
    default:
      break;
  }
  return neighbours;
}

}  // namespace vernier::suggest
