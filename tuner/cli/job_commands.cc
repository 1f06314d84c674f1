#include "tuner/cli/job_commands.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "auth/secret_redaction.h"
#include "common/status_macros.h"
#include "scheduler/shell_quote.h"
#include "text/control_chars.h"
#include "tuner/cli/auth_commands.h"
#include "tuner/cli/fetch_all_pages.h"
#include "tuner/cli/job_progress.h"
#include "tuner/cli/study_commands.h"
#include "tuner/cli/submit_environment.h"
#include "tuner/cli/table_printer.h"
#include "tuner/cli/time_format.h"
#include "tuner/cli/trial_count_format.h"
#include "tuner/cli/trial_format.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/training_input_parser.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"

namespace vernier::cli {
namespace {

absl::StatusOr<std::string> AbsoluteDirectory(const std::string& directory) {
  if (absl::StrContains(directory, "://")) {
    // gs://bucket/x would become a local folder named "gs:".
    return absl::InvalidArgumentError(absl::StrCat(
        "--job-dir \"", directory,
        "\": a URL; trials write their outputs to a folder where they run (this machine, or a "
        "file system the cluster's nodes share), so give a path, e.g. --job-dir /tmp/my_job"));
  }
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(directory, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("--job-dir \"", directory, "\": ", error.message()));
  }
  std::string normal = absolute.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

// The command as a shell line, without secrets (auth::RedactCommandLine).
std::string ShellCommand(const google::protobuf::RepeatedPtrField<std::string>& command) {
  if (command.empty()) return "-";
  return absl::StrJoin(auth::RedactCommandLine({command.begin(), command.end()}), " ",
                       [](std::string* out, const std::string& argument) {
                         out->append(scheduler::ShellQuote(argument));
                       });
}

std::string OrDash(const std::string& text) { return text.empty() ? "-" : text; }

// A path the user typed, made absolute against the working directory.
std::string AbsolutePath(std::string path) {
  if (path.empty() || path[0] == '/' || absl::StrContains(path, "://")) return path;
  std::error_code error;
  path = std::filesystem::absolute(path, error).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// gcloud's --labels: KEY=VALUE (the server checks their form).
absl::Status AddLabels(const std::vector<std::string>& labels, v1::Job& job) {
  for (const std::string& label : labels) {
    const size_t equals = label.find('=');
    if (equals == std::string::npos || equals == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--labels: \"", label,
                       "\" is not KEY=VALUE (e.g. --labels team=vision,"
                       "owner=dora)"));
    }
    (*job.mutable_labels())[label.substr(0, equals)] = label.substr(equals + 1);
  }
  return absl::OkStatus();
}

std::string FormatLabels(const v1::Job& job) {
  const std::map<std::string, std::string> sorted(job.labels().begin(), job.labels().end());
  return absl::StrJoin(sorted, ",", absl::PairFormatter("="));
}

std::string FormatBestTrial(const v1::Job& job) {
  const v1::HyperparameterOutput* best = FindBestTrial(job);
  if (best == nullptr) return "-";
  // The map's order is unspecified; sorting keeps the output stable.
  const std::map<std::string, std::string> sorted(best->hyperparameters().begin(),
                                                  best->hyperparameters().end());
  std::string text = absl::StrCat("trial ", best->trial_id(), ": ", ObjectiveName(job), "=",
                                  best->final_metric().objective_value(), " at step ",
                                  best->final_metric().training_step());
  if (!sorted.empty()) {
    absl::StrAppend(&text, " (", absl::StrJoin(sorted, ", ", absl::PairFormatter("=")), ")");
  }
  return text;
}

// The server may keep the runs of ended trials; their replica states are
// then the last ones seen, so the trial's own state decides.
std::vector<const v1::TrialRun*> RunningTrialRuns(const v1::GetJobResponse& response) {
  std::vector<const v1::TrialRun*> running;
  for (const v1::TrialRun& run : response.trial_runs()) {
    const std::string trial_id = absl::StrCat(run.trial_id());
    const auto& trials = response.job().training_output().trials();
    const bool ended = std::any_of(trials.begin(), trials.end(), [&](const auto& trial) {
      return trial.trial_id() == trial_id && tuner::HasEnded(trial.state());
    });
    if (!ended) running.push_back(&run);
  }
  return running;
}

std::string ReplicaName(const v1::ReplicaStatus& replica) {
  return absl::StrCat(replica.role().empty() ? "replica" : replica.role(), "-", replica.index());
}

std::string FormatGpus(int count, const std::string& type) {
  if (count == 0) return "-";
  return type.empty() ? absl::StrCat(count) : absl::StrCat(count, " x ", type);
}

std::string FormatMemory(int64_t memory_mb) {
  if (memory_mb <= 0) return "-";
  std::string gigabytes = absl::StrFormat("%.1f", static_cast<double>(memory_mb) / 1024);
  if (absl::EndsWith(gigabytes, ".0")) gigabytes.resize(gigabytes.size() - 2);
  return absl::StrCat(gigabytes, " GB");
}

// One row per run of replicas that differ only in their index
// ("worker-0..18"), so that a PREMIUM_1 job stays readable.
void PrintReplicaSpecs(const v1::Job& job, std::ostream& out) {
  TablePrinter table({"REPLICA", "MACHINE_TYPE", "CPUS", "MEMORY", "GPUS"});
  table.SetIndent(2);
  table.SetAlignment(2, TablePrinter::Alignment::kRight);
  table.SetAlignment(3, TablePrinter::Alignment::kRight);
  const auto& specs = job.replica_specs();
  for (int first = 0; first < specs.size();) {
    const v1::ReplicaSpec& spec = specs[first];
    int last = first;
    while (last + 1 < specs.size() && specs[last + 1].role() == spec.role() &&
           specs[last + 1].machine_type() == spec.machine_type() &&
           specs[last + 1].gpu_count() == spec.gpu_count() &&
           specs[last + 1].gpu_type() == spec.gpu_type()) {
      ++last;
    }
    const std::string name =
        last == first ? absl::StrCat(spec.role(), "-", spec.index())
                      : absl::StrCat(spec.role(), "-", spec.index(), "..", specs[last].index());
    table.AddRow({name, OrDash(spec.machine_type()),
                  spec.cpu_count() > 0 ? absl::StrCat(spec.cpu_count()) : "-",
                  FormatMemory(spec.memory_mb()), FormatGpus(spec.gpu_count(), spec.gpu_type())});
    first = last + 1;
  }
  out << "\nReplicas of each trial:\n";
  table.Print(out);
}

}  // namespace

