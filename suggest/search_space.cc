// The mapping between parameter values and the unit cube.
//
// Every parameter owns one coordinate x in [0,1]. A scale maps a continuous
// range [lo, hi] onto [0,1]:
//   linear:       x = (v - lo) / (hi - lo)
//   log:          x = (log v - log lo) / (log hi - log lo)
//   reverse log:  x = 1 - (log(hi + lo - v) - log lo) / (log hi - log lo),
//                 the mirror image of log, dense near hi. It is computed as
//                 x = -log1p(-(v - lo) / hi) / (log hi - log lo), the same
//                 function written so that values near lo keep their digits.
//
// DOUBLE uses [lo, hi] = [minValue, maxValue]; decoded values are clamped to
// the bounds and x = 0 and x = 1 decode to the bounds exactly.
//
// INTEGER treats each integer k as the cell [k - 1/2, k + 1/2): the scale is
// applied to [minValue - 1/2, maxValue + 1/2], a coordinate decodes to the
// integer whose cell holds it, and an integer encodes to the scaled position
// of k itself, which lies inside its own cell. So on a linear scale every
// integer owns exactly 1/(max - min + 1) of the axis (value = min +
// floor(x * (max - min + 1))), on a log scale an integer owns a share
// proportional to log((k + 1/2) / (k - 1/2)), Decode(Encode(k)) == k and
// Encode(Decode(x)) stays in the cell of x. Exactness holds while the bounds
// are within 2^52 of each other; beyond that a double cannot name every
// integer and the coordinate only approximates it.
//
// DISCRETE places each allowed value at its scaled position over [first,
// last] and decodes a coordinate to the value at the nearest position; a
// single allowed value sits at 0.5. Create rejects values whose positions
// coincide in floating point, so Decode(Encode(v)) == v exactly.
//
// CATEGORICAL splits [0,1] into k equal buckets in the listed order; a value
// encodes to the centre of its bucket. Scales are ignored, as in AI Platform.

#include "suggest/search_space.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "absl/base/casts.h"
#include "absl/base/internal/raw_logging.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"

namespace vernier::suggest {
namespace {

using v1::ParameterSpec;
using v1::ParameterValue;

// 2^63 as a double: the first value past the int64 range.
constexpr double kTwoToThe63 = 9223372036854775808.0;
constexpr size_t kMaxDiscreteValues = 1000;
// Error messages list at most this many allowed values.
constexpr size_t kListedValues = 12;

// Like %g, with the fewest significant digits that read back as the same
// double: "0.0001", "0.0031", "1e-05", "0.30000000000000004", and whole
// numbers below 10^15 in full ("64", "1500").
std::string FormatDouble(double value) {
  if (!std::isfinite(value)) return absl::StrFormat("%g", value);
  if (std::trunc(value) == value && std::abs(value) < 1e15) return absl::StrFormat("%.0f", value);
  std::string text;
  for (int precision = 1; precision <= std::numeric_limits<double>::max_digits10; ++precision) {
    text = absl::StrFormat("%.*g", precision, value);
    double read_back;
    if (absl::SimpleAtod(text, &read_back) && read_back == value) break;
  }
  return text;
}

bool IsLogScale(ParameterSpec::ScaleType scale) {
  return scale == ParameterSpec::UNIT_LOG_SCALE || scale == ParameterSpec::UNIT_REVERSE_LOG_SCALE;
}

std::string Quoted(absl::string_view name) { return absl::StrCat("\"", absl::CEscape(name), "\""); }

absl::Status ParameterError(const ParameterSpec& spec, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("parameter ", Quoted(spec.parameter_name()), ": ", message));
}

template <typename Values, typename Formatter>
std::string ListValues(const Values& values, Formatter format) {
  std::vector<std::string> listed;
  for (const auto& value : values) {
    if (listed.size() == kListedValues) break;
    listed.push_back(format(value));
  }
  std::string text = absl::StrJoin(listed, ", ");
  if (static_cast<size_t>(values.size()) > kListedValues) {
    absl::StrAppend(&text, ", ... (", values.size(), " values)");
  }
  return text;
}

// A continuous range and its scale; the building block of every type.
struct ScaledRange {
  double lo;
  double hi;
  ParameterSpec::ScaleType scale;

  double LogSpan() const { return std::log(hi) - std::log(lo); }

