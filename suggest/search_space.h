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
// An inactive parameter of a conditional space has its name and no value
// (VALUE_NOT_SET); a trial carries only the active ones (ActiveValues).
using ParameterAssignment = std::vector<v1::ParameterValue>;

// The parameters of a study and their mapping to and from the unit cube
// [0,1]^d, one coordinate per parameter. Linear, log and reverse-log scales
// are applied in the cube; INTEGER rounds, DISCRETE snaps to the nearest
// allowed value (in scaled space), CATEGORICAL takes equal-width buckets.
//
// A conditional space (parameters with conditional_parameter_specs) is
// flattened: parameters() lists the whole tree in depth-first pre-order
// (each parent before its children, the conditional specs cleared), and
// every parameter of the tree owns a coordinate. A child is active when its
// parent is active and takes one of the child's parent values; Decode leaves
// an inactive parameter without a value, whatever its coordinate.
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
  // Whether some parameter has conditional children.
  bool conditional() const { return conditional_; }
  // The index of a parameter's parent; -1 for a top-level parameter.
  int ParentOf(int parameter_index) const { return conditions_[parameter_index].parent; }
  // Whether parameter i is active under the values of its ancestors in
  // `assignment` (which must have one entry per parameter).
  bool IsActive(int parameter_index, const ParameterAssignment& assignment) const;

  // Coordinates outside [0,1] are clamped; inactive parameters get no value.
  ParameterAssignment Decode(std::span<const double> unit_point) const;
  // The cube coordinates of an assignment: INVALID_ARGUMENT when a value is
  // missing, of the wrong type, out of bounds or not an allowed value, or
  // when an inactive parameter has a value. An inactive parameter's
  // coordinate is NaN.
  absl::StatusOr<std::vector<double>> Encode(const ParameterAssignment& assignment) const;
  // Accepts values in any order, reorders them to the space's order; the
  // inactive parameters of a conditional space must be absent.
  absl::StatusOr<ParameterAssignment> Canonicalize(
      const google::protobuf::RepeatedPtrField<v1::ParameterValue>& values) const;

  // How many distinct values a parameter takes; nullopt for DOUBLE.
  std::optional<int64_t> Cardinality(int parameter_index) const;
  // The i-th value (0-based, ascending, or the categorical order) of a
  // parameter that has a cardinality.
  v1::ParameterValue ValueAt(int parameter_index, int64_t i) const;

  // How many distinct assignments the space has, walking the tree (a parent
  // value without children counts once, one with children counts as many
  // times as its children have assignments); nullopt when a reachable
  // parameter is DOUBLE or the count passes 2^63 - 1.
  std::optional<int64_t> FiniteSize() const { return finite_size_; }
  // The index-th assignment, 0 <= index < FiniteSize(): a mixed-radix
  // number whose digits are the sibling parameters (the one with the most
  // assignments first), each digit the parameter's value and its subtree.
  ParameterAssignment PointAt(int64_t index) const;

  // A canonical text of an assignment, equal for equal points: for
  // de-duplication against history.
  static std::string Key(const ParameterAssignment& assignment);

 private:
  // What makes a parameter active: its parent's index (-1: always active)
  // and the parent's values that do.
  struct Condition {
    int parent = -1;
    std::vector<std::string> categories;
    std::vector<int64_t> ints;
    std::vector<double> discretes;
    bool Matches(const v1::ParameterValue& parent_value) const;
  };
  // A parent value with children: its index among the parent's values and
  // the children it activates (most assignments first).
  struct Branch {
    int64_t value_index;
    std::vector<int> children;
  };

  SearchSpace(std::vector<v1::ParameterSpec> parameters, std::vector<Condition> conditions);
  absl::Status InactiveError(size_t parameter_index) const;
  // Counts the assignments of each subtree; fills branches_ and finite_size_.
  void PrepareWalk();
  std::optional<int64_t> SiblingsSize(const std::vector<int>& siblings) const;
  void SiblingsAt(const std::vector<int>& siblings, int64_t index,
                  ParameterAssignment& point) const;
  void SubtreeAt(int parameter, int64_t index, ParameterAssignment& point) const;

  std::vector<v1::ParameterSpec> parameters_;
  std::vector<Condition> conditions_;
  bool conditional_ = false;
  // Per parameter, the values with children, by value index.
  std::vector<std::vector<Branch>> branches_;
  // Per parameter, its subtree's assignments; nullopt when not finite.
  std::vector<std::optional<int64_t>> subtree_sizes_;
  std::vector<int> top_level_;
  std::optional<int64_t> finite_size_;
};

// "lr=0.01, layers=3, optimizer=adam": for logs and tables; inactive
// parameters are left out.
std::string FormatParameterValue(const v1::ParameterValue& value);
std::string FormatAssignment(const ParameterAssignment& assignment);

// The values of an assignment that are set: what a trial carries.
std::vector<v1::ParameterValue> ActiveValues(const ParameterAssignment& assignment);

// The parameters of a spec's tree, depth-first, parents before children
// (conditional specs left in place): for tables that list every parameter.
std::vector<const v1::ParameterSpec*> FlattenParameterSpecs(
    const google::protobuf::RepeatedPtrField<v1::ParameterSpec>& parameters);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_SEARCH_SPACE_H_
