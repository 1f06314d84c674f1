#include "tuner/config/study_spec_builder.h"

#include <algorithm>

namespace vernier::config {

v1::StudySpec StudySpecFromHyperparameters(const v1::HyperparameterSpec& hyperparameters) {
  v1::StudySpec spec;
  *spec.mutable_parameters() = hyperparameters.params();
  if (!hyperparameters.metrics().empty()) {
    *spec.mutable_metrics() = hyperparameters.metrics();
  } else {
    v1::MetricSpec* metric = spec.add_metrics();
    metric->set_metric_id(hyperparameters.hyperparameter_metric_tag());
    metric->set_goal(hyperparameters.goal());
  }
  spec.set_algorithm(hyperparameters.algorithm());
  spec.set_max_trials(hyperparameters.max_trials());
  spec.set_max_parallel_trials(hyperparameters.max_parallel_trials());
  spec.set_max_failed_trials(hyperparameters.max_failed_trials() > 0
                                 ? hyperparameters.max_failed_trials()
                                 : std::max(1, hyperparameters.max_trials() / 2));
  *spec.mutable_early_stopping() = hyperparameters.early_stopping();
  spec.mutable_early_stopping()->set_enabled(hyperparameters.enable_trial_early_stopping());
  return spec;
}

}  // namespace vernier::config
