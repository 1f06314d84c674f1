#ifndef VERNIER_TESTS_SUGGEST_PARAMETER_SPECS_H_
#define VERNIER_TESTS_SUGGEST_PARAMETER_SPECS_H_

// Short builders for parameter specs and values in the suggest tests.

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
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

// A parameter without a value: inactive in a conditional space.
inline v1::ParameterValue InactiveValue(const std::string& name) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  return parameter;
}

// Adds `child` to `parent` as a conditional parameter, active for the given
// parent values (categorical, int or discrete, by the parent's type).
inline void AddChild(v1::ParameterSpec& parent, v1::ParameterSpec child,
                     std::initializer_list<std::string> categories) {
  v1::ConditionalParameterSpec* conditional = parent.add_conditional_parameter_specs();
  for (const std::string& value : categories) {
    conditional->mutable_parent_categorical_values()->add_values(value);
  }
  *conditional->mutable_parameter_spec() = std::move(child);
}

inline void AddIntChild(v1::ParameterSpec& parent, v1::ParameterSpec child,
                        std::initializer_list<int64_t> values) {
  v1::ConditionalParameterSpec* conditional = parent.add_conditional_parameter_specs();
  for (int64_t value : values) conditional->mutable_parent_int_values()->add_values(value);
  *conditional->mutable_parameter_spec() = std::move(child);
}

inline void AddDiscreteChild(v1::ParameterSpec& parent, v1::ParameterSpec child,
                             std::initializer_list<double> values) {
  v1::ConditionalParameterSpec* conditional = parent.add_conditional_parameter_specs();
  for (double value : values) conditional->mutable_parent_discrete_values()->add_values(value);
  *conditional->mutable_parameter_spec() = std::move(child);
}

// model: linear | dnn | tree; linear -> l2 (DOUBLE); dnn -> layers (INTEGER
// 1..4) -> (layers 3, 4) dropout (DOUBLE), and dnn -> optimizer (adam | sgd)
// -> (sgd) momentum (DISCRETE 0, 0.5, 0.9); tree has no children. Two levels
// deep, all three condition kinds but discrete.
inline v1::ParameterSpec ModelFamilySpec() {
  v1::ParameterSpec model = CategoricalSpec("model", {"linear", "dnn", "tree"});
  AddChild(model, DoubleSpec("l2", 1e-6, 1e-1, v1::ParameterSpec::UNIT_LOG_SCALE), {"linear"});
  v1::ParameterSpec layers = IntegerSpec("layers", 1, 4);
  AddIntChild(layers, DoubleSpec("dropout", 0, 0.5), {3, 4});
  AddChild(model, layers, {"dnn"});
  v1::ParameterSpec optimizer = CategoricalSpec("optimizer", {"adam", "sgd"});
  AddChild(optimizer, DiscreteSpec("momentum", {0, 0.5, 0.9}), {"sgd"});
  AddChild(model, optimizer, {"dnn"});
  return model;
}

// optimizer: sgd -> sgd_lr, adam -> adam_lr (each DOUBLE 0..1): two
// branches with a child each.
inline v1::ParameterSpec OptimizerBranchesSpec() {
  v1::ParameterSpec optimizer = CategoricalSpec("optimizer", {"sgd", "adam"});
  AddChild(optimizer, DoubleSpec("sgd_lr", 0, 1), {"sgd"});
  AddChild(optimizer, DoubleSpec("adam_lr", 0, 1), {"adam"});
  return optimizer;
}

// A point of OptimizerBranchesSpec: `optimizer` ("sgd" or "adam") with its
// learning rate `lr`, the other branch's inactive.
inline std::vector<v1::ParameterValue> OptimizerBranchPoint(const std::string& optimizer,
                                                            double lr) {
  const bool sgd = optimizer == "sgd";
  return {StringValue("optimizer", optimizer),
          sgd ? DoubleValue("sgd_lr", lr) : InactiveValue("sgd_lr"),
          sgd ? InactiveValue("adam_lr") : DoubleValue("adam_lr", lr)};
}

// The model family with every leaf finite: 2 + (2 + 2 * 2) * (1 + 3) + 1 = 27
// distinct assignments.
inline v1::ParameterSpec FiniteModelFamily() {
  v1::ParameterSpec model = CategoricalSpec("model", {"linear", "dnn", "tree"});
  AddChild(model, DiscreteSpec("l2", {0.001, 0.01}), {"linear"});
  v1::ParameterSpec layers = IntegerSpec("layers", 1, 4);
  AddIntChild(layers, DiscreteSpec("dropout", {0.1, 0.3}), {3, 4});
  AddChild(model, layers, {"dnn"});
  v1::ParameterSpec optimizer = CategoricalSpec("optimizer", {"adam", "sgd"});
  AddChild(optimizer, DiscreteSpec("momentum", {0, 0.5, 0.9}), {"sgd"});
  AddChild(model, optimizer, {"dnn"});
  return model;
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

// Fails the test unless `specs` are refused as INVALID_ARGUMENT with an error
// that contains `message`.
inline void ExpectInvalid(const std::vector<v1::ParameterSpec>& specs, const std::string& message) {
  absl::StatusOr<SearchSpace> space = MakeSpace(specs);
  ASSERT_FALSE(space.ok()) << "accepted a space that should fail with: " << message;
  EXPECT_EQ(space.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(space.status().message()), ::testing::HasSubstr(message));
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
