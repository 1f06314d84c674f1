#ifndef VERNIER_TUNER_CONFIG_HYPERPARAMETER_VALIDATOR_H_
#define VERNIER_TUNER_CONFIG_HYPERPARAMETER_VALIDATOR_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::config {

// The semantic rules of a tuning configuration, written once over the protos
// and shared by every way in: the YAML parser (whose errors name file, line
// and YAML field) and the gRPC handlers (whose errors name proto fields).
//
// A Locator turns the path of the offending field, in proto field names and
// relative to the message being validated (e.g. "params[1].max_value"), into
// the text that starts the error message, e.g.
// "hptuning.yaml:14:7: trainingInput.hyperparameters.params[1].maxValue".
// Every error is INVALID_ARGUMENT with the message "LOCATION: PROBLEM".
using Locator = std::function<std::string(std::string_view field_path)>;

// A Locator for messages that arrive without a file: "ROOT.FIELD_PATH",
// e.g. ProtoPathLocator("training_input") names
// "training_input.hyperparameters.max_trials".
Locator ProtoPathLocator(std::string root);

// INVALID_ARGUMENT "LOCATION: PROBLEM", the location of the field at `path`
// by `locate`.
absl::Status InvalidField(const Locator& locate, std::string_view path, absl::string_view problem);

// The `hyperparameters:` block of a training job, after defaults
// (ApplyHyperparameterDefaults or the parser's own).
absl::Status ValidateHyperparameterSpec(const v1::HyperparameterSpec& spec, const Locator& locate);

// A whole trainingInput: scale tier, replica counts and types, accelerators,
// and the hyperparameters block when there is one.
absl::Status ValidateTrainingInput(const v1::TrainingInput& input, const Locator& locate);

// A study created directly (no job): the same parameter rules, at least one
// metric with an id and a goal; max_trials == 0 means no limit. Errors name
// proto fields under "spec", e.g. "spec.parameters[1].max_value: ...".
absl::Status ValidateStudySpec(const v1::StudySpec& spec);

// A study received over gRPC: its display name's size, then ValidateStudySpec.
absl::Status ValidateStudy(const v1::Study& study);

// The fields of a job outside its trainingInput: the trainer command (at
// most kMaxCommandArgs arguments of at most kMaxArgBytes each), job_dir and
// working_dir (at most kMaxPathBytes). Errors name "job.FIELD".
absl::Status ValidateJobFields(const v1::Job& job);

// Job ids: letters, digits and underscores, starting with a letter, at most
// 128 characters (AI Platform's rule; the id also names the job's study).
absl::Status ValidateJobId(std::string_view job_id);

// A job dir goes into scripts (sbatch directives, the --dry-run preview) and
// paths: no control character (newline, CR, NUL, other C0, DEL) may be in
// it. The message names "job_dir" and the character's position.
absl::Status ValidateJobDir(std::string_view job_dir);

// The scale tiers AI Platform knows; only CUSTOM takes machine types.
inline constexpr std::string_view kScaleTiers[] = {"BASIC",     "STANDARD_1", "PREMIUM_1",
                                                   "BASIC_GPU", "BASIC_TPU",  "CUSTOM"};
inline constexpr int kMaxDiscreteValues = 1000;
// Sizes a study's search space may have, so that every study fits the
// answers that list it (docs/yaml-reference.md, "Limits").
inline constexpr int kMaxParameters = 100;
inline constexpr int kMaxCategoricalValues = 1000;
inline constexpr size_t kMaxCategoricalValueBytes = 256;
inline constexpr int kMaxJobIdLength = 128;
// Field sizes, the same over gRPC and in YAML (docs/yaml-reference.md,
// "Limits"), so that nothing a client sends makes the answers that list it
// too large: display names, parameter names, metric ids and the metric tag,
// machine types.
inline constexpr size_t kMaxNameBytes = 256;
inline constexpr int kMaxMetrics = 100;
// The trainer command (after `--`) and trainingInput.args, each.
inline constexpr int kMaxCommandArgs = 1000;
inline constexpr size_t kMaxArgBytes = 16 * 1024;
inline constexpr size_t kMaxPathBytes = 4096;
inline constexpr size_t kMaxMetricRegexBytes = 1024;
// A study's spec (or a job's hyperparameters) once encoded.
inline constexpr size_t kMaxSpecBytes = 1 << 20;

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_HYPERPARAMETER_VALIDATOR_H_