  double ToUnit(double value) const {
    if (hi == lo) return 0.5;
    if (value <= lo) return 0;
    if (value >= hi) return 1;
    double x;
    switch (scale) {
      case ParameterSpec::UNIT_LOG_SCALE:
        x = (std::log(value) - std::log(lo)) / LogSpan();
        break;
      case ParameterSpec::UNIT_REVERSE_LOG_SCALE:
        x = -std::log1p(-(value - lo) / hi) / LogSpan();
        break;
      default:
        x = (value - lo) / (hi - lo);
        break;
    }
    return std::clamp(x, 0.0, 1.0);
  }

  double FromUnit(double x) const {
    // `!(x > 0)` also sends NaN to the lower bound.
    if (!(x > 0)) return lo;
    if (x >= 1) return hi;
    double value;
    switch (scale) {
      case ParameterSpec::UNIT_LOG_SCALE:
        value = std::exp(std::log(lo) + x * LogSpan());
        break;
      case ParameterSpec::UNIT_REVERSE_LOG_SCALE:
        value = lo - hi * std::expm1(-x * LogSpan());
        break;
      default:
        value = lo + x * (hi - lo);
        break;
    }
    return std::clamp(value, lo, hi);
  }
};

int64_t IntegerMin(const ParameterSpec& spec) { return static_cast<int64_t>(spec.min_value()); }
int64_t IntegerMax(const ParameterSpec& spec) { return static_cast<int64_t>(spec.max_value()); }

ScaledRange RangeOf(const ParameterSpec& spec) {
  switch (spec.type()) {
    case ParameterSpec::INTEGER:
      return {spec.min_value() - 0.5, spec.max_value() + 0.5, spec.scale_type()};
    case ParameterSpec::DISCRETE:
      return {spec.discrete_values(0), spec.discrete_values(spec.discrete_values_size() - 1),
              spec.scale_type()};
    case ParameterSpec::CATEGORICAL:
      return {0.0, 1.0, ParameterSpec::UNIT_LINEAR_SCALE};
    default:
      return {spec.min_value(), spec.max_value(), spec.scale_type()};
  }
}

absl::Status ValidateBounds(const ParameterSpec& spec) {
  const double min = spec.min_value();
  const double max = spec.max_value();
  if (!std::isfinite(min))
    return ParameterError(spec, "minValue " + FormatDouble(min) + " is not finite");
  if (!std::isfinite(max))
    return ParameterError(spec, "maxValue " + FormatDouble(max) + " is not finite");
  if (!(min < max)) {
    return ParameterError(spec, absl::StrCat("minValue ", FormatDouble(min),
                                             " must be less than maxValue ", FormatDouble(max)));
  }
  if (spec.type() == ParameterSpec::DOUBLE && !std::isfinite(max - min)) {
    return ParameterError(spec, absl::StrCat("the range [", FormatDouble(min), ", ",
                                             FormatDouble(max), "] is too wide to represent"));
  }
  if (spec.type() == ParameterSpec::INTEGER) {
    for (auto [field, bound] : {std::pair{"minValue", min}, std::pair{"maxValue", max}}) {
      if (std::floor(bound) != bound) {
        return ParameterError(spec, absl::StrCat("INTEGER ", field, " ", FormatDouble(bound),
                                                 " is not a whole number"));
      }
      if (bound < -kTwoToThe63 || bound >= kTwoToThe63) {
        return ParameterError(spec, absl::StrCat("INTEGER ", field, " ", FormatDouble(bound),
                                                 " does not fit in a 64-bit integer"));
      }
    }
    const __int128 count = static_cast<__int128>(IntegerMax(spec)) - IntegerMin(spec) + 1;
    if (count > std::numeric_limits<int64_t>::max()) {
      return ParameterError(
          spec, absl::StrCat("the INTEGER range [", IntegerMin(spec), ", ", IntegerMax(spec),
                             "] holds more than 2^63 - 1 values"));
    }
  }
  if (IsLogScale(spec.scale_type()) && min <= 0) {
    return ParameterError(spec, absl::StrCat(ParameterSpec::ScaleType_Name(spec.scale_type()),
                                             " needs minValue > 0, got ", FormatDouble(min)));
  }
  return absl::OkStatus();
}

absl::Status ValidateCategorical(const ParameterSpec& spec) {
  if (spec.categorical_values().empty()) {
    return ParameterError(spec, "CATEGORICAL needs at least one of categoricalValues");
  }
  absl::flat_hash_set<std::string_view> seen;
  for (const std::string& value : spec.categorical_values()) {
    if (!seen.insert(value).second) {
      return ParameterError(spec,
                            absl::StrCat("categoricalValues lists ", Quoted(value), " twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateDiscrete(const ParameterSpec& spec) {
  const auto& values = spec.discrete_values();
  if (values.empty()) return ParameterError(spec, "DISCRETE needs at least one of discreteValues");
  if (static_cast<size_t>(values.size()) > kMaxDiscreteValues) {
    return ParameterError(spec,
                          absl::StrCat("discreteValues has ", values.size(), " values; at most ",
                                       kMaxDiscreteValues, " are allowed"));
  }
  for (int i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return ParameterError(
          spec, absl::StrCat("discreteValues ", FormatDouble(values[i]), " is not finite"));
    }
    if (i > 0 && !(values[i - 1] < values[i])) {
      return ParameterError(spec, absl::StrCat("discreteValues must be strictly increasing; ",
                                               FormatDouble(values[i - 1]), " is followed by ",
                                               FormatDouble(values[i])));
    }
  }
  if (IsLogScale(spec.scale_type()) && values[0] <= 0) {
    return ParameterError(spec,
                          absl::StrCat(ParameterSpec::ScaleType_Name(spec.scale_type()),
                                       " needs discreteValues > 0, got ", FormatDouble(values[0])));
  }
  const ScaledRange range = RangeOf(spec);
  for (int i = 1; i < values.size(); ++i) {
    if (!(range.ToUnit(values[i - 1]) < range.ToUnit(values[i]))) {
      return ParameterError(
          spec, absl::StrCat("discreteValues ", FormatDouble(values[i - 1]), " and ",
                             FormatDouble(values[i]), " are too close to tell apart on ",
                             ParameterSpec::ScaleType_Name(spec.scale_type())));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateParameter(const ParameterSpec& spec) {
  switch (spec.type()) {
    case ParameterSpec::DOUBLE:
    case ParameterSpec::INTEGER:
      return ValidateBounds(spec);
    case ParameterSpec::CATEGORICAL:
      return ValidateCategorical(spec);
    case ParameterSpec::DISCRETE:
      return ValidateDiscrete(spec);
    default:
      return ParameterError(spec, absl::StrCat("type ", ParameterSpec::Type_Name(spec.type()),
                                               " is not one of DOUBLE, INTEGER, CATEGORICAL, "
                                               "DISCRETE"));
  }
}

absl::string_view ValueCaseName(ParameterValue::ValueCase value_case) {
  switch (value_case) {
    case ParameterValue::kDoubleValue:
      return "double_value";
    case ParameterValue::kIntValue:
      return "int_value";
    case ParameterValue::kStringValue:
      return "string_value";
    default:
      return "no value";
  }
}

ParameterValue::ValueCase ExpectedCase(ParameterSpec::Type type) {
  switch (type) {
    case ParameterSpec::INTEGER:
      return ParameterValue::kIntValue;
    case ParameterSpec::CATEGORICAL:
      return ParameterValue::kStringValue;
    default:
      return ParameterValue::kDoubleValue;
  }
}

// Checks one value against its parameter and returns its cube coordinate.
absl::StatusOr<double> EncodeValue(const ParameterSpec& spec, const ParameterValue& value) {
  if (value.value_case() == ParameterValue::VALUE_NOT_SET) {
    return ParameterError(spec, "has no value");
  }
  const ParameterValue::ValueCase expected = ExpectedCase(spec.type());
  if (value.value_case() != expected) {
    return ParameterError(
        spec, absl::StrCat(ParameterSpec::Type_Name(spec.type()), " needs ",
                           ValueCaseName(expected), ", got ", ValueCaseName(value.value_case())));
  }
  const ScaledRange range = RangeOf(spec);
  switch (spec.type()) {
    case ParameterSpec::DOUBLE: {
      const double v = value.double_value();
      if (!std::isfinite(v)) return ParameterError(spec, FormatDouble(v) + " is not finite");
      if (v < spec.min_value() || v > spec.max_value()) {
        return ParameterError(
            spec, absl::StrCat(FormatDouble(v), " is outside [", FormatDouble(spec.min_value()),
                               ", ", FormatDouble(spec.max_value()), "]"));
      }
      return range.ToUnit(v);
    }
    case ParameterSpec::INTEGER: {
      const int64_t v = value.int_value();
      if (v < IntegerMin(spec) || v > IntegerMax(spec)) {
        return ParameterError(
            spec, absl::StrCat(v, " is outside [", IntegerMin(spec), ", ", IntegerMax(spec), "]"));
      }
      return range.ToUnit(static_cast<double>(v));
    }
    case ParameterSpec::DISCRETE: {
      const double v = value.double_value();
      if (!std::isfinite(v)) return ParameterError(spec, FormatDouble(v) + " is not finite");
      const auto& allowed = spec.discrete_values();
      if (!std::binary_search(allowed.begin(), allowed.end(), v)) {
        return ParameterError(spec,
                              absl::StrCat(FormatDouble(v), " is not one of the discreteValues ",
                                           ListValues(allowed, FormatDouble)));
      }
      return range.ToUnit(v);
    }
    case ParameterSpec::CATEGORICAL: {
      const auto& allowed = spec.categorical_values();
      const auto it = std::find(allowed.begin(), allowed.end(), value.string_value());
      if (it == allowed.end()) {
        return ParameterError(spec, absl::StrCat(Quoted(value.string_value()),
                                                 " is not one of the categoricalValues ",
                                                 ListValues(allowed, Quoted)));
      }
      return (static_cast<double>(it - allowed.begin()) + 0.5) / allowed.size();
    }
    default:
      return ParameterError(spec, "has no valid type");
  }
}

ParameterValue DecodeCoordinate(const ParameterSpec& spec, double x) {
  ParameterValue value;
  value.set_parameter_name(spec.parameter_name());
  if (!(x > 0)) x = 0;  // Also NaN.
  x = std::min(x, 1.0);
  const ScaledRange range = RangeOf(spec);
  switch (spec.type()) {
    case ParameterSpec::INTEGER: {
      const double nearest = std::floor(range.FromUnit(x) + 0.5);
      // Compare as doubles first: the cast is only defined inside the range.
      if (nearest <= spec.min_value()) {
        value.set_int_value(IntegerMin(spec));
      } else if (nearest >= spec.max_value()) {
        value.set_int_value(IntegerMax(spec));
      } else {
        value.set_int_value(static_cast<int64_t>(nearest));
      }
      break;
    }
    case ParameterSpec::DISCRETE: {
      const auto& allowed = spec.discrete_values();
      // The first value at or past x, then whichever neighbour is nearer.
      int low = 0;
      int high = allowed.size() - 1;
      while (low < high) {
        const int mid = low + (high - low) / 2;
        if (range.ToUnit(allowed[mid]) < x) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      int pick = low;
      if (low > 0 && x - range.ToUnit(allowed[low - 1]) <= range.ToUnit(allowed[low]) - x) {
        pick = low - 1;
      }
      value.set_double_value(allowed[pick]);
      break;
    }
    case ParameterSpec::CATEGORICAL: {
      const int count = spec.categorical_values_size();
      const int bucket = std::min(static_cast<int>(x * count), count - 1);
      value.set_string_value(spec.categorical_values(bucket));
      break;
    }
    default:
      value.set_double_value(range.FromUnit(x) + 0.0);  // + 0.0 turns -0 into 0.
      break;
  }
  return value;
}

// Where a conditional child's parent value lies among the parent's values;
// INVALID_ARGUMENT when the parent does not take it.
absl::StatusOr<int64_t> ParentValueIndex(const ParameterSpec& parent, const ParameterSpec& child,
                                         const ParameterValue& value) {
  const std::string where =
      absl::StrCat("conditional parameter ", Quoted(child.parameter_name()), ": parent value ",
                   value.value_case() == ParameterValue::kStringValue ? Quoted(value.string_value())
                                                                      : FormatParameterValue(value),
                   " is not a value of parent ", Quoted(parent.parameter_name()));
  switch (parent.type()) {
    case ParameterSpec::CATEGORICAL: {
      const auto& allowed = parent.categorical_values();
      const auto it = std::find(allowed.begin(), allowed.end(), value.string_value());
      if (it == allowed.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " (", ListValues(allowed, Quoted), ")"));
      }
      return it - allowed.begin();
    }
    case ParameterSpec::INTEGER:
      if (value.int_value() < IntegerMin(parent) || value.int_value() > IntegerMax(parent)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " ([", IntegerMin(parent), ", ", IntegerMax(parent), "])"));
      }
      return value.int_value() - IntegerMin(parent);
    default: {
      const auto& allowed = parent.discrete_values();
      const auto it = std::lower_bound(allowed.begin(), allowed.end(), value.double_value());
      if (it == allowed.end() || *it != value.double_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " (", ListValues(allowed, FormatDouble), ")"));
      }
      return it - allowed.begin();
    }
  }
}

// The parent values of a conditional spec, as ParameterValues of the
// parent's kind; INVALID_ARGUMENT when the condition does not fit the parent.
absl::StatusOr<std::vector<ParameterValue>> ParentValues(
    const ParameterSpec& parent, const v1::ConditionalParameterSpec& conditional) {
  const ParameterSpec& child = conditional.parameter_spec();
  const std::string prefix = absl::StrCat("conditional parameter ", Quoted(child.parameter_name()),
                                          " of ", Quoted(parent.parameter_name()), ": ");
  using Case = v1::ConditionalParameterSpec::ParentValueConditionCase;
  Case expected = Case::PARENT_VALUE_CONDITION_NOT_SET;
  absl::string_view expected_name;
  switch (parent.type()) {
    case ParameterSpec::CATEGORICAL:
      expected = Case::kParentCategoricalValues;
      expected_name = "parentCategoricalValues";
      break;
    case ParameterSpec::INTEGER:
      expected = Case::kParentIntValues;
      expected_name = "parentIntValues";
      break;
    case ParameterSpec::DISCRETE:
      expected = Case::kParentDiscreteValues;
      expected_name = "parentDiscreteValues";
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "a DOUBLE parameter cannot be a parent; make it DISCRETE"));
  }
  if (conditional.parent_value_condition_case() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, "a ", ParameterSpec::Type_Name(parent.type()), " parent needs ", expected_name));
  }
  std::vector<ParameterValue> values;
  switch (expected) {
    case Case::kParentCategoricalValues:
      for (const std::string& v : conditional.parent_categorical_values().values()) {
        values.emplace_back().set_string_value(v);
      }
      break;
    case Case::kParentIntValues:
      for (int64_t v : conditional.parent_int_values().values())
        values.emplace_back().set_int_value(v);
      break;
    default:
      for (double v : conditional.parent_discrete_values().values()) {
        values.emplace_back().set_double_value(v);
      }
      break;
  }
  if (values.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, expected_name, " lists no values"));
  }
  return values;
}

}  // namespace