std::string ObjectiveName(const v1::Job& job) {
  if (!job.training_input().hyperparameters().hyperparameter_metric_tag().empty()) {
    return job.training_input().hyperparameters().hyperparameter_metric_tag();
  }
  if (!job.training_input().hyperparameters().metrics().empty()) {
    return job.training_input().hyperparameters().metrics(0).metric_id();
  }
  if (!job.training_output().hyperparameter_metric_tag().empty()) {
    return job.training_output().hyperparameter_metric_tag();
  }
  return "objective";
}

const v1::HyperparameterOutput* FindBestTrial(const v1::Job& job) {
  const v1::HyperparameterSpec& hyperparameters = job.training_input().hyperparameters();
  // With `metrics`, trainingOutput lists the ranked trials first (trials
  // that meet the outcome constraints before those that miss one).
  const bool ranked = !hyperparameters.metrics().empty();
  const bool minimize = (ranked ? hyperparameters.metrics(0).goal() : hyperparameters.goal()) ==
                        v1::MetricSpec::MINIMIZE;
  const v1::HyperparameterOutput* best = nullptr;
  for (const v1::HyperparameterOutput& trial : job.training_output().trials()) {
    if (!trial.has_final_metric() || trial.state() == v1::Trial::FAILED ||
        trial.state() == v1::Trial::INFEASIBLE) {
      continue;
    }
    if (ranked) return &trial;
    const double value = trial.final_metric().objective_value();
    if (best == nullptr) {
      best = &trial;
      continue;
    }
    const double best_value = best->final_metric().objective_value();
    if (minimize ? value < best_value : value > best_value) best = &trial;
  }
  return best;
}

