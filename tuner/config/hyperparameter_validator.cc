#include "tuner/config/hyperparameter_validator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "metrics/metric_pattern.h"
#include "suggest/early_stopping/early_stopping_policy_factory.h"
#include "text/absl_view.h"
#include "text/control_chars.h"
#include "tuner/config/environment_rules.h"

namespace vernier::config {
namespace {

using text::AbslView;

using ParameterList = google::protobuf::RepeatedPtrField<v1::ParameterSpec>;

// Doubles hold every integer up to 2^53 exactly; INTEGER bounds beyond that
// would silently change when suggested values are rounded.
constexpr double kLargestExactInteger = 9007199254740992.0;

// INVALID_ARGUMENT naming the field when `value` is over `max_bytes`; the
// message never repeats the value, which may be megabytes.
absl::Status CheckBytes(const Locator& locate, std::string_view path, std::string_view value,
                        size_t max_bytes) {
  if (value.size() <= max_bytes) return absl::OkStatus();
  return InvalidField(
      locate, path,
      absl::StrCat("is ", value.size(), " bytes; at most ", max_bytes, " are allowed"));
}

// The same for a list of strings: at most `max_count` of at most
// `max_bytes` each.
absl::Status CheckList(const Locator& locate, std::string_view path,
                       const google::protobuf::RepeatedPtrField<std::string>& values, int max_count,
                       size_t max_bytes) {
  if (values.size() > max_count) {
    return InvalidField(
        locate, path,
        absl::StrCat("has ", values.size(), " values; at most ", max_count, " are allowed"));
  }
  for (int i = 0; i < values.size(); ++i) {
    VERNIER_RETURN_IF_ERROR(
        CheckBytes(locate, absl::StrCat(AbslView(path), "[", i, "]"), values[i], max_bytes));
  }
  return absl::OkStatus();
}

// The whole search space serialized, which bounds a study in the answers
// that list it.
absl::Status CheckSpecBytes(const Locator& locate, std::string_view path,
                            const google::protobuf::MessageLite& spec) {
  const size_t bytes = spec.ByteSizeLong();
  if (bytes <= kMaxSpecBytes) return absl::OkStatus();
  return InvalidField(locate, path,
                      absl::StrCat("is ", bytes, " bytes once encoded; at most ", kMaxSpecBytes,
                                   " are allowed (fewer or shorter parameter values)"));
}

std::string Child(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  return absl::StrCat(AbslView(parent), ".", AbslView(field));
}

std::string Element(std::string_view list, int index) {
  return absl::StrCat(AbslView(list), "[", index, "]");
}

// Shortest text that reads back as the same double, so that two bounds that
// differ in the 10th digit do not print alike.
std::string FormatNumber(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

Locator Nested(const Locator& locate, std::string_view prefix) {
  return [&locate, prefix = std::string(prefix)](std::string_view path) {
    return locate(Child(prefix, path));
  };
}

std::string GoalProblem(v1::MetricSpec::Goal goal) {
  if (goal == v1::MetricSpec::GOAL_UNSPECIFIED) {
    return "the goal is required: MAXIMIZE or MINIMIZE";
  }
  if (!v1::MetricSpec::Goal_IsValid(goal)) {
    return absl::StrCat("unknown goal ", static_cast<int>(goal), "; allowed: MAXIMIZE, MINIMIZE");
  }
  return "";
}

absl::Status ValidateAlgorithm(v1::Algorithm algorithm, std::string_view path,
                               const Locator& locate) {
  if (v1::Algorithm_IsValid(algorithm)) return absl::OkStatus();
  return InvalidField(locate, path,
                      absl::StrCat("unknown algorithm ", static_cast<int>(algorithm),
                                   "; allowed: ALGORITHM_UNSPECIFIED, GRID_SEARCH, RANDOM_SEARCH, "
                                   "QUASI_RANDOM_SEARCH, GAUSSIAN_PROCESS_BANDIT"));
}

// reduction_factor and grace_period shape the rungs of ASHA and Hyperband,
// and max_step their last rung or the learning-curve policy's horizon; with
// another policy they would be silently ignored.
absl::Status ValidateStoppingSettings(const v1::EarlyStoppingSpec& early_stopping,
                                      std::string_view path, const Locator& locate) {
  const double factor = early_stopping.reduction_factor();
  if (factor != 0 && !(factor > 1 && std::isfinite(factor))) {
    return InvalidField(locate, Child(path, "reduction_factor"),
                        absl::StrCat("must be greater than 1 (0 or absent means ",
                                     FormatNumber(suggest::kDefaultReductionFactor), "), got ",
                                     FormatNumber(factor)));
  }
  for (const auto& [value, field] : {std::pair{early_stopping.grace_period(), "grace_period"},
                                     std::pair{early_stopping.max_step(), "max_step"}}) {
    if (value < 0) {
      return InvalidField(locate, Child(path, field),
                          absl::StrCat("must not be negative, got ", value));
    }
  }
  const double margin = early_stopping.tie_margin();
  if (!(margin >= 0 && margin <= suggest::kMaxTieMargin)) {
    return InvalidField(
        locate, Child(path, "tie_margin"),
        absl::StrCat("must be a number of report noises from 0 to ",
                     FormatNumber(suggest::kMaxTieMargin), ", got ", FormatNumber(margin)));
  }
  const v1::EarlyStoppingSpec effective = suggest::EffectiveEarlyStopping(early_stopping);
  const v1::EarlyStoppingSpec::Policy policy = effective.policy();
  const bool rungs = suggest::UsesRungs(policy);
  const bool horizon = rungs || policy == v1::EarlyStoppingSpec::LEARNING_CURVE;
  for (const auto& [set, used, field, users] :
       {std::tuple{factor != 0, rungs, "reduction_factor", "ASHA and HYPERBAND policies use"},
        std::tuple{early_stopping.grace_period() != 0, rungs, "grace_period",
                   "ASHA and HYPERBAND policies use"},
        std::tuple{early_stopping.max_step() != 0, horizon, "max_step",
                   "ASHA, HYPERBAND and LEARNING_CURVE policies use"},
        std::tuple{early_stopping.has_tie_margin(), policy == v1::EarlyStoppingSpec::LEARNING_CURVE,
                   "tie_margin",
                   "LEARNING_CURVE policy uses"}}) {
    if (!set || used) continue;
    return InvalidField(
        locate, Child(path, field),
        absl::StrCat("only the ", users, " it, and the policy is ",
                     v1::EarlyStoppingSpec::Policy_Name(policy),
                     early_stopping.policy() == v1::EarlyStoppingSpec::POLICY_UNSPECIFIED
                         ? " (the default); set another policy or remove it"
                         : "; set another policy or remove it"));
  }
  if (!rungs) return absl::OkStatus();
  // The first rung must leave room to train reduction_factor times longer.
  const double needed =
      static_cast<double>(effective.grace_period()) * effective.reduction_factor();
  if (effective.max_step() > 0 && static_cast<double>(effective.max_step()) < needed) {
    return InvalidField(
        locate, Child(path, "max_step"),
        absl::StrCat("must be at least ", FormatNumber(needed), " (the grace period ",
                     effective.grace_period(), " times the reduction factor ",
                     FormatNumber(effective.reduction_factor()),
                     ") for a rung to stand before it, got ", effective.max_step()));
  }
  return absl::OkStatus();
}

absl::Status ValidateEarlyStoppingSettings(const v1::EarlyStoppingSpec& early_stopping,
                                           std::string_view path, const Locator& locate) {
  if (!v1::EarlyStoppingSpec::Policy_IsValid(early_stopping.policy())) {
    return InvalidField(
        locate, Child(path, "policy"),
        absl::StrCat("unknown early stopping policy ", static_cast<int>(early_stopping.policy()),
                     "; allowed: POLICY_UNSPECIFIED, MEDIAN_STOPPING, ASHA, HYPERBAND, "
                     "LEARNING_CURVE"));
  }
  if (early_stopping.min_trials() < 0) {
    return InvalidField(locate, Child(path, "min_trials"),
                        absl::StrCat("must not be negative, got ", early_stopping.min_trials()));
  }
  if (early_stopping.start_step() < 0) {
    return InvalidField(locate, Child(path, "start_step"),
                        absl::StrCat("must not be negative, got ", early_stopping.start_step()));
  }
  return ValidateStoppingSettings(early_stopping, path, locate);
}

bool IsValidParameterName(std::string_view name) {
  if (name.empty() || !(absl::ascii_isalpha(name[0]) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

bool IsLogScale(v1::ParameterSpec::ScaleType scale) {
  return scale == v1::ParameterSpec::UNIT_LOG_SCALE ||
         scale == v1::ParameterSpec::UNIT_REVERSE_LOG_SCALE;
}

absl::Status ValidateFinite(double value, std::string_view path, const Locator& locate) {
  if (std::isfinite(value)) return absl::OkStatus();
  return InvalidField(locate, path,
                      absl::StrCat("must be a finite number, got ", FormatNumber(value)));
}

// The fields of one parameter type must not carry values that belong to
// another type: they would be ignored, and the user meant something else.
absl::Status RejectForeignFields(const v1::ParameterSpec& param, std::string_view path,
                                 const Locator& locate) {
  const v1::ParameterSpec::Type type = param.type();
  const std::string type_name = v1::ParameterSpec::Type_Name(type);
  const bool takes_bounds = type == v1::ParameterSpec::DOUBLE || type == v1::ParameterSpec::INTEGER;
  if (!takes_bounds && param.min_value() != 0) {
    return InvalidField(
        locate, Child(path, "min_value"),
        absl::StrCat("only DOUBLE and INTEGER parameters take bounds, this one is ", type_name));
  }
  if (!takes_bounds && param.max_value() != 0) {
    return InvalidField(
        locate, Child(path, "max_value"),
        absl::StrCat("only DOUBLE and INTEGER parameters take bounds, this one is ", type_name));
  }
  if (type != v1::ParameterSpec::CATEGORICAL && !param.categorical_values().empty()) {
    return InvalidField(
        locate, Child(path, "categorical_values"),
        absl::StrCat("only CATEGORICAL parameters take categorical values, this one is ",
                     type_name));
  }
  if (type != v1::ParameterSpec::DISCRETE && !param.discrete_values().empty()) {
    return InvalidField(
        locate, Child(path, "discrete_values"),
        absl::StrCat("only DISCRETE parameters take discrete values, this one is ", type_name));
  }
  if (type == v1::ParameterSpec::CATEGORICAL && IsLogScale(param.scale_type())) {
    return InvalidField(locate, Child(path, "scale_type"),
                        absl::StrCat("CATEGORICAL parameters cannot be scaled, got ",
                                     v1::ParameterSpec::ScaleType_Name(param.scale_type())));
  }
  return absl::OkStatus();
}

absl::Status ValidateBounds(const v1::ParameterSpec& param, std::string_view path,
                            const Locator& locate) {
  const std::string min_path = Child(path, "min_value");
  const std::string max_path = Child(path, "max_value");
  if (absl::Status status = ValidateFinite(param.min_value(), min_path, locate); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateFinite(param.max_value(), max_path, locate); !status.ok()) {
    return status;
  }
  if (param.type() == v1::ParameterSpec::INTEGER) {
    for (const auto& [bound, bound_path] :
         {std::pair{param.min_value(), &min_path}, std::pair{param.max_value(), &max_path}}) {
      if (std::trunc(bound) != bound) {
        return InvalidField(locate, *bound_path,
                            absl::StrCat("an INTEGER parameter needs whole-number bounds, got ",
                                         FormatNumber(bound)));
      }
      if (std::abs(bound) > kLargestExactInteger) {
        return InvalidField(
            locate, *bound_path,
            absl::StrCat("INTEGER bounds must lie within +-2^53 = +-9007199254740992, got ",
                         FormatNumber(bound)));
      }
    }
  }
  if (param.min_value() >= param.max_value()) {
    return InvalidField(
        locate, max_path,
        absl::StrCat("the maximum (", FormatNumber(param.max_value()),
                     ") must be greater than the minimum (", FormatNumber(param.min_value()), ")"));
  }
  // The designers work on max - min; a range whose width overflows a double
  // would reach them as inf (and fail later, where no file:line is known).
  if (!std::isfinite(param.max_value() - param.min_value())) {
    return InvalidField(locate, max_path,
                        absl::StrCat("the range [", FormatNumber(param.min_value()), ", ",
                                     FormatNumber(param.max_value()),
                                     "] is too wide: its width overflows a double"));
  }
  if (IsLogScale(param.scale_type()) && param.min_value() <= 0) {
    return InvalidField(
        locate, min_path,
        absl::StrCat(v1::ParameterSpec::ScaleType_Name(param.scale_type()),
                     " needs a positive minimum, got ", FormatNumber(param.min_value())));
  }
  return absl::OkStatus();
}

absl::Status ValidateCategoricalValues(const v1::ParameterSpec& param, std::string_view path,
                                       const Locator& locate) {
  const std::string values_path = Child(path, "categorical_values");
  if (param.categorical_values().empty()) {
    return InvalidField(locate, values_path,
                        absl::StrCat("CATEGORICAL parameter \"", param.parameter_name(),
                                     "\" needs at least one value"));
  }
  if (param.categorical_values_size() > kMaxCategoricalValues) {
    return InvalidField(locate, values_path,
                        absl::StrCat("has ", param.categorical_values_size(), " values; at most ",
                                     kMaxCategoricalValues, " are allowed"));
  }
  absl::flat_hash_map<std::string_view, int> first_index;
  for (int i = 0; i < param.categorical_values_size(); ++i) {
    const std::string& value = param.categorical_values(i);
    if (value.empty()) {
      return InvalidField(locate, Element(values_path, i), "categorical values must not be empty");
    }
    if (value.size() > kMaxCategoricalValueBytes) {
      return InvalidField(
          locate, Element(values_path, i),
          absl::StrCat("the categorical value is ", value.size(), " bytes; at most ",
                       kMaxCategoricalValueBytes, " are allowed"));
    }
    // A value becomes a command-line argument: a NUL would cut it short (two
    // values would run as the same flag), a newline would forge log lines.
    if (std::optional<std::string> refusal =
            text::ControlChars::Refusal("the categorical value", value)) {
      return InvalidField(locate, Element(values_path, i), *refusal);
    }
    const auto [it, inserted] = first_index.emplace(value, i);
    if (!inserted) {
      return InvalidField(locate, Element(values_path, i),
                          absl::StrCat("duplicate categorical value \"", value,
                                       "\" (first at index ", it->second, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateDiscreteValues(const v1::ParameterSpec& param, std::string_view path,
                                    const Locator& locate) {
  const std::string values_path = Child(path, "discrete_values");
  const auto& values = param.discrete_values();
  if (values.empty()) {
    return InvalidField(locate, values_path,
                        absl::StrCat("DISCRETE parameter \"", param.parameter_name(),
                                     "\" needs at least one value"));
  }
  if (values.size() > kMaxDiscreteValues) {
    return InvalidField(locate, values_path,
                        absl::StrCat("has ", values.size(), " values; at most ", kMaxDiscreteValues,
                                     " are allowed"));
  }
  for (int i = 0; i < values.size(); ++i) {
    if (absl::Status status = ValidateFinite(values[i], Element(values_path, i), locate);
        !status.ok()) {
      return status;
    }
    if (i > 0 && values[i] <= values[i - 1]) {
      return InvalidField(locate, Element(values_path, i),
                          absl::StrCat("values must be strictly increasing, but value ",
                                       FormatNumber(values[i]), " at index ", i, " follows ",
                                       FormatNumber(values[i - 1]), " at index ", i - 1));
    }
  }
  if (IsLogScale(param.scale_type()) && values[0] <= 0) {
    return InvalidField(locate, Element(values_path, 0),
                        absl::StrCat(v1::ParameterSpec::ScaleType_Name(param.scale_type()),
                                     " needs positive values, got ", FormatNumber(values[0])));
  }
  return absl::OkStatus();
}

absl::Status ValidateParameter(const v1::ParameterSpec& param, std::string_view path,
                               v1::Algorithm algorithm, const Locator& locate) {
  const std::string name_path = Child(path, "parameter_name");
  if (param.parameter_name().empty()) {
    return InvalidField(locate, name_path, "the parameter name is required");
  }
  VERNIER_RETURN_IF_ERROR(CheckBytes(locate, name_path, param.parameter_name(), kMaxNameBytes));
  if (!IsValidParameterName(param.parameter_name())) {
    return InvalidField(locate, name_path,
                        absl::StrCat("parameter name \"", param.parameter_name(),
                                     "\" must start with a letter or '_' and contain only letters, "
                                     "digits, '_', '.' and '-' (it becomes a --name=value flag)"));
  }
  const std::string type_path = Child(path, "type");
  if (param.type() == v1::ParameterSpec::TYPE_UNSPECIFIED) {
    return InvalidField(locate, type_path,
                        absl::StrCat("parameter \"", param.parameter_name(),
                                     "\" needs a type: DOUBLE, INTEGER, CATEGORICAL or DISCRETE"));
  }
  if (!v1::ParameterSpec::Type_IsValid(param.type())) {
    return InvalidField(locate, type_path,
                        absl::StrCat("unknown parameter type ", static_cast<int>(param.type()),
                                     "; allowed: DOUBLE, INTEGER, CATEGORICAL, DISCRETE"));
  }
  if (!v1::ParameterSpec::ScaleType_IsValid(param.scale_type())) {
    return InvalidField(locate, Child(path, "scale_type"),
                        absl::StrCat("unknown scale type ", static_cast<int>(param.scale_type()),
                                     "; allowed: NONE, UNIT_LINEAR_SCALE, UNIT_LOG_SCALE, "
                                     "UNIT_REVERSE_LOG_SCALE"));
  }
  if (absl::Status status = RejectForeignFields(param, path, locate); !status.ok()) return status;
  switch (param.type()) {
    case v1::ParameterSpec::DOUBLE:
      if (algorithm == v1::GRID_SEARCH) {
        return InvalidField(
            locate, type_path,
            absl::StrCat("GRID_SEARCH cannot enumerate DOUBLE parameter \"", param.parameter_name(),
                         "\"; make it INTEGER, DISCRETE or CATEGORICAL, or pick "
                         "another algorithm"));
      }
      return ValidateBounds(param, path, locate);
    case v1::ParameterSpec::INTEGER:
      return ValidateBounds(param, path, locate);
    case v1::ParameterSpec::CATEGORICAL:
      return ValidateCategoricalValues(param, path, locate);
    case v1::ParameterSpec::DISCRETE:
      return ValidateDiscreteValues(param, path, locate);
    default:
      return absl::OkStatus();
  }
}

// Where each parameter name of a tree was first defined, for the error
// that names a duplicate.
using FirstDefinitions = absl::flat_hash_map<std::string, std::string>;

absl::Status ValidateParameterTree(const v1::ParameterSpec& param, const std::string& path,
                                   std::string first_definition, v1::Algorithm algorithm,
                                   const Locator& locate, FirstDefinitions& names, int& count);

// The values of a conditional spec's parent condition, checked against the
// parent's type and domain.
absl::Status ValidateParentValues(const v1::ParameterSpec& parent,
                                  const v1::ConditionalParameterSpec& conditional,
                                  const std::string& path, const Locator& locate) {
  using Case = v1::ConditionalParameterSpec::ParentValueConditionCase;
  const std::string parent_name = absl::StrCat("\"", parent.parameter_name(), "\"");
  Case expected;
  std::string field;
  // The field as YAML and JSON spell it.
  std::string yaml_field;
  switch (parent.type()) {
    case v1::ParameterSpec::CATEGORICAL:
      expected = Case::kParentCategoricalValues;
      field = "parent_categorical_values";
      yaml_field = "parentCategoricalValues";
      break;
    case v1::ParameterSpec::INTEGER:
      expected = Case::kParentIntValues;
      field = "parent_int_values";
      yaml_field = "parentIntValues";
      break;
    case v1::ParameterSpec::DISCRETE:
      expected = Case::kParentDiscreteValues;
      field = "parent_discrete_values";
      yaml_field = "parentDiscreteValues";
      break;
    default:
      return InvalidField(
          locate, path,
          absl::StrCat("DOUBLE parameter ", parent_name,
                       " cannot have conditional parameters (a condition needs "
                       "values to match); make it DISCRETE to branch on its values"));
  }
  const std::string values_path = Child(Child(path, field), "values");
  if (conditional.parent_value_condition_case() != expected) {
    return InvalidField(
        locate, path,
        absl::StrCat("parent ", parent_name, " is ", v1::ParameterSpec::Type_Name(parent.type()),
                     ", so the condition must be ", yaml_field));
  }
  int size = 0;
  switch (expected) {
    case Case::kParentCategoricalValues: {
      const auto& values = conditional.parent_categorical_values().values();
      size = values.size();
      for (int j = 0; j < values.size(); ++j) {
        const auto& allowed = parent.categorical_values();
        if (std::find(allowed.begin(), allowed.end(), values[j]) == allowed.end()) {
          return InvalidField(locate, Element(values_path, j),
                              absl::StrCat("\"", values[j], "\" is not a value of parent ",
                                           parent_name, " (", absl::StrJoin(allowed, ", "), ")"));
        }
      }
      break;
    }
    case Case::kParentIntValues: {
      const auto& values = conditional.parent_int_values().values();
      size = values.size();
      for (int j = 0; j < values.size(); ++j) {
        if (static_cast<double>(values[j]) < parent.min_value() ||
            static_cast<double>(values[j]) > parent.max_value()) {
          return InvalidField(locate, Element(values_path, j),
                              absl::StrCat(values[j], " is not a value of parent ", parent_name,
                                           " ([", FormatNumber(parent.min_value()), ", ",
                                           FormatNumber(parent.max_value()), "])"));
        }
      }
      break;
    }
    default: {
      const auto& values = conditional.parent_discrete_values().values();
      size = values.size();
      for (int j = 0; j < values.size(); ++j) {
        const auto& allowed = parent.discrete_values();
        if (std::find(allowed.begin(), allowed.end(), values[j]) == allowed.end()) {
          return InvalidField(
              locate, Element(values_path, j),
              absl::StrCat(FormatNumber(values[j]), " is not a value of parent ", parent_name, " (",
                           absl::StrJoin(allowed, ", ",
                                         [](std::string* out, double value) {
                                           absl::StrAppend(out, FormatNumber(value));
                                         }),
                           ")"));
        }
      }
      break;
    }
  }
  if (size == 0) {
    return InvalidField(locate, values_path,
                        absl::StrCat("lists no values of parent ", parent_name,
                                     "; the conditional parameter would never be active"));
  }
  return absl::OkStatus();
}

absl::Status ValidateParameterTree(const v1::ParameterSpec& param, const std::string& path,
                                   std::string first_definition, v1::Algorithm algorithm,
                                   const Locator& locate, FirstDefinitions& names, int& count) {
  if (++count > kMaxParameters) {
    return InvalidField(locate, path,
                        absl::StrCat("the search space has more than ", kMaxParameters,
                                     " parameters, conditional ones included"));
  }
  VERNIER_RETURN_IF_ERROR(ValidateParameter(param, path, algorithm, locate));
  const auto [it, inserted] = names.emplace(param.parameter_name(), first_definition);
  if (!inserted) {
    return InvalidField(
        locate, Child(path, "parameter_name"),
        absl::StrCat("duplicate parameter name \"", param.parameter_name(), "\" (first ",
                     it->second, "); a name may be used once in the whole tree"));
  }
  const std::string conditionals_path = Child(path, "conditional_parameter_specs");
  for (int k = 0; k < param.conditional_parameter_specs_size(); ++k) {
    const v1::ConditionalParameterSpec& conditional = param.conditional_parameter_specs(k);
    const std::string conditional_path = Element(conditionals_path, k);
    VERNIER_RETURN_IF_ERROR(ValidateParentValues(param, conditional, conditional_path, locate));
    VERNIER_RETURN_IF_ERROR(ValidateParameterTree(
        conditional.parameter_spec(), Child(conditional_path, "parameter_spec"),
        absl::StrCat("as a conditional parameter of \"", param.parameter_name(), "\""), algorithm,
        locate, names, count));
  }
  return absl::OkStatus();
}

absl::Status ValidateParameters(const ParameterList& params, std::string_view list_path,
                                v1::Algorithm algorithm, const Locator& locate) {
  if (params.empty()) {
    return InvalidField(locate, list_path, "at least one parameter is required");
  }
  if (params.size() > kMaxParameters) {
    return InvalidField(locate, list_path,
                        absl::StrCat("has ", params.size(), " parameters; at most ", kMaxParameters,
                                     " are allowed"));
  }
  FirstDefinitions names;
  int count = 0;
  for (int i = 0; i < params.size(); ++i) {
    VERNIER_RETURN_IF_ERROR(ValidateParameterTree(params[i], Element(list_path, i),
                                                  absl::StrCat("at index ", i), algorithm, locate,
                                                  names, count));
  }
  return absl::OkStatus();
}

bool IsScaleTier(std::string_view tier) {
  return std::find(std::begin(kScaleTiers), std::end(kScaleTiers), tier) != std::end(kScaleTiers);
}

absl::Status ValidateReplicaConfig(const v1::ReplicaConfig& config, std::string_view path,
                                   const Locator& locate) {
  const v1::AcceleratorConfig& accelerators = config.accelerator_config();
  const std::string count_path = Child(path, "accelerator_config.count");
  if (accelerators.count() < 0) {
    return InvalidField(locate, count_path,
                        absl::StrCat("must not be negative, got ", accelerators.count()));
  }
  if (accelerators.count() > 0 && accelerators.type().empty()) {
    return InvalidField(locate, count_path,
                        absl::StrCat("a positive count needs an accelerator type, e.g. "
                                     "NVIDIA_TESLA_V100, got ",
                                     accelerators.count()));
  }
  VERNIER_RETURN_IF_ERROR(
      CheckBytes(locate, Child(path, "image_uri"), config.image_uri(), kMaxPathBytes));
  return ValidateEnvironment(config.env(), Child(path, "env"), locate);
}

// "a worker", "an evaluator".
std::string WithArticle(absl::string_view noun) {
  const bool vowel =
      !noun.empty() && absl::string_view("aeiou").find(noun[0]) != absl::string_view::npos;
  return absl::StrCat(vowel ? "an " : "a ", noun);
}

// Workers, parameter servers and evaluators follow the same rules: a count
// that is not negative, a machine type exactly when the count is positive,
// and both only in the CUSTOM scale tier.
absl::Status ValidateReplicaGroup(absl::string_view role, int64_t count, std::string_view type,
                                  std::string_view count_path, std::string_view type_path,
                                  absl::string_view scale_tier, const Locator& locate) {
  if (count < 0) {
    return InvalidField(locate, count_path, absl::StrCat("must not be negative, got ", count));
  }
  const bool custom = scale_tier == "CUSTOM";
  if (!type.empty() && !custom) {
    return InvalidField(locate, type_path,
                        absl::StrCat(WithArticle(role),
                                     " machine type is only used with the CUSTOM scale "
                                     "tier, not \"",
                                     scale_tier, "\""));
  }
  if (count > 0 && !custom) {
    return InvalidField(
        locate, count_path,
        absl::StrCat(role, "s are only used with the CUSTOM scale tier, not \"", scale_tier, "\""));
  }
  if (count > 0 && type.empty()) {
    return InvalidField(
        locate, count_path,
        absl::StrCat("a positive count needs ", WithArticle(role), " machine type, got ", count));
  }
  if (count == 0 && !type.empty()) {
    return InvalidField(locate, type_path,
                        absl::StrCat(WithArticle(role), " machine type needs a positive ", role,
                                     " count (how many each trial runs), got none"));
  }
  return absl::OkStatus();
}

// The metrics of a study or a hyperparameters block: ids unique, every
// objective with a goal, every constraint without one and with at least one
// finite bound (min <= max), the first metric an objective; several
// objectives rule out early stopping (`early_stopping_path` names the switch).
absl::Status ValidateMetrics(const google::protobuf::RepeatedPtrField<v1::MetricSpec>& metrics,
                             std::string_view list, bool early_stopping,
                             std::string_view early_stopping_path, const Locator& locate) {
  if (metrics.size() > kMaxMetrics) {
    return InvalidField(
        locate, list,
        absl::StrCat("has ", metrics.size(), " metrics; at most ", kMaxMetrics, " are allowed"));
  }
  absl::flat_hash_map<std::string_view, int> first_index;
  int objectives = 0;
  for (int i = 0; i < metrics.size(); ++i) {
    const v1::MetricSpec& metric = metrics[i];
    const std::string path = Element(list, i);
    if (metric.metric_id().empty()) {
      return InvalidField(locate, Child(path, "metric_id"), "the metric id is required");
    }
    VERNIER_RETURN_IF_ERROR(
        CheckBytes(locate, Child(path, "metric_id"), metric.metric_id(), kMaxNameBytes));
    const auto [it, inserted] = first_index.emplace(metric.metric_id(), i);
    if (!inserted) {
      return InvalidField(locate, Child(path, "metric_id"),
                          absl::StrCat("duplicate metric id \"", metric.metric_id(),
                                       "\" (first at index ", it->second, ")"));
    }
    if (!metric.has_constraint()) {
      if (std::string problem = GoalProblem(metric.goal()); !problem.empty()) {
        return InvalidField(locate, Child(path, "goal"), problem);
      }
      ++objectives;
      continue;
    }
    const v1::MetricSpec::Constraint& constraint = metric.constraint();
    if (metric.goal() != v1::MetricSpec::GOAL_UNSPECIFIED) {
      return InvalidField(
          locate, Child(path, "goal"),
          absl::StrCat("metric \"", metric.metric_id(),
                       "\" is an outcome constraint (it has a constraint), which has "
                       "no goal; remove the goal, or the constraint to make it an "
                       "objective"));
    }
    if (!constraint.has_min_value() && !constraint.has_max_value()) {
      return InvalidField(locate, Child(path, "constraint"),
                          "needs minValue, maxValue or both (the bounds a feasible trial's value "
                          "lies within)");
    }
    for (const auto& [present, value, field] :
         {std::tuple{constraint.has_min_value(), constraint.min_value(), "min_value"},
          std::tuple{constraint.has_max_value(), constraint.max_value(), "max_value"}}) {
      if (present && !std::isfinite(value)) {
        return InvalidField(locate, Child(Child(path, "constraint"), field),
                            absl::StrCat("must be a finite number, got ", value));
      }
    }
    if (constraint.has_min_value() && constraint.has_max_value() &&
        constraint.min_value() > constraint.max_value()) {
      return InvalidField(locate, Child(Child(path, "constraint"), "min_value"),
                          absl::StrCat("must not exceed max_value (", constraint.max_value(),
                                       "), got ", constraint.min_value()));
    }
    if (i == 0) {
      return InvalidField(locate, Child(path, "constraint"),
                          "the first metric must be an objective (the one a single-objective view "
                          "reports); list the outcome constraints after the objectives");
    }
  }
  if (objectives > 1 && early_stopping) {
    return InvalidField(locate, early_stopping_path,
                        absl::StrCat("early stopping compares trials on one objective, and this "
                                     "study has ",
                                     objectives,
                                     " (a trial behind on one may lead on another); disable early "
                                     "stopping or keep one objective"));
  }
  return absl::OkStatus();
}

}  // namespace

Locator ProtoPathLocator(std::string root) {
  return [root = std::move(root)](std::string_view path) { return Child(root, path); };
}

absl::Status ValidateHyperparameterSpec(const v1::HyperparameterSpec& spec, const Locator& locate) {
  if (!spec.metrics().empty()) {
    // Several objectives and constraints, instead of AI Platform's one.
    for (const auto& [given, field] :
         {std::pair{!spec.hyperparameter_metric_tag().empty(), "hyperparameter_metric_tag"},
          std::pair{spec.goal() != v1::MetricSpec::GOAL_UNSPECIFIED, "goal"}}) {
      if (given) {
        return InvalidField(locate, field,
                            "give either metrics or goal with hyperparameterMetricTag, not both "
                            "(metrics names every objective with its own goal)");
      }
    }
    VERNIER_RETURN_IF_ERROR(ValidateMetrics(spec.metrics(), "metrics",
                                            spec.enable_trial_early_stopping(),
                                            "enable_trial_early_stopping", locate));
  } else {
    if (std::string problem = GoalProblem(spec.goal()); !problem.empty()) {
      return InvalidField(locate, "goal", problem);
    }
    if (spec.hyperparameter_metric_tag().empty()) {
      return InvalidField(locate, "hyperparameter_metric_tag",
                          "the metric tag is empty; it names the metric the trainer reports");
    }
    VERNIER_RETURN_IF_ERROR(CheckBytes(locate, "hyperparameter_metric_tag",
                                       spec.hyperparameter_metric_tag(), kMaxNameBytes));
  }
  VERNIER_RETURN_IF_ERROR(
      CheckBytes(locate, "metric_regex", spec.metric_regex(), kMaxMetricRegexBytes));
  if (spec.max_trials() < 1) {
    return InvalidField(locate, "max_trials",
                        absl::StrCat("must be at least 1, got ", spec.max_trials()));
  }
  if (spec.max_parallel_trials() < 1) {
    return InvalidField(locate, "max_parallel_trials",
                        absl::StrCat("must be at least 1, got ", spec.max_parallel_trials()));
  }
  if (spec.max_parallel_trials() > spec.max_trials()) {
    return InvalidField(locate, "max_parallel_trials",
                        absl::StrCat("must not exceed the maximum number of trials (",
                                     spec.max_trials(), "), got ", spec.max_parallel_trials()));
  }
  if (spec.max_failed_trials() < 0) {
    return InvalidField(locate, "max_failed_trials",
                        absl::StrCat("must not be negative, got ", spec.max_failed_trials()));
  }
  if (!spec.resume_previous_job_id().empty()) {
    if (absl::Status status = ValidateJobId(spec.resume_previous_job_id()); !status.ok()) {
      return InvalidField(locate, "resume_previous_job_id", status.message());
    }
  }
  if (absl::Status status = ValidateAlgorithm(spec.algorithm(), "algorithm", locate);
      !status.ok()) {
    return status;
  }
  if (!spec.metric_regex().empty()) {
    // The agent compiles the same pattern with the same code.
    if (absl::StatusOr<metrics::MetricPattern> pattern =
            metrics::MetricPattern::Compile(spec.metric_regex());
        !pattern.ok()) {
      return InvalidField(locate, "metric_regex", pattern.status().message());
    }
  }
  const v1::EarlyStoppingSpec& early_stopping = spec.early_stopping();
  if (absl::Status status = ValidateEarlyStoppingSettings(early_stopping, "early_stopping", locate);
      !status.ok()) {
    return status;
  }
  // Proto3 serialises only the fields that differ from their defaults.
  const bool early_stopping_configured = early_stopping.ByteSizeLong() != 0;
  if (early_stopping_configured && !spec.enable_trial_early_stopping()) {
    return InvalidField(locate, "early_stopping",
                        "is set but trial early stopping is not enabled; enable it or remove these "
                        "settings");
  }
  VERNIER_RETURN_IF_ERROR(ValidateParameters(spec.params(), "params", spec.algorithm(), locate));
  return CheckSpecBytes(locate, "params", spec);
}

absl::Status ValidateTrainingInput(const v1::TrainingInput& input, const Locator& locate) {
  const std::string& tier = input.scale_tier();
  if (!IsScaleTier(tier)) {
    return InvalidField(
        locate, "scale_tier",
        absl::StrCat("unknown scale tier \"", tier, "\"; allowed: ",
                     absl::StrJoin(kScaleTiers, ", ", [](std::string* out, std::string_view name) {
                       out->append(name);
                     })));
  }
  const bool custom = tier == "CUSTOM";
  if (custom && input.master_type().empty()) {
    return InvalidField(locate, "scale_tier", "the CUSTOM scale tier needs a master machine type");
  }
  if (!custom && !input.master_type().empty()) {
    return InvalidField(
        locate, "master_type",
        absl::StrCat("a master machine type is only used with the CUSTOM scale tier, "
                     "not \"",
                     tier, "\""));
  }
  if (absl::Status status =
          ValidateReplicaGroup("worker", input.worker_count(), input.worker_type(), "worker_count",
                               "worker_type", tier, locate);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateReplicaGroup(
          "parameter server", input.parameter_server_count(), input.parameter_server_type(),
          "parameter_server_count", "parameter_server_type", tier, locate);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ValidateReplicaGroup("evaluator", input.evaluator_count(), input.evaluator_type(),
                               "evaluator_count", "evaluator_type", tier, locate);
      !status.ok()) {
    return status;
  }
  for (const auto& [config, path] :
       {std::pair{&input.master_config(), "master_config"},
        std::pair{&input.worker_config(), "worker_config"},
        std::pair{&input.parameter_server_config(), "parameter_server_config"},
        std::pair{&input.evaluator_config(), "evaluator_config"}}) {
    if (absl::Status status = ValidateReplicaConfig(*config, path, locate); !status.ok()) {
      return status;
    }
  }
  VERNIER_RETURN_IF_ERROR(CheckList(locate, "args", input.args(), kMaxCommandArgs, kMaxArgBytes));
  VERNIER_RETURN_IF_ERROR(CheckBytes(locate, "job_dir", input.job_dir(), kMaxPathBytes));
  for (const auto& [type, path] :
       {std::pair{&input.master_type(), "master_type"},
        std::pair{&input.worker_type(), "worker_type"},
        std::pair{&input.parameter_server_type(), "parameter_server_type"},
        std::pair{&input.evaluator_type(), "evaluator_type"}}) {
    VERNIER_RETURN_IF_ERROR(CheckBytes(locate, path, *type, kMaxNameBytes));
  }
  if (std::optional<std::string> refusal =
          text::ControlChars::Refusal("the job dir", input.job_dir())) {
    return InvalidField(locate, "job_dir", *refusal);
  }
  if (input.scheduling().max_retries() < 0) {
    return InvalidField(locate, "scheduling.max_retries",
                        absl::StrCat("must not be negative (0: no retries), got ",
                                     input.scheduling().max_retries()));
  }
  if (input.has_hyperparameters()) {
    return ValidateHyperparameterSpec(input.hyperparameters(), Nested(locate, "hyperparameters"));
  }
  return absl::OkStatus();
}

absl::Status ValidateStudySpec(const v1::StudySpec& spec) {
  const Locator locate = ProtoPathLocator("spec");
  if (spec.metrics().empty()) {
    return InvalidField(locate, "metrics", "at least one metric is required");
  }
  VERNIER_RETURN_IF_ERROR(ValidateMetrics(spec.metrics(), "metrics",
                                          spec.early_stopping().enabled(), "early_stopping.enabled",
                                          locate));
  for (const auto& [value, field] : {std::pair{spec.max_trials(), "max_trials"},
                                     std::pair{spec.max_parallel_trials(), "max_parallel_trials"},
                                     std::pair{spec.max_failed_trials(), "max_failed_trials"}}) {
    if (value < 0) {
      return InvalidField(locate, field,
                          absl::StrCat("must not be negative (0 means no limit), got ", value));
    }
  }
  if (spec.max_trials() > 0 && spec.max_parallel_trials() > spec.max_trials()) {
    return InvalidField(locate, "max_parallel_trials",
                        absl::StrCat("must not exceed the maximum number of trials (",
                                     spec.max_trials(), "), got ", spec.max_parallel_trials()));
  }
  if (absl::Status status = ValidateAlgorithm(spec.algorithm(), "algorithm", locate);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ValidateEarlyStoppingSettings(spec.early_stopping(), "early_stopping", locate);
      !status.ok()) {
    return status;
  }
  VERNIER_RETURN_IF_ERROR(
      ValidateParameters(spec.parameters(), "parameters", spec.algorithm(), locate));
  return CheckSpecBytes(locate, "parameters", spec);
}

absl::Status ValidateStudy(const v1::Study& study) {
  VERNIER_RETURN_IF_ERROR(
      CheckBytes(ProtoPathLocator("study"), "display_name", study.display_name(), kMaxNameBytes));
  return ValidateStudySpec(study.spec());
}

namespace {

// gcloud's label rules: at most 64; keys of 1 to 63 lowercase letters,
// digits, '_' and '-', starting with a letter; values the same, possibly
// empty.
absl::Status ValidateLabels(const v1::Job& job) {
  constexpr int kMaxLabels = 64;
  constexpr size_t kMaxLabelLength = 63;
  if (job.labels_size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat("job.labels: ", job.labels_size(), " labels; at most ", kMaxLabels));
  }
  const auto allowed = [](absl::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) {
      return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_' || c == '-';
    });
  };
  for (const auto& [key, value] : job.labels()) {
    const std::string where = absl::StrCat("job.labels[\"", absl::CHexEscape(key), "\"]");
    if (key.empty() || !absl::ascii_islower(key[0]) || key.size() > kMaxLabelLength ||
        !allowed(key)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       ": a label's key is 1 to 63 lowercase letters, digits, '_' or '-', starting "
                       "with a letter (e.g. team=vision)"));
    }
    if (value.size() > kMaxLabelLength || !allowed(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the value \"", absl::CHexEscape(value),
                       "\" is not up to 63 lowercase letters, digits, '_' or '-'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateJobFields(const v1::Job& job) {
  const Locator locate = ProtoPathLocator("job");
  VERNIER_RETURN_IF_ERROR(ValidateLabels(job));
  VERNIER_RETURN_IF_ERROR(
      CheckList(locate, "command", job.command(), kMaxCommandArgs, kMaxArgBytes));
  VERNIER_RETURN_IF_ERROR(CheckBytes(locate, "job_dir", job.job_dir(), kMaxPathBytes));
  VERNIER_RETURN_IF_ERROR(CheckBytes(locate, "working_dir", job.working_dir(), kMaxPathBytes));
  return ValidateEnvironment(job.environment(), "environment", locate);
}

absl::Status ValidateJobDir(std::string_view job_dir) {
  if (std::optional<std::string> refusal = text::ControlChars::Refusal("job_dir", job_dir)) {
    return absl::InvalidArgumentError(*std::move(refusal));
  }
  return absl::OkStatus();
}

absl::Status ValidateJobId(std::string_view job_id_text) {
  const absl::string_view job_id = AbslView(job_id_text);
  if (job_id.empty()) {
    return absl::InvalidArgumentError("job id is empty; it must start with a letter");
  }
  if (!absl::ascii_isalpha(job_id[0])) {
    return absl::InvalidArgumentError(
        absl::StrCat("job id \"", job_id, "\" must start with a letter"));
  }
  if (job_id.size() > kMaxJobIdLength) {
    return absl::InvalidArgumentError(absl::StrCat("job id \"", job_id, "\" is ", job_id.size(),
                                                   " characters long; at most ", kMaxJobIdLength,
                                                   " are allowed"));
  }
  for (size_t i = 0; i < job_id.size(); ++i) {
    const char c = job_id[i];
    if (!absl::ascii_isalnum(c) && c != '_') {
      return absl::InvalidArgumentError(
          absl::StrCat("job id \"", job_id, "\" has '", absl::string_view(&c, 1), "' at position ",
                       i, "; only letters, digits and underscores are allowed"));
    }
  }
  return absl::OkStatus();
}

absl::Status InvalidField(const Locator& locate, std::string_view path, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(locate(path), ": ", problem));
}

}  // namespace vernier::config