bool SearchSpace::Condition::Matches(const ParameterValue& parent_value) const {
  switch (parent_value.value_case()) {
    case ParameterValue::kStringValue:
      return std::find(categories.begin(), categories.end(), parent_value.string_value()) !=
             categories.end();
    case ParameterValue::kIntValue:
      return std::find(ints.begin(), ints.end(), parent_value.int_value()) != ints.end();
    case ParameterValue::kDoubleValue:
      return std::find(discretes.begin(), discretes.end(), parent_value.double_value()) !=
             discretes.end();
    default:
      return false;
  }
}

SearchSpace::SearchSpace(std::vector<v1::ParameterSpec> parameters,
                         std::vector<Condition> conditions)
    : parameters_(std::move(parameters)), conditions_(std::move(conditions)) {
  for (const Condition& condition : conditions_) conditional_ |= condition.parent >= 0;
  PrepareWalk();
}

absl::StatusOr<SearchSpace> SearchSpace::Create(std::span<const v1::ParameterSpec> parameters) {
  if (parameters.empty()) {
    return absl::InvalidArgumentError("the search space has no parameters; give at least one");
  }
  std::vector<ParameterSpec> flat;
  std::vector<Condition> conditions;
  absl::flat_hash_set<std::string> names;
  // Validates one parameter and adds it and its subtree, depth-first.
  std::function<absl::Status(const ParameterSpec&, Condition, const std::string&)> add =
      [&](const ParameterSpec& spec, Condition condition,
          const std::string& where) -> absl::Status {
    if (spec.parameter_name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": parameterName is empty"));
    }
    if (!names.insert(spec.parameter_name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", Quoted(spec.parameter_name()), " is defined twice"));
    }
    VERNIER_RETURN_IF_ERROR(ValidateParameter(spec));
    const int index = static_cast<int>(flat.size());
    flat.push_back(spec);
    flat.back().clear_conditional_parameter_specs();
    conditions.push_back(std::move(condition));
    for (int k = 0; k < spec.conditional_parameter_specs_size(); ++k) {
      const v1::ConditionalParameterSpec& conditional = spec.conditional_parameter_specs(k);
      VERNIER_ASSIGN_OR_RETURN(std::vector<ParameterValue> values, ParentValues(spec, conditional));
      Condition child_condition;
      child_condition.parent = index;
      for (const ParameterValue& value : values) {
        VERNIER_RETURN_IF_ERROR(
            ParentValueIndex(spec, conditional.parameter_spec(), value).status());
        if (value.value_case() == ParameterValue::kStringValue) {
          child_condition.categories.push_back(value.string_value());
        } else if (value.value_case() == ParameterValue::kIntValue) {
          child_condition.ints.push_back(value.int_value());
        } else {
          child_condition.discretes.push_back(value.double_value());
        }
      }
      VERNIER_RETURN_IF_ERROR(
          add(conditional.parameter_spec(), std::move(child_condition),
              absl::StrCat("conditional parameter ", k, " of ", Quoted(spec.parameter_name()))));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < parameters.size(); ++i) {
    VERNIER_RETURN_IF_ERROR(
        add(parameters[i], Condition(), absl::StrCat("parameter at index ", i)));
  }
  return SearchSpace(std::move(flat), std::move(conditions));
}

