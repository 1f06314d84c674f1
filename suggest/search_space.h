#ifndef VERNIER_SUGGEST_SEARCH_SPACE_H_
#define VERNIER_SUGGEST_SEARCH_SPACE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// One value per parameter, in the order of the search space's parameters.
using ParameterAssignment = std::vector<v1::ParameterValue>;

// The parameters of a study and their mapping to and from the unit cube
// [0,1]^d, one coordinate per parameter. Linear, log and reverse-log scales
// are applied in the cube; INTEGER rounds, DISCRETE snaps to the nearest
// allowed value (in scaled space), CATEGORICAL takes equal-width buckets.
class SearchSpace {
 public:
  // Rejects an invalid spec with INVALID_ARGUMENT naming the parameter.
  static absl::StatusOr<SearchSpace> Create(std::span<const v1::ParameterSpec> parameters);
  static absl::StatusOr<SearchSpace> Create(
      const google::protobuf::RepeatedPtrField<v1::ParameterSpec>& parameters);

  int dimension() const { return static_cast<int>(parameters_.size()); }
  const std::vector<v1::ParameterSpec>& parameters() const { return parameters_; }
  // Index of a parameter by name, or nullopt.
  std::optional<int> IndexOf(std::string_view parameter_name) const;

  // Coordinates outside [0,1] are clamped.
  ParameterAssignment Decode(std::span<const double> unit_point) const;
  // The cube coordinates of an assignment: INVALID_ARGUMENT when a value is
  // missing, of the wrong type, out of bounds or not an allowed value.
  absl::StatusOr<std::vector<double>> Encode(const ParameterAssignment& assignment) const;
  // Accepts values in any order, reorders them to the space's order.
  absl::StatusOr<ParameterAssignment> Canonicalize(
      const google::protobuf::RepeatedPtrField<v1::ParameterValue>& values) const;

  // How many distinct values a parameter takes; nullopt for DOUBLE.
  std::optional<int64_t> Cardinality(int parameter_index) const;
  // The i-th value (0-based, ascending, or the categorical order) of a
  // parameter that has a cardinality.
  v1::ParameterValue ValueAt(int parameter_index, int64_t i) const;

  // A canonical text of an assignment, equal for equal points: for
  // de-duplication against history.
  static std::string Key(const ParameterAssignment& assignment);

 private:
  explicit SearchSpace(std::vector<v1::ParameterSpec> parameters);
  std::vector<v1::ParameterSpec> parameters_;
};

// "lr=0.01, layers=3, optimizer=adam": for logs and tables.
std::string FormatParameterValue(const v1::ParameterValue& value);
std::string FormatAssignment(const ParameterAssignment& assignment);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_SEARCH_SPACE_H_
