#include "tuner/config/training_input_defaults.h"

namespace vernier::config {

v1::HyperparameterSpec DefaultHyperparameterSpec() {
  v1::HyperparameterSpec spec;
  spec.set_goal(v1::MetricSpec::MAXIMIZE);
  spec.set_hyperparameter_metric_tag(std::string(kDefaultHyperparameterMetricTag));
  spec.set_max_trials(1);
  spec.set_max_parallel_trials(1);
  spec.set_algorithm(v1::ALGORITHM_UNSPECIFIED);
  return spec;
}

std::string DefaultScaleTier(const v1::TrainingInput& input) {
  return input.master_type().empty() ? "BASIC" : "CUSTOM";
}

void FillHyperparameterDefaults(v1::HyperparameterSpec& spec) {
  const v1::HyperparameterSpec defaults = DefaultHyperparameterSpec();
  // `metrics` replaces goal and hyperparameter_metric_tag.
  if (spec.metrics().empty()) {
    if (spec.goal() == v1::MetricSpec::GOAL_UNSPECIFIED) spec.set_goal(defaults.goal());
    if (spec.hyperparameter_metric_tag().empty()) {
      spec.set_hyperparameter_metric_tag(defaults.hyperparameter_metric_tag());
    }
  }
  if (spec.max_trials() == 0) spec.set_max_trials(defaults.max_trials());
  if (spec.max_parallel_trials() == 0) spec.set_max_parallel_trials(defaults.max_parallel_trials());
}

void FillTrainingInputDefaults(v1::TrainingInput& input) {
  if (input.scale_tier().empty()) input.set_scale_tier(DefaultScaleTier(input));
  if (input.has_hyperparameters()) FillHyperparameterDefaults(*input.mutable_hyperparameters());
}

}  // namespace vernier::config