absl::StatusOr<SearchSpace> SearchSpace::Create(
    const google::protobuf::RepeatedPtrField<v1::ParameterSpec>& parameters) {
  const std::vector<v1::ParameterSpec> copied(parameters.begin(), parameters.end());
  return Create(std::span<const v1::ParameterSpec>(copied));
}

absl::Status SearchSpace::InactiveError(size_t parameter_index) const {
  const int parent = conditions_[parameter_index].parent;
  return ParameterError(
      parameters_[parameter_index],
      absl::StrCat("is inactive (it exists only for some values of ",
                   Quoted(parameters_[parent].parameter_name()), ") and must have no value"));
}

bool SearchSpace::IsActive(int parameter_index, const ParameterAssignment& assignment) const {
  const int parent = conditions_[parameter_index].parent;
  if (parent < 0) return true;
  return IsActive(parent, assignment) && conditions_[parameter_index].Matches(assignment[parent]);
}

void SearchSpace::PrepareWalk() {
  const int d = dimension();
  branches_.assign(d, {});
  subtree_sizes_.assign(d, std::nullopt);
  top_level_.clear();
  // Children come after their parents, so a backwards pass sees every
  // subtree before the parameter that holds it.
  for (int i = d - 1; i >= 0; --i) {
    const std::optional<int64_t> cardinality = Cardinality(i);
    // The values with children, and those children.
    std::map<int64_t, std::vector<int>> children_by_value;
    for (int c = i + 1; c < d; ++c) {
      if (conditions_[c].parent != i) continue;
      std::vector<int64_t> value_indices;
      for (const std::string& v : conditions_[c].categories) {
        ParameterValue value;
        value.set_string_value(v);
        value_indices.push_back(*ParentValueIndex(parameters_[i], parameters_[c], value));
      }
      for (int64_t v : conditions_[c].ints) value_indices.push_back(v - IntegerMin(parameters_[i]));
      for (double v : conditions_[c].discretes) {
        ParameterValue value;
        value.set_double_value(v);
        value_indices.push_back(*ParentValueIndex(parameters_[i], parameters_[c], value));
      }
      for (int64_t v : value_indices) {
        std::vector<int>& children = children_by_value[v];
        if (std::find(children.begin(), children.end(), c) == children.end()) {
          children.push_back(c);
        }
      }
    }
    std::optional<int64_t> size = cardinality;
    if (size.has_value()) *size -= static_cast<int64_t>(children_by_value.size());
    for (auto& [value_index, children] : children_by_value) {
      std::stable_sort(children.begin(), children.end(), [this](int a, int b) {
        return subtree_sizes_[a].value_or(std::numeric_limits<int64_t>::max()) >
               subtree_sizes_[b].value_or(std::numeric_limits<int64_t>::max());
      });
      const std::optional<int64_t> branch = SiblingsSize(children);
      if (!size.has_value() || !branch.has_value() ||
          __builtin_add_overflow(*size, *branch, &*size)) {
        size = std::nullopt;
      }
      branches_[i].push_back({value_index, std::move(children)});
    }
    subtree_sizes_[i] = size;
  }
  for (int i = 0; i < d; ++i) {
    if (conditions_[i].parent < 0) top_level_.push_back(i);
  }
  std::stable_sort(top_level_.begin(), top_level_.end(), [this](int a, int b) {
    return subtree_sizes_[a].value_or(std::numeric_limits<int64_t>::max()) >
           subtree_sizes_[b].value_or(std::numeric_limits<int64_t>::max());
  });
  finite_size_ = SiblingsSize(top_level_);
}

