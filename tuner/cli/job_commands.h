#ifndef VERNIER_TUNER_CLI_JOB_COMMANDS_H_
#define VERNIER_TUNER_CLI_JOB_COMMANDS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/cli/command_context.h"
#include "tuner/cli/vernier_client.h"
#include "vernier/v1/job.pb.h"

namespace vernier::cli {

struct SubmitJobOptions {
  std::string job_id;
  std::string config_path;  // the AI Platform `trainingInput:` YAML
  std::string job_dir;      // made absolute before submission
  // The words after `--`: the trainer command, or a packaged trainer's
  // arguments (training_input.args) when it has a module.
  std::vector<std::string> command;
  // A packaged trainer, as gcloud's flags: the package folder, the module
  // every replica runs and more packages; relative paths are made absolute.
  std::string package_path;
  std::string module_name;
  std::vector<std::string> packages;
  // Folders of wheels for the packages' requirements (pip's --find-links).
  std::vector<std::string> find_links;
  // gcloud's --labels KEY=VALUE,...; over the YAML's top-level labels.
  std::vector<std::string> labels;
  // gcloud's metadata flags: stored and shown, with a warning that they
  // change nothing here; over the YAML's region, runtimeVersion,
  // pythonVersion.
  std::string region;
  std::string runtime_version;
  std::string python_version;
  // The job's environment (docs/jobs.md, "The trial's environment"): the
  // submitter's variables (SubmitterVariables), then --env-file's, then
  // each --env NAME=VALUE.
  std::map<std::string, std::string> submitter_env;
  std::string env_file;
  std::vector<std::string> env;
  bool dry_run = false;
  // Stay until the job ends, printing a line per trial as it ends and the
  // progress (JobProgress), then the leaderboard; an error unless the job
  // SUCCEEDED. stream_logs also prints every replica's output meanwhile
  // (gcloud's --stream-logs).
  bool wait = false;
  bool stream_logs = false;
  // How often the job is read while waiting.
  absl::Duration poll_interval = absl::Seconds(1);
};

// `vernier jobs ...`: each call makes its RPCs through `client` and prints
// the answer to the context's stream as a table or one JSON document.
class JobCommands {
 public:
  JobCommands(VernierClient* client, CommandContext context);

  // Validates the job id and parses the YAML here, before anything is sent,
  // so that mistakes are reported as FILE:LINE:COLUMN.
  static absl::StatusOr<v1::Job> BuildJob(const SubmitJobOptions& options);

  // With dry_run, the server checks the job and this prints what it would
  // start for the first trial (the job with launch_preview in JSON), and
  // nothing is created.
  absl::Status Submit(const SubmitJobOptions& options);
  absl::Status Describe(const std::string& job_id);
  // Follows page tokens until the server has no more jobs; shows those that
  // match every `filters` term (JobFilter).
  absl::Status List(int page_size, const std::vector<std::string>& filters = {});
  absl::Status Cancel(const std::string& job_id);
  absl::Status Delete(const std::string& job_id);
  // trial_id 0: every trial.
  absl::Status StreamLogs(const std::string& job_id, bool follow, int64_t trial_id);

 private:
  absl::Status PrintJson(const google::protobuf::Message& message);
  void PrintLogLine(const v1::LogLine& line);
  // SubmitJobOptions::wait and stream_logs, once the job is submitted.
  absl::Status WaitForJob(const std::string& job_id, const SubmitJobOptions& options);

  VernierClient* client_;
  CommandContext context_;
};

// The trial whose final objective is best for the job's goal (the larger
// unless the goal is MINIMIZE), among the trials that neither failed nor were
// infeasible; nullptr when no trial has a final metric yet.
const v1::HyperparameterOutput* FindBestTrial(const v1::Job& job);
// Whether `job` matches a `jobs list --filter` term: labels.KEY=VALUE,
// labels.KEY (has the label), state=STATE (any case). INVALID_ARGUMENT
// naming the term for any other.
absl::StatusOr<bool> MatchesJobFilter(const v1::Job& job, const std::string& term);
// The job's objective metric: its hyperparameterMetricTag, else its first
// `metrics` entry, else "objective".
std::string ObjectiveName(const v1::Job& job);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_JOB_COMMANDS_H_
