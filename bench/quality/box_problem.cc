#include "bench/quality/box_problem.h"

#include "absl/strings/str_cat.h"

namespace vernier::bench {
namespace {

std::string VariableName(size_t index) { return absl::StrCat("x", index + 1); }

}  // namespace

v1::StudySpec BoxProblem::Spec() const {
  v1::StudySpec spec;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    v1::ParameterSpec* parameter = spec.add_parameters();
    parameter->set_parameter_name(VariableName(i));
    parameter->set_type(v1::ParameterSpec::DOUBLE);
    parameter->set_min_value(bounds_[i].min);
    parameter->set_max_value(bounds_[i].max);
    parameter->set_scale_type(v1::ParameterSpec::UNIT_LINEAR_SCALE);
  }
  v1::MetricSpec* metric = spec.add_metrics();
  metric->set_metric_id("value");
  metric->set_goal(v1::MetricSpec::MINIMIZE);
  return spec;
}

double BoxProblem::Evaluate(const suggest::ParameterAssignment& point) const {
  std::vector<double> x;
  x.reserve(point.size());
  for (const v1::ParameterValue& value : point) x.push_back(value.double_value());
  return Value(x);
}

suggest::ParameterAssignment BoxProblem::Optimum() const {
  const std::vector<double> x = Minimizer();
  suggest::ParameterAssignment point;
  for (size_t i = 0; i < x.size(); ++i) {
    v1::ParameterValue& value = point.emplace_back();
    value.set_parameter_name(VariableName(i));
    value.set_double_value(x[i]);
  }
  return point;
}

}  // namespace vernier::bench