JobCommands::JobCommands(VernierClient* client, CommandContext context)
    : client_(client), context_(std::move(context)) {}

absl::Status JobCommands::PrintJson(const google::protobuf::Message& message) {
  absl::StatusOr<std::string> json = ToJson(message, JsonLayout::kIndented);
  if (!json.ok()) return json.status();
  *context_.out << *json << '\n';
  return absl::OkStatus();
}

absl::StatusOr<v1::Job> JobCommands::BuildJob(const SubmitJobOptions& options) {
  if (absl::Status valid = config::ValidateJobId(options.job_id); !valid.ok()) return valid;
  absl::StatusOr<v1::TrainingInput> training_input =
      config::ParseTrainingInputFile(options.config_path);
  if (!training_input.ok()) return training_input.status();
  if (!options.package_path.empty() && options.module_name.empty()) {
    return absl::InvalidArgumentError(
        "--package-path needs --module-name: the module every replica runs, e.g. "
        "--module-name trainer.task");
  }
  if (!options.packages.empty() && options.module_name.empty() &&
      training_input->python_module().empty()) {
    return absl::InvalidArgumentError(
        "--packages are installed for a packaged trainer only: give --module-name too");
  }
  if (!options.module_name.empty()) training_input->set_python_module(options.module_name);
  const bool packaged = !training_input->python_module().empty();
  if (options.command.empty() && !packaged) {
    return absl::InvalidArgumentError(
        "the trainer command is missing: put it after `--`, e.g. `-- python3 -m trainer.task`");
  }
  absl::StatusOr<std::string> job_dir = AbsoluteDirectory(options.job_dir);
  if (!job_dir.ok()) return job_dir.status();
  if (!options.find_links.empty() && !packaged) {
    return absl::InvalidArgumentError(
        "--find-links holds a packaged trainer's requirements: give --module-name too");
  }

  v1::Job job;
  job.set_job_id(options.job_id);
  *job.mutable_training_input() = *std::move(training_input);
  VERNIER_ASSIGN_OR_RETURN(const auto yaml_labels, config::ParseJobLabelsFile(options.config_path));
  job.mutable_labels()->insert(yaml_labels.begin(), yaml_labels.end());
  VERNIER_RETURN_IF_ERROR(AddLabels(options.labels, job));
  if (!options.region.empty()) job.mutable_training_input()->set_region(options.region);
  if (!options.runtime_version.empty()) {
    job.mutable_training_input()->set_runtime_version(options.runtime_version);
  }
  if (!options.python_version.empty()) {
    job.mutable_training_input()->set_python_version(options.python_version);
  }
  if (packaged) {
    // gcloud's way: the words after `--` are the module's arguments, and
    // every package is a local path made absolute here.
    v1::TrainingInput& input = *job.mutable_training_input();
    for (const std::string& argument : options.command) input.add_args(argument);
    if (!options.package_path.empty()) input.add_package_uris(options.package_path);
    for (const std::string& package : options.packages) input.add_package_uris(package);
    for (const std::string& folder : options.find_links) input.add_find_links(folder);
    for (std::string& uri : *input.mutable_package_uris()) uri = AbsolutePath(uri);
    for (std::string& folder : *input.mutable_find_links()) folder = AbsolutePath(folder);
  }
  // One job directory, even when the YAML also names one.
  job.mutable_training_input()->set_job_dir(*job_dir);
  job.set_job_dir(*job_dir);
  std::error_code cwd_error;
  job.set_working_dir(std::filesystem::current_path(cwd_error).string());
  if (!packaged) {
    for (const std::string& argument : options.command) job.add_command(argument);
  }
  VERNIER_ASSIGN_OR_RETURN(auto environment,
                           JobEnvironment(options.submitter_env, options.env_file, options.env));
  job.mutable_environment()->insert(environment.begin(), environment.end());
  return job;
}