std::optional<int64_t> SearchSpace::SiblingsSize(const std::vector<int>& siblings) const {
  int64_t size = 1;
  for (int s : siblings) {
    if (!subtree_sizes_[s].has_value() || __builtin_mul_overflow(size, *subtree_sizes_[s], &size)) {
      return std::nullopt;
    }
  }
  return size;
}

void SearchSpace::SiblingsAt(const std::vector<int>& siblings, int64_t index,
                             ParameterAssignment& point) const {
  for (int s : siblings) {
    const int64_t radix = *subtree_sizes_[s];
    SubtreeAt(s, index % radix, point);
    index /= radix;
  }
}

void SearchSpace::SubtreeAt(int parameter, int64_t index, ParameterAssignment& point) const {
  // Values without children count once each, in order; a value with
  // children counts once per assignment of its children.
  int64_t next_value = 0;
  for (const Branch& branch : branches_[parameter]) {
    const int64_t plain = branch.value_index - next_value;
    if (index < plain) {
      point[parameter] = ValueAt(parameter, next_value + index);
      return;
    }
    index -= plain;
    const int64_t size = *SiblingsSize(branch.children);
    if (index < size) {
      point[parameter] = ValueAt(parameter, branch.value_index);
      SiblingsAt(branch.children, index, point);
      return;
    }
    index -= size;
    next_value = branch.value_index + 1;
  }
  point[parameter] = ValueAt(parameter, next_value + index);
}

