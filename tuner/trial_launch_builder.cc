#include "tuner/trial_launch_builder.h"

#include <charconv>

#include "absl/strings/str_cat.h"

namespace vernier::tuner {
namespace {

std::string ShortestDouble(double value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

}  // namespace

std::string ParameterFlag(const v1::ParameterValue& value) {
  std::string text;
  switch (value.value_case()) {
    case v1::ParameterValue::kDoubleValue:
      text = ShortestDouble(value.double_value());
      break;
    case v1::ParameterValue::kIntValue:
      text = absl::StrCat(value.int_value());
      break;
    case v1::ParameterValue::kStringValue:
      text = value.string_value();
      break;
    case v1::ParameterValue::VALUE_NOT_SET:
      break;
  }
  return absl::StrCat("--", value.parameter_name(), "=", text);
}

scheduler::TrialLaunch BuildTrialLaunch(const v1::Job& job, const v1::Study& study,
                                        const v1::Trial& trial, const LaunchSettings& settings,
                                        int attempt) {
  scheduler::TrialLaunch launch;
  launch.job_id = job.job_id();
  launch.study_name = study.name();
  launch.trial_id = trial.id();
  launch.attempt = attempt;
  launch.trial_dir = absl::StrCat(job.job_dir(), "/", trial.id());

  const std::string metric_tag =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  scheduler::ReplicaLaunch master;
  master.role = "master";
  master.index = 0;
  master.working_dir = job.working_dir().empty() ? launch.trial_dir : job.working_dir();
  master.log_path = absl::StrCat(launch.trial_dir, "/logs/master-0.log");
  master.argv = {settings.agent_path,
                 "--server",
                 settings.server_address,
                 "--study",
                 study.name(),
                 "--trial",
                 absl::StrCat(trial.id()),
                 "--role",
                 master.role,
                 "--index",
                 "0",
                 "--metric-tag",
                 metric_tag,
                 "--trial-dir",
                 launch.trial_dir,
                 "--grace-period-ms",
                 absl::StrCat(settings.grace_period.count()),
                 "--heartbeat-interval-ms",
                 absl::StrCat(settings.heartbeat_interval.count())};
  const std::string& metric_regex = job.training_input().hyperparameters().metric_regex();
  if (!metric_regex.empty()) {
    master.argv.push_back("--metric-regex");
    master.argv.push_back(metric_regex);
  }
  master.argv.push_back("--");
  for (const std::string& word : job.command()) master.argv.push_back(word);
  for (const std::string& arg : job.training_input().args()) master.argv.push_back(arg);
  for (const v1::ParameterValue& value : trial.parameters()) {
    master.argv.push_back(ParameterFlag(value));
  }
  master.argv.push_back(absl::StrCat("--job-dir=", launch.trial_dir));
  master.env["CLOUD_ML_JOB_ID"] = job.job_id();
  launch.replicas.push_back(std::move(master));
  return launch;
}

}  // namespace vernier::tuner