absl::Status JobCommands::Submit(const SubmitJobOptions& options) {
  absl::StatusOr<v1::Job> job = BuildJob(options);
  if (!job.ok()) return job.status();
  absl::StatusOr<v1::Job> submitted = client_->SubmitTrainingJob(*job, options.dry_run);
  if (!submitted.ok()) {
    return config::LocateInTrainingInputFile(submitted.status(), options.config_path);
  }
  if (context_.format == OutputFormat::kJson) {
    if (options.dry_run || !(options.wait || options.stream_logs)) return PrintJson(*submitted);
    // Only the job as it ended: one JSON document.
    return WaitForJob(submitted->job_id(), options);
  }
  for (const std::string& warning : config::TrainingInputFileWarnings(options.config_path)) {
    *context_.out << "Warning: " << text::ControlChars::ForTerminal(warning) << "\n";
  }
  for (const auto& [flag, value] : {std::pair{"--region", &options.region},
                                    std::pair{"--runtime-version", &options.runtime_version},
                                    std::pair{"--python-version", &options.python_version}}) {
    if (value->empty()) continue;
    *context_.out << "Warning: " << flag << " " << text::ControlChars::ForTerminal(*value)
                  << " is stored and shown by `vernier jobs describe`, and changes nothing here: "
                     "trials run where `vernier serve` runs them, with the submitter's Python\n";
  }
  if (options.dry_run) {
    *context_.out << submitted->launch_preview();
    return absl::OkStatus();
  }
  *context_.out << "Submitted job " << submitted->job_id() << " (state "
                << v1::Job::State_Name(submitted->state()) << ").\n";
  if (options.wait || options.stream_logs) return WaitForJob(submitted->job_id(), options);
  *context_.out << "Follow it with: vernier jobs describe " << submitted->job_id() << "\n";
  return absl::OkStatus();
}

absl::Status JobCommands::WaitForJob(const std::string& job_id, const SubmitJobOptions& options) {
  const bool json = context_.format == OutputFormat::kJson;
  absl::Mutex out_mutex;
  std::thread logs;
  absl::Status logs_status;
  if (options.stream_logs && !json) {
    v1::StreamLogsRequest request;
    request.set_job_id(job_id);
    request.set_follow(true);
    logs = std::thread([&, request] {
      logs_status = client_->StreamLogs(request, [&](const v1::LogLine& line) -> absl::Status {
        absl::MutexLock lock(&out_mutex);
        PrintLogLine(line);
        return absl::OkStatus();
      });
    });
  }
  // The log stream ends by itself once the job has ended.
  absl::Cleanup join_logs = [&logs] {
    if (logs.joinable()) logs.join();
  };
  JobProgress progress;
  v1::GetJobResponse last;
  // Failed trials' reasons (a traceback's lines), read once each.
  std::map<std::string, std::string> reasons;
  for (;;) {
    absl::StatusOr<v1::GetJobResponse> snapshot = client_->GetJob(job_id);
    if (!snapshot.ok()) return snapshot.status();
    last = *std::move(snapshot);
    if (!json) {
      for (const v1::HyperparameterOutput& trial : last.job().training_output().trials()) {
        int64_t trial_id = 0;
        if (trial.state() != v1::Trial::FAILED || reasons.contains(trial.trial_id()) ||
            !absl::SimpleAtoi(trial.trial_id(), &trial_id)) {
          continue;
        }
        absl::StatusOr<v1::Trial> failed = client_->GetTrial(last.job().study_name(), trial_id);
        reasons[trial.trial_id()] = failed.ok() ? failed->status_reason() : "";
      }
      absl::MutexLock lock(&out_mutex);
      for (const std::string& line : progress.Update(last, context_.now(), reasons)) {
        *context_.out << text::ControlChars::ForTerminal(line) << '\n';
      }
      context_.out->flush();
    }
    if (tuner::HasEnded(last.job().state())) break;
    absl::SleepFor(options.poll_interval);
  }
  std::move(join_logs).Invoke();
  if (!logs_status.ok()) {
    *context_.out << "Warning: the log stream ended early: " << logs_status.ToString() << "\n";
  }
  if (json) {
    VERNIER_RETURN_IF_ERROR(PrintJson(last));
  } else {
    *context_.out << "\n";
    StudyCommands studies(client_, context_);
    VERNIER_RETURN_IF_ERROR(studies.Leaderboard(last.job().study_name(), 10));
  }
  if (last.job().state() == v1::Job::SUCCEEDED) return absl::OkStatus();
  return absl::AbortedError(
      absl::StrCat("job ", job_id, " ended ", v1::Job::State_Name(last.job().state()),
                   last.job().error_message().empty() ? "" : ": ", last.job().error_message()));
}

