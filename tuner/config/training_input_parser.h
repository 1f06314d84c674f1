#ifndef VERNIER_TUNER_CONFIG_TRAINING_INPUT_PARSER_H_
#define VERNIER_TUNER_CONFIG_TRAINING_INPUT_PARSER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::config {

// Reads the AI Platform `trainingInput:` YAML that `gcloud ai-platform jobs
// submit training --config` takes, unchanged: either a document whose top
// level is `trainingInput:`, or the trainingInput mapping itself. Keys are AI
// Platform's camelCase names (docs/yaml-reference.md lists them), AI
// Platform's defaults fill absent keys, and the result has passed
// ValidateTrainingInput.
//
// Every error is INVALID_ARGUMENT and reads "FILE:LINE:COLUMN: FIELD: PROBLEM"
// (1-based), e.g. `hptuning.yaml:14:7:
// trainingInput.hyperparameters.params[1].maxValue: the maximum (1) must be
// greater than the minimum (5)`.
absl::StatusOr<v1::TrainingInput> ParseTrainingInputYaml(std::string_view yaml_text,
                                                         std::string_view file_name);

// How a study spec's text is written. JSON is YAML's flow style, so one
// reader reads both; kJson only also requires the text to be one object.
enum class SpecFormat { kYaml, kJson };

// kJson for a name ending in ".json" (any case), kYaml otherwise.
SpecFormat SpecFormatForFileName(std::string_view file_name);

// A study's spec, read from the `hyperparameters:` vocabulary by the reader
// above with the same rules and messages: the document is the hyperparameters
// mapping itself, or (when it has a `trainingInput` or `hyperparameters` key)
// a trainingInput as ParseTrainingInputYaml takes it, which must then hold a
// hyperparameters block; its other keys are checked and ignored. The spec is
// StudySpecFromHyperparameters's, with one difference: a study is driven by
// its caller, so maxTrials or maxParallelTrials left out is 0, no limit,
// rather than AI Platform's 1 (and maxFailedTrials left out is 0 too when
// maxTrials is). The server answers ParseStudySpec with this.
absl::StatusOr<v1::StudySpec> ParseStudySpecText(std::string_view text, SpecFormat format,
                                                 std::string_view file_name);

// As above, for the file at `path`; NOT_FOUND when there is no such file,
// INVALID_ARGUMENT naming the path when it cannot be read.
absl::StatusOr<v1::TrainingInput> ParseTrainingInputFile(const std::string& path);

// The top-level `labels:` mapping beside `trainingInput:` (AI Platform's
// Job resource has its labels there), KEY: VALUE strings; empty without
// one. Errors as ParseTrainingInputFile's.
absl::StatusOr<std::map<std::string, std::string>> ParseJobLabelsFile(const std::string& path);

// What the file at `path` leaves to a default that is rarely meant (no
// maxTrials: one trial), each "FILE:LINE:COLUMN: FIELD: WHY"; none for a file
// that does not parse (ParseTrainingInputFile says why).
std::vector<std::string> TrainingInputFileWarnings(const std::string& path);

// The server checks what only it knows (its machine types, its GPUs) and
// names the field in proto terms: "training_input.worker_type: PROBLEM".
// This points such an error at the YAML file the input was read from:
// "FILE:LINE:COLUMN: trainingInput.workerType: PROBLEM". Other errors, and
// any error when the file no longer parses, come back unchanged.
absl::Status LocateInTrainingInputFile(const absl::Status& server_error, const std::string& path);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_TRAINING_INPUT_PARSER_H_