ParameterAssignment SearchSpace::PointAt(int64_t index) const {
  ABSL_RAW_CHECK(finite_size_.has_value() && index >= 0 && index < *finite_size_,
                 "SearchSpace::PointAt: no such point");
  ParameterAssignment point(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    point[i].set_parameter_name(parameters_[i].parameter_name());
  }
  SiblingsAt(top_level_, index, point);
  return point;
}

std::optional<int> SearchSpace::IndexOf(std::string_view parameter_name) const {
  for (int i = 0; i < dimension(); ++i) {
    if (parameters_[i].parameter_name() == parameter_name) return i;
  }
  return std::nullopt;
}

ParameterAssignment SearchSpace::Decode(std::span<const double> unit_point) const {
  ABSL_RAW_CHECK(unit_point.size() == parameters_.size(),
                 "SearchSpace::Decode needs one coordinate per parameter");
  ParameterAssignment assignment;
  assignment.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (IsActive(static_cast<int>(i), assignment)) {
      assignment.push_back(DecodeCoordinate(parameters_[i], unit_point[i]));
    } else {
      assignment.emplace_back().set_parameter_name(parameters_[i].parameter_name());
    }
  }
  return assignment;
}

absl::StatusOr<std::vector<double>> SearchSpace::Encode(
    const ParameterAssignment& assignment) const {
  if (assignment.size() != parameters_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected values for ", parameters_.size(),
                                                   " parameters, got ", assignment.size()));
  }
  std::vector<double> unit_point;
  unit_point.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const ParameterSpec& spec = parameters_[i];
    if (assignment[i].parameter_name() != spec.parameter_name()) {
      return absl::InvalidArgumentError(absl::StrCat("value ", i, " is for parameter ",
                                                     Quoted(assignment[i].parameter_name()),
                                                     ", expected ", Quoted(spec.parameter_name())));
    }
    if (!IsActive(static_cast<int>(i), assignment)) {
      if (assignment[i].value_case() != ParameterValue::VALUE_NOT_SET) {
        return InactiveError(i);
      }
      unit_point.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    absl::StatusOr<double> x = EncodeValue(spec, assignment[i]);
    if (!x.ok()) return x.status();
    unit_point.push_back(*x);
  }
  return unit_point;
}

