#ifndef VERNIER_TESTS_SUGGEST_PARAMETER_SPECS_H_
#define VERNIER_TESTS_SUGGEST_PARAMETER_SPECS_H_

// Short builders for parameter specs and values in the suggest tests.

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/designer.h"
#include "suggest/search_space.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest::testing {

inline v1::ParameterSpec DoubleSpec(
    const std::string& name, double min, double max,
    v1::ParameterSpec::ScaleType scale = v1::ParameterSpec::UNIT_LINEAR_SCALE) {
  v1::ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(v1::ParameterSpec::DOUBLE);
  spec.set_min_value(min);
  spec.set_max_value(max);
  spec.set_scale_type(scale);
  return spec;
}

inline v1::ParameterSpec IntegerSpec(
    const std::string& name, double min, double max,
    v1::ParameterSpec::ScaleType scale = v1::ParameterSpec::UNIT_LINEAR_SCALE) {
  v1::ParameterSpec spec = DoubleSpec(name, min, max, scale);
  spec.set_type(v1::ParameterSpec::INTEGER);
  return spec;
}

inline v1::ParameterSpec CategoricalSpec(const std::string& name,
                                         std::initializer_list<std::string> values) {
  v1::ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(v1::ParameterSpec::CATEGORICAL);
  for (const std::string& value : values) spec.add_categorical_values(value);
  return spec;
}

inline v1::ParameterSpec DiscreteSpec(
    const std::string& name, const std::vector<double>& values,
    v1::ParameterSpec::ScaleType scale = v1::ParameterSpec::UNIT_LINEAR_SCALE) {
  v1::ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(v1::ParameterSpec::DISCRETE);
  for (double value : values) spec.add_discrete_values(value);
  spec.set_scale_type(scale);
  return spec;
}

inline v1::ParameterValue DoubleValue(const std::string& name, double value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_double_value(value);
  return parameter;
}

inline v1::ParameterValue IntValue(const std::string& name, int64_t value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_int_value(value);
  return parameter;
}

inline v1::ParameterValue StringValue(const std::string& name, const std::string& value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_string_value(value);
  return parameter;
}

inline absl::StatusOr<SearchSpace> MakeSpace(const std::vector<v1::ParameterSpec>& specs) {
  return SearchSpace::Create(std::span<const v1::ParameterSpec>(specs));
}

inline TrialObservation Observation(int64_t trial_id, ParameterAssignment parameters,
                                    v1::Trial::State state) {
  TrialObservation observation;
  observation.trial_id = trial_id;
  observation.parameters = std::move(parameters);
  observation.state = state;
  return observation;
}

// The space of `specs`, failing the test when it is invalid.
inline SearchSpace MustMakeSpace(const std::vector<v1::ParameterSpec>& specs) {
  absl::StatusOr<SearchSpace> space = MakeSpace(specs);
  EXPECT_TRUE(space.ok()) << space.status();
  return *std::move(space);
}

// The designer's suggestions, failing the test (and returning none) on an
// error.
inline Suggestions MustSuggest(Designer& designer, const DesignerHistory& history, int count,
                               std::mt19937_64& rng) {
  absl::StatusOr<Suggestions> suggestions = designer.Suggest(history, count, rng);
  EXPECT_TRUE(suggestions.ok()) << suggestions.status();
  return suggestions.ok() ? *std::move(suggestions) : Suggestions();
}

inline Suggestions MustSuggest(Designer& designer, const DesignerHistory& history, int count,
                               uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  return MustSuggest(designer, history, count, rng);
}

}  // namespace vernier::suggest::testing

#endif  // VERNIER_TESTS_SUGGEST_PARAMETER_SPECS_H_