absl::Status JobCommands::Describe(const std::string& job_id) {
  absl::StatusOr<v1::GetJobResponse> response = client_->GetJob(job_id);
  if (!response.ok()) return response.status();
  // Secrets in the command (HF_TOKEN=..., --api-key ...) are not shown.
  const std::vector<std::string> command =
      auth::RedactCommandLine({response->job().command().begin(), response->job().command().end()});
  response->mutable_job()->mutable_command()->Assign(command.begin(), command.end());
  if (context_.format == OutputFormat::kJson) return PrintJson(*response);

  const v1::Job& job = response->job();
  TablePrinter fields;
  // An error keeps its lines (pip's, a trial's traceback).
  fields.KeepLinesInLastColumn(2);
  fields.AddRow({"Job:", job.job_id()});
  fields.AddRow({"State:", v1::Job::State_Name(job.state())});
  // The server cannot reach its store: the job waits, nothing fails.
  if (job.has_waiting_for_store_since()) {
    fields.AddRow({"Waiting:", absl::StrCat("waiting for the store since ",
                                            FormatTimestamp(job.waiting_for_store_since(),
                                                            context_.time_zone))});
  }
  // The server cannot reach slurmctld: trials to start wait, nothing fails.
  if (job.has_waiting_for_slurm_since()) {
    fields.AddRow({"Waiting:", absl::StrCat("waiting for Slurm since ",
                                            FormatTimestamp(job.waiting_for_slurm_since(),
                                                            context_.time_zone))});
  }
  // Trials wait in the local fair-share queue: where, and why.
  if (!job.waiting_for_gpus().empty()) {
    fields.AddRow({"Waiting:", absl::StrCat("waiting for GPUs: ", job.waiting_for_gpus())});
  }
  // Jobs stored before owners existed have none.
  if (!job.owner().empty()) fields.AddRow({"Owner:", job.owner()});
  if (!job.grants().empty()) fields.AddRow({"Shared with:", FormatGrants(job.grants())});
  if (!job.labels().empty()) fields.AddRow({"Labels:", FormatLabels(job)});
  if (!job.error_message().empty()) fields.AddRow({"Error:", job.error_message()});
  fields.AddRow({"Algorithm:", OrDash(job.algorithm_description())});
  fields.AddRow({"Study:", OrDash(job.study_name())});
  fields.AddRow({"Job dir:", OrDash(job.job_dir())});
  fields.AddRow({"Command:", ShellCommand(job.command())});
  if (!job.working_dir().empty()) fields.AddRow({"Working dir:", job.working_dir()});
  // gcloud's metadata: stored and shown, with no effect here.
  const v1::TrainingInput& input = job.training_input();
  if (!input.region().empty()) fields.AddRow({"Region:", input.region() + " (no effect)"});
  if (!input.runtime_version().empty()) {
    fields.AddRow({"Runtime version:", input.runtime_version() + " (no effect)"});
  }
  if (!input.python_version().empty()) {
    fields.AddRow({"Python version:", input.python_version() + " (no effect)"});
  }
  // The trial's environment, secrets as the server left them ([redacted]).
  const std::map<std::string, std::string> environment(job.environment().begin(),
                                                       job.environment().end());
  std::string environment_label = "Environment:";
  for (const auto& [name, value] : environment) {
    fields.AddRow({environment_label, auth::RedactAssignment(absl::StrCat(name, "=", value))});
    environment_label.clear();
  }
  fields.AddRow({"Created:", FormatTimestamp(job.create_time(), context_.time_zone)});
  fields.AddRow({"Started:", FormatTimestamp(job.start_time(), context_.time_zone)});
  fields.AddRow({"Ended:", FormatTimestamp(job.end_time(), context_.time_zone)});
  fields.AddRow({"Duration:", FormatElapsed(job.start_time(), job.end_time(), context_.now())});
  fields.AddRow(
      {"Trials:", absl::StrCat(FormatTrialCounts(response->trial_counts()), " (of ",
                               job.training_input().hyperparameters().max_trials(), " max)")});
  const v1::HyperparameterSpec& hyperparameters = job.training_input().hyperparameters();
  v1::StudySpec metrics;
  *metrics.mutable_metrics() = hyperparameters.metrics();
  const bool several_objectives = tuner::ObjectiveCount(metrics) > 1;
  if (!hyperparameters.metrics().empty()) {
    fields.AddRow({"Metrics:", FormatMetricSpecs(metrics)});
  }
  if (!several_objectives) fields.AddRow({"Best trial:", FormatBestTrial(job)});
  fields.Print(*context_.out);
  if (several_objectives && !job.study_name().empty()) {
    // The Pareto front, with every objective and constraint.
    absl::StatusOr<v1::ListOptimalTrialsResponse> front =
        client_->ListOptimalTrials(job.study_name(), 0);
    if (!front.ok()) return front.status();
    *context_.out << "\nPareto front (" << front->trials_size() << " trials):\n";
    if (front->trials().empty()) {
      *context_.out << "  No completed trials yet.\n";
    } else {
      PrintTrialsWithMetrics({front->trials().begin(), front->trials().end()}, metrics, 2,
                             *context_.out);
    }
  }
  // Jobs stored before the job model have none: one master without GPUs.
  if (job.replica_specs_size() > 0) PrintReplicaSpecs(job, *context_.out);

  const std::vector<const v1::TrialRun*> running = RunningTrialRuns(*response);
  if (running.empty()) return absl::OkStatus();
  *context_.out << "\nRunning trials:\n";
  TablePrinter replicas({"TRIAL", "REPLICA", "STATE", "HOST", "PID", "GPUS", "LOG"});
  replicas.SetIndent(2);
  replicas.SetAlignment(0, TablePrinter::Alignment::kRight);
  replicas.SetAlignment(4, TablePrinter::Alignment::kRight);
  for (const v1::TrialRun* run_pointer : running) {
    const v1::TrialRun& run = *run_pointer;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      replicas.AddRow({absl::StrCat(run.trial_id()), ReplicaName(replica),
                       v1::ReplicaStatus::State_Name(replica.state()), OrDash(replica.host()),
                       replica.pid() > 0 ? absl::StrCat(replica.pid()) : "-",
                       replica.gpus().empty() ? "-" : absl::StrJoin(replica.gpus(), ","),
                       OrDash(replica.log_path())});
    }
    if (run.replicas_size() == 0) {
      replicas.AddRow({absl::StrCat(run.trial_id()), "-", "PENDING", "-", "-", "-", "-"});
    }
  }
  replicas.Print(*context_.out);
  return absl::OkStatus();
}