absl::StatusOr<ParameterAssignment> SearchSpace::Canonicalize(
    const google::protobuf::RepeatedPtrField<v1::ParameterValue>& values) const {
  std::vector<const ParameterValue*> by_index(parameters_.size(), nullptr);
  for (const ParameterValue& value : values) {
    const std::optional<int> index = IndexOf(value.parameter_name());
    if (!index.has_value()) {
      std::vector<std::string> known;
      for (const ParameterSpec& spec : parameters_) known.push_back(spec.parameter_name());
      return absl::InvalidArgumentError(
          absl::StrCat("unknown parameter ", Quoted(value.parameter_name()),
                       "; the search space has ", absl::StrJoin(known, ", ")));
    }
    if (by_index[*index] != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", Quoted(value.parameter_name()), " is given twice"));
    }
    by_index[*index] = &value;
  }
  ParameterAssignment assignment;
  assignment.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    // Parents come first, so their values are in place when a child asks.
    if (!IsActive(static_cast<int>(i), assignment)) {
      if (by_index[i] != nullptr) return InactiveError(i);
      assignment.emplace_back().set_parameter_name(parameters_[i].parameter_name());
      continue;
    }
    if (by_index[i] == nullptr) return ParameterError(parameters_[i], "has no value");
    absl::StatusOr<double> x = EncodeValue(parameters_[i], *by_index[i]);
    if (!x.ok()) return x.status();
    ParameterValue value = *by_index[i];
    // -0 and 0 are the same point; keep one spelling so that keys agree.
    if (value.value_case() == ParameterValue::kDoubleValue) {
      value.set_double_value(value.double_value() + 0.0);
    }
    assignment.push_back(std::move(value));
  }
  return assignment;
}

