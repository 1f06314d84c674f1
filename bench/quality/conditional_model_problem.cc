#include "bench/quality/conditional_model_problem.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>

#include "suggest/search_space.h"

namespace vernier::bench {
namespace {

using v1::ParameterSpec;

constexpr double kBestAdamLogLearningRate = -3.3;

ParameterSpec Range(const char* name, ParameterSpec::Type type, double min, double max,
                    ParameterSpec::ScaleType scale = ParameterSpec::UNIT_LINEAR_SCALE) {
  ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(type);
  spec.set_min_value(min);
  spec.set_max_value(max);
  spec.set_scale_type(scale);
  return spec;
}

ParameterSpec Categorical(const char* name, std::initializer_list<const char*> values) {
  ParameterSpec spec;
  spec.set_parameter_name(name);
  spec.set_type(ParameterSpec::CATEGORICAL);
  for (const char* value : values) spec.add_categorical_values(value);
  return spec;
}

void AddChild(ParameterSpec& parent, const ParameterSpec& child,
              std::initializer_list<const char*> categories) {
  v1::ConditionalParameterSpec* conditional = parent.add_conditional_parameter_specs();
  for (const char* value : categories) {
    conditional->mutable_parent_categorical_values()->add_values(value);
  }
  *conditional->mutable_parameter_spec() = child;
}

double Square(double x) { return x * x; }

}  // namespace

std::string ConditionalModelProblem::name() const { return "conditional"; }

v1::StudySpec ConditionalModelProblem::Spec() const {
  ParameterSpec model = Categorical("model", {"linear", "tree", "dnn"});
  AddChild(model, Range("l2", ParameterSpec::DOUBLE, 1e-6, 1, ParameterSpec::UNIT_LOG_SCALE),
           {"linear"});
  AddChild(model, Range("max_depth", ParameterSpec::INTEGER, 2, 16), {"tree"});
  ParameterSpec estimators;
  estimators.set_parameter_name("n_estimators");
  estimators.set_type(ParameterSpec::DISCRETE);
  for (double n : {50, 100, 200, 400, 800}) estimators.add_discrete_values(n);
  estimators.set_scale_type(ParameterSpec::UNIT_LOG_SCALE);
  AddChild(model, estimators, {"tree"});

  ParameterSpec layers = Range("layers", ParameterSpec::INTEGER, 1, 6);
  v1::ConditionalParameterSpec* dropout = layers.add_conditional_parameter_specs();
  for (int64_t n : {3, 4, 5, 6}) dropout->mutable_parent_int_values()->add_values(n);
  *dropout->mutable_parameter_spec() = Range("dropout", ParameterSpec::DOUBLE, 0, 0.7);
  AddChild(model, layers, {"dnn"});
  ParameterSpec optimizer = Categorical("optimizer", {"sgd", "adam"});
  AddChild(optimizer, Range("momentum", ParameterSpec::DOUBLE, 0, 0.99), {"sgd"});
  AddChild(optimizer,
           Range("sgd_lr", ParameterSpec::DOUBLE, 1e-4, 1, ParameterSpec::UNIT_LOG_SCALE), {"sgd"});
  AddChild(optimizer,
           Range("adam_lr", ParameterSpec::DOUBLE, 1e-5, 0.1, ParameterSpec::UNIT_LOG_SCALE),
           {"adam"});
  AddChild(model, optimizer, {"dnn"});

  v1::StudySpec spec;
  *spec.add_parameters() = model;
  v1::MetricSpec* metric = spec.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_goal(v1::MetricSpec::MAXIMIZE);
  return spec;
}

double ConditionalModelProblem::Evaluate(const suggest::ParameterAssignment& point) const {
  std::map<std::string, v1::ParameterValue> v;
  for (const v1::ParameterValue& value : suggest::ActiveValues(point)) {
    v[value.parameter_name()] = value;
  }
  const auto number = [&v](const char* name) {
    const v1::ParameterValue& value = v.at(name);
    return value.value_case() == v1::ParameterValue::kIntValue
               ? static_cast<double>(value.int_value())
               : value.double_value();
  };
  const std::string& model = v.at("model").string_value();
  if (model == "linear") return 0.80 - 0.03 * Square(std::log10(number("l2")) + 3);
  if (model == "tree") {
    return 0.88 - 0.004 * Square(number("max_depth") - 9) -
           0.02 * Square(std::log2(number("n_estimators") / 400));
  }
  if (model != "dnn") return std::numeric_limits<double>::quiet_NaN();
  const double layers = number("layers");
  double accuracy = 0.95 - 0.006 * Square(layers - 4);
  accuracy -= layers >= 3 ? 0.2 * Square(number("dropout") - 0.3) : 0.02;
  if (v.at("optimizer").string_value() == "adam") {
    accuracy -= 0.05 * Square(std::log10(number("adam_lr")) - kBestAdamLogLearningRate);
  } else {
    accuracy -= 0.01 + 0.05 * Square(std::log10(number("sgd_lr")) + 1.5) +
                0.1 * Square(number("momentum") - 0.9);
  }
  return accuracy;
}

double ConditionalModelProblem::OptimalValue() const { return 0.95; }

suggest::ParameterAssignment ConditionalModelProblem::Optimum() const {
  suggest::ParameterAssignment point;
  for (const char* name : {"model", "l2", "max_depth", "n_estimators", "layers", "dropout",
                           "optimizer", "momentum", "sgd_lr", "adam_lr"}) {
    point.emplace_back().set_parameter_name(name);
  }
  point[0].set_string_value("dnn");
  point[4].set_int_value(4);
  point[5].set_double_value(0.3);
  point[6].set_string_value("adam");
  point[9].set_double_value(std::pow(10.0, kBestAdamLogLearningRate));
  return point;
}

}  // namespace vernier::bench
