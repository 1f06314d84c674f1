#ifndef VERNIER_TUNER_CONFIG_TRAINING_INPUT_DEFAULTS_H_
#define VERNIER_TUNER_CONFIG_TRAINING_INPUT_DEFAULTS_H_

#include <string>
#include <string_view>

#include "vernier/v1/job.pb.h"

namespace vernier::config {

// AI Platform's defaults for a trainingInput, in one place for the YAML
// parser (which applies them to keys that are absent) and for gRPC requests
// (where proto3 cannot tell an absent field from a zero one).

inline constexpr std::string_view kDefaultHyperparameterMetricTag = "training/hptuning/metric";

// goal MAXIMIZE, hyperparameterMetricTag "training/hptuning/metric",
// maxTrials 1, maxParallelTrials 1, algorithm ALGORITHM_UNSPECIFIED; every
// other field empty.
v1::HyperparameterSpec DefaultHyperparameterSpec();

// CUSTOM when a master machine type is given (machine types only mean
// something there), BASIC otherwise.
std::string DefaultScaleTier(const v1::TrainingInput& input);

// For requests that arrive as protos: fills every field that is zero or empty
// and has a default above. An explicit 0 cannot be told from an absent field
// here, so max_trials 0 becomes 1 rather than an error. With `metrics`, goal
// and hyperparameter_metric_tag stay empty (they are its alternative).
void FillTrainingInputDefaults(v1::TrainingInput& input);
void FillHyperparameterDefaults(v1::HyperparameterSpec& spec);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_TRAINING_INPUT_DEFAULTS_H_