std::optional<int64_t> SearchSpace::Cardinality(int parameter_index) const {
  ABSL_RAW_CHECK(parameter_index >= 0 && parameter_index < dimension(),
                 "SearchSpace::Cardinality: parameter index out of range");
  const ParameterSpec& spec = parameters_[parameter_index];
  switch (spec.type()) {
    case ParameterSpec::INTEGER:
      return IntegerMax(spec) - IntegerMin(spec) + 1;
    case ParameterSpec::DISCRETE:
      return spec.discrete_values_size();
    case ParameterSpec::CATEGORICAL:
      return spec.categorical_values_size();
    default:
      return std::nullopt;
  }
}

v1::ParameterValue SearchSpace::ValueAt(int parameter_index, int64_t i) const {
  const std::optional<int64_t> cardinality = Cardinality(parameter_index);
  ABSL_RAW_CHECK(cardinality.has_value() && i >= 0 && i < *cardinality,
                 "SearchSpace::ValueAt: no such value");
  const ParameterSpec& spec = parameters_[parameter_index];
  ParameterValue value;
  value.set_parameter_name(spec.parameter_name());
  switch (spec.type()) {
    case ParameterSpec::INTEGER:
      value.set_int_value(IntegerMin(spec) + i);
      break;
    case ParameterSpec::DISCRETE:
      value.set_double_value(spec.discrete_values(static_cast<int>(i)));
      break;
    default:
      value.set_string_value(spec.categorical_values(static_cast<int>(i)));
      break;
  }
  return value;
}

std::string SearchSpace::Key(const ParameterAssignment& assignment) {
  std::string key;
  for (const ParameterValue& value : assignment) {
    absl::StrAppend(&key, absl::CEscape(value.parameter_name()), "=");
    switch (value.value_case()) {
      case ParameterValue::kDoubleValue:
        // The bits of the double (+ 0.0, so that -0.0 is 0.0): equal
        // exactly when the values are, and a tenth of the time of their
        // shortest decimal text, which a suggestion over 10,000 trials
        // spent a fifth of its time writing.
        absl::StrAppend(&key, "d:", absl::Hex(absl::bit_cast<uint64_t>(value.double_value() + 0.0)));
        break;
      case ParameterValue::kIntValue:
        absl::StrAppend(&key, "i:", value.int_value());
        break;
      case ParameterValue::kStringValue:
        absl::StrAppend(&key, "s:", Quoted(value.string_value()));
        break;
      default:
        absl::StrAppend(&key, "-");
        break;
    }
    absl::StrAppend(&key, ";");
  }
  return key;
}

std::string FormatParameterValue(const v1::ParameterValue& value) {
  switch (value.value_case()) {
    case ParameterValue::kDoubleValue:
      // The shortest text that reads back as the same double: exact, and
      // as short as the value allows.
      return FormatDouble(value.double_value());
    case ParameterValue::kIntValue:
      return absl::StrCat(value.int_value());
    case ParameterValue::kStringValue:
      return value.string_value();
    default:
      return "(unset)";
  }
}

std::string FormatAssignment(const ParameterAssignment& assignment) {
  return absl::StrJoin(
      ActiveValues(assignment), ", ", [](std::string* out, const ParameterValue& value) {
        absl::StrAppend(out, value.parameter_name(), "=", FormatParameterValue(value));
      });
}

std::vector<v1::ParameterValue> ActiveValues(const ParameterAssignment& assignment) {
  std::vector<v1::ParameterValue> active;
  active.reserve(assignment.size());
  for (const ParameterValue& value : assignment) {
    if (value.value_case() != ParameterValue::VALUE_NOT_SET) active.push_back(value);
  }
  return active;
}

std::vector<const v1::ParameterSpec*> FlattenParameterSpecs(
    const google::protobuf::RepeatedPtrField<v1::ParameterSpec>& parameters) {
  std::vector<const v1::ParameterSpec*> flat;
  std::function<void(const ParameterSpec&)> add = [&](const ParameterSpec& spec) {
    flat.push_back(&spec);
    for (const v1::ConditionalParameterSpec& child : spec.conditional_parameter_specs()) {
      add(child.parameter_spec());
    }
  };
  for (const ParameterSpec& spec : parameters) add(spec);
  return flat;
}

}  // namespace vernier::suggest