absl::StatusOr<bool> MatchesJobFilter(const v1::Job& job, const std::string& term) {
  const size_t equals = term.find('=');
  const std::string field = term.substr(0, equals);
  if (absl::StartsWith(field, "labels.") && field.size() > std::string("labels.").size()) {
    const auto label = job.labels().find(field.substr(std::string("labels.").size()));
    if (label == job.labels().end()) return false;
    return equals == std::string::npos || label->second == term.substr(equals + 1);
  }
  if (field == "state" && equals != std::string::npos) {
    return absl::AsciiStrToUpper(term.substr(equals + 1)) == v1::Job::State_Name(job.state());
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--filter \"", term,
                   "\": expected labels.KEY=VALUE, labels.KEY (has the label) or state=STATE, e.g. "
                   "--filter labels.team=vision"));
}

absl::Status JobCommands::List(int page_size, const std::vector<std::string>& filters) {
  // A filter that cannot match is refused before anything is read.
  for (const std::string& term : filters) {
    VERNIER_RETURN_IF_ERROR(MatchesJobFilter(v1::Job(), term).status());
  }
  v1::ListJobsResponse all;
  absl::Status fetched = FetchAllPages(
      client_->address(),
      [&](const std::string& page_token) { return client_->ListJobs(page_size, page_token); },
      [&](v1::ListJobsResponse& page) {
        for (v1::Job& job : *page.mutable_jobs()) {
          bool matches = true;
          for (const std::string& term : filters) matches = matches && *MatchesJobFilter(job, term);
          if (matches) *all.add_jobs() = std::move(job);
        }
      });
  if (!fetched.ok()) return fetched;

  if (context_.format == OutputFormat::kJson) return PrintJson(all);
  if (all.jobs_size() == 0) {
    *context_.out << (filters.empty() ? "No jobs.\n" : "No jobs match the filter.\n");
    return absl::OkStatus();
  }
  // A LABELS column once any job has labels.
  const bool labelled = std::any_of(all.jobs().begin(), all.jobs().end(),
                                    [](const v1::Job& job) { return !job.labels().empty(); });
  std::vector<std::string> header = {"JOB_ID", "STATE", "TRIALS", "OUTCOME", "CREATED", "DURATION"};
  if (labelled) header.push_back("LABELS");
  TablePrinter table(header);
  table.SetAlignment(2, TablePrinter::Alignment::kRight);
  table.SetAlignment(5, TablePrinter::Alignment::kRight);
  for (const v1::Job& job : all.jobs()) {
    std::vector<std::string> row = {
        job.job_id(),
        v1::Job::State_Name(job.state()),
        absl::StrCat(job.training_output().completed_trial_count(), "/",
                     job.training_input().hyperparameters().max_trials()),
        FormatOutcome(job.training_output()),
        FormatTimestamp(job.create_time(), context_.time_zone),
        FormatElapsed(job.start_time(), job.end_time(), context_.now())};
    if (labelled) row.push_back(OrDash(FormatLabels(job)));
    table.AddRow(row);
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status JobCommands::Cancel(const std::string& job_id) {
  absl::StatusOr<v1::Job> job = client_->CancelJob(job_id);
  if (!job.ok()) return job.status();
  if (context_.format == OutputFormat::kJson) return PrintJson(*job);
  *context_.out << "Job " << job->job_id() << ": " << v1::Job::State_Name(job->state()) << "\n";
  return absl::OkStatus();
}

absl::Status JobCommands::Delete(const std::string& job_id) {
  if (absl::Status deleted = client_->DeleteJob(job_id); !deleted.ok()) return deleted;
  if (context_.format == OutputFormat::kJson) return PrintJson(v1::DeleteJobResponse());
  *context_.out << "Deleted job " << job_id << " with its study, trials and logs.\n";
  return absl::OkStatus();
}

void JobCommands::PrintLogLine(const v1::LogLine& line) {
  std::string_view text = line.text();
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  *context_.out << "[trial " << line.trial_id() << " "
                << (line.role().empty() ? "replica" : text::ControlChars::ForTerminal(line.role()))
                << "-" << line.index();
  if (line.attempt() > 0) *context_.out << " retry " << line.attempt();
  // The agent's own lines (its prefix removed by the server).
  if (line.agent()) *context_.out << " agent";
  *context_.out << "] " << text::ControlChars::ForTerminal(text) << '\n';
}

absl::Status JobCommands::StreamLogs(const std::string& job_id, bool follow, int64_t trial_id) {
  v1::StreamLogsRequest request;
  request.set_job_id(job_id);
  request.set_follow(follow);
  request.set_trial_id(trial_id);
  return client_->StreamLogs(request, [this](const v1::LogLine& line) -> absl::Status {
    if (context_.format == OutputFormat::kJson) {
      absl::StatusOr<std::string> json = ToJson(line, JsonLayout::kOneLine);
      if (!json.ok()) return json.status();
      *context_.out << *json << '\n';
    } else {
      PrintLogLine(line);
    }
    // Followed logs are read live, often through a pipe.
    context_.out->flush();
    return absl::OkStatus();
  });
}

}  // namespace vernier::cli
