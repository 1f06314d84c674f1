#ifndef VERNIER_TUNER_CLI_STUDY_COMMANDS_H_
#define VERNIER_TUNER_CLI_STUDY_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/cli/command_context.h"
#include "tuner/cli/vernier_client.h"
#include "vernier/v1/study.pb.h"

namespace vernier::cli {

// `vernier trials ...` and `vernier studies ...`: each call makes its RPCs
// through `client` and prints the answer as a table or one JSON document.
class StudyCommands {
 public:
  StudyCommands(VernierClient* client, CommandContext context);

  // Best first (the Pareto front for several metrics); top 0: every ranked
  // trial. The objective column is the study's first metric.
  absl::Status Leaderboard(const std::string& study_name, int top);
  // Empty `states`: every state. Follows page tokens.
  absl::Status ListTrials(const std::string& study_name,
                          const std::vector<v1::Trial::State>& states);
  // One trial: its parameters, state and times, every metric of every
  // measurement, and the objective's learning curve drawn in text.
  absl::Status DescribeTrial(const std::string& study_name, int64_t trial_id);
  absl::Status ListStudies();
  // The spec (parameters, metrics, algorithm, limits) and the trial counts.
  absl::Status Describe(const std::string& study_name);
  absl::Status Delete(const std::string& study_name);

 private:
  absl::StatusOr<std::vector<v1::Trial>> FetchTrials(const std::string& study_name,
                                                     const std::vector<v1::Trial::State>& states);
  absl::Status PrintJson(const google::protobuf::Message& message);

  VernierClient* client_;
  CommandContext context_;
};

// "active", "SUCCEEDED", "stopped-early" or "stopped_early": any case, '-'
// for '_'. INVALID_ARGUMENT lists the accepted names.
absl::StatusOr<v1::Trial::State> ParseTrialState(std::string_view name);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_STUDY_COMMANDS_H_
