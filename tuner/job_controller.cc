#include "tuner/job_controller.h"

#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "spdlog/spdlog.h"
#include "suggest/designer_factory.h"
#include "suggest/search_space.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/replica_spec_builder.h"
#include "tuner/config/study_spec_builder.h"
#include "tuner/config/training_input_defaults.h"
#include "tuner/training_output_builder.h"
#include "tuner/trial_ranking.h"

namespace vernier::tuner {
namespace {

constexpr v1::Job::State kUnfinishedStates[] = {v1::Job::QUEUED, v1::Job::PREPARING,
                                                v1::Job::RUNNING, v1::Job::CANCELLING};

bool IsRunning(v1::Trial::State state) {
  return state == v1::Trial::ACTIVE || state == v1::Trial::STOPPING;
}

bool IsMaster(const std::string& role) { return role == "master" || role == "chief"; }

const v1::ReplicaStatus* MasterOf(const v1::TrialRun& run) {
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (IsMaster(replica.role())) return &replica;
  }
  return nullptr;
}

std::string ReplicaName(const std::string& role, int index) {
  return absl::StrCat(role, "-", index);
}

std::string ExitDescription(const std::string& replica, int exit_code, int term_signal) {
  if (term_signal != 0) {
    return absl::StrFormat("%s was killed by signal %d (%s)", replica, term_signal,
                           strsignal(term_signal));
  }
  return absl::StrFormat("%s exited with code %d", replica, exit_code);
}

// The last measurement that holds the objective: the trial's result.
std::optional<v1::Measurement> LastObjectiveMeasurement(const v1::Trial& trial,
                                                        const std::string& objective) {
  for (auto it = trial.measurements().rbegin(); it != trial.measurements().rend(); ++it) {
    if (MetricValue(*it, objective).has_value()) return *it;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<v1::Trial>> AllTrials(storage::Storage& storage,
                                                 std::string_view study_name) {
  absl::StatusOr<storage::Page<v1::Trial>> page = storage.ListTrials(study_name, {});
  if (!page.ok()) return page.status();
  return std::move(page->items);
}

}  // namespace

JobController::JobController(storage::Storage& storage, StudyManager& studies,
                             scheduler::Backend& backend, JobControllerOptions options, Clock clock)
    : storage_(storage),
      studies_(studies),
      backend_(backend),
      options_(std::move(options)),
      clock_(std::move(clock)) {}

JobController::~JobController() { Stop(); }

void JobController::Start(std::string server_address) {
  options_.launch.server_address = std::move(server_address);
  started_ = true;
  loop_ = std::thread([this] { Loop(); });
}

void JobController::Stop() {
  if (!started_) return;
  started_ = false;
  stop_.Notify();
  if (loop_.joinable()) loop_.join();
  std::vector<std::thread> cancellers;
  {
    absl::MutexLock lock(&mutex_);
    cancellers.swap(cancellers_);
  }
  for (std::thread& canceller : cancellers) canceller.join();
}

void JobController::Loop() {
  const absl::Duration interval = absl::FromChrono(options_.poll_interval);
  do {
    Tick();
  } while (!stop_.WaitForNotificationWithTimeout(interval));
}

void JobController::Tick() {
  absl::MutexLock tick(&tick_mutex_);
  absl::StatusOr<std::vector<v1::Job>> jobs = storage_.ListJobsInStates(kUnfinishedStates);
  if (!jobs.ok()) {
    spdlog::error("job controller cannot list jobs: {}", jobs.status().ToString());
    return;
  }
  for (v1::Job& job : *jobs) {
    const std::string job_id = job.job_id();
    if (absl::Status status = AdvanceJob(std::move(job)); !status.ok()) {
      spdlog::error("job={} cannot advance: {}", job_id, status.ToString());
    }
  }
}

absl::StatusOr<v1::Study> JobController::CheckSubmission(v1::Job& job) {
  if (absl::Status status = config::ValidateJobId(job.job_id()); !status.ok()) return status;
  if (job.command().empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("job \"%s\" has no trainer command; give it after `--`", job.job_id()));
  }
  if (!job.training_input().has_hyperparameters() ||
      job.training_input().hyperparameters().params().empty()) {
    return absl::InvalidArgumentError(
        "training_input.hyperparameters.params is empty: a tuning job needs at least one "
        "parameter to tune");
  }
  config::FillTrainingInputDefaults(*job.mutable_training_input());
  if (absl::Status status = config::ValidateTrainingInput(
          job.training_input(), config::ProtoPathLocator("training_input"));
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas = config::PlanReplicas(
      job.training_input(),
      options_.machine_types ? *options_.machine_types : config::MachineTypeCatalog::Default(),
      backend_, static_cast<int>(options_.gpus.size()), config::ProtoPathLocator("training_input"));
  if (!replicas.ok()) return replicas.status();
  job.mutable_replica_specs()->Assign(replicas->begin(), replicas->end());
  if (job.job_dir().empty()) job.set_job_dir(job.training_input().job_dir());
  if (job.job_dir().empty() && !options_.default_job_root.empty()) {
    job.set_job_dir(absl::StrCat(options_.default_job_root, "/", job.job_id()));
  }
  if (job.job_dir().empty() || !std::filesystem::path(job.job_dir()).is_absolute()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job_dir \"%s\" must be an absolute path (the CLI's --job-dir)", job.job_dir()));
  }

  v1::Study study;
  study.set_name(job.job_id());
  *study.mutable_spec() =
      config::StudySpecFromHyperparameters(job.training_input().hyperparameters());
  // Also validates the search space: the designer is built over it.
  if (absl::StatusOr<std::unique_ptr<suggest::Designer>> designer =
          suggest::MakeDesigner(study.spec());
      !designer.ok()) {
    return designer.status();
  }
  const std::string& previous_id = job.training_input().hyperparameters().resume_previous_job_id();
  if (!previous_id.empty()) {
    absl::StatusOr<v1::Job> previous = storage_.GetJob(previous_id);
    if (!previous.ok()) {
      return absl::NotFoundError(absl::StrFormat(
          "training_input.hyperparameters.resume_previous_job_id: job \"%s\" not found",
          previous_id));
    }
    // What must match for old results to mean the same thing now.
    auto tuned = [](const v1::Job& of) {
      v1::HyperparameterSpec essentials;
      *essentials.mutable_params() = of.training_input().hyperparameters().params();
      essentials.set_hyperparameter_metric_tag(
          of.training_input().hyperparameters().hyperparameter_metric_tag());
      essentials.set_goal(of.training_input().hyperparameters().goal());
      return essentials;
    };
    if (!google::protobuf::util::MessageDifferencer::Equals(tuned(*previous), tuned(job))) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "training_input.hyperparameters.resume_previous_job_id: job \"%s\" tuned other "
          "parameters or another metric or goal; a resumed job must keep them",
          previous_id));
    }
  }
  study.mutable_spec()->set_seed(std::random_device{}() | 1);
  return study;
}

absl::StatusOr<v1::Job> JobController::SubmitJob(v1::Job job) {
  absl::StatusOr<v1::Study> checked = CheckSubmission(job);
  if (!checked.ok()) return checked.status();
  v1::Study& study = *checked;
  const absl::Time now = clock_();
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = ToTimestamp(now);
  job.set_state(v1::Job::QUEUED);
  job.clear_error_message();
  job.clear_training_output();
  *job.mutable_create_time() = ToTimestamp(now);
  job.set_study_name(study.name());
  job.set_algorithm_description(suggest::DescribeAlgorithm(study.spec()));
  absl::StatusOr<v1::Job> created = storage_.CreateJob(job, study);
  if (created.ok()) {
    spdlog::info("job={} submitted: {} trials, {} in parallel, {}", job.job_id(),
                 study.spec().max_trials(), study.spec().max_parallel_trials(),
                 job.algorithm_description());
  }
  return created;
}

absl::StatusOr<v1::Job> JobController::PreviewJob(v1::Job job) {
  absl::StatusOr<v1::Study> study = CheckSubmission(job);
  if (!study.ok()) return study.status();
  study->set_state(v1::Study::ACTIVE);
  job.set_state(v1::Job::QUEUED);
  job.set_study_name(study->name());
  job.set_algorithm_description(suggest::DescribeAlgorithm(study->spec()));
  absl::StatusOr<std::unique_ptr<suggest::Designer>> designer =
      suggest::MakeDesigner(study->spec());
  if (!designer.ok()) return designer.status();
  std::mt19937_64 rng(study->spec().seed());
  absl::StatusOr<suggest::Suggestions> first = (*designer)->Suggest({}, 1, rng);
  if (!first.ok()) return first.status();
  v1::Trial trial;
  trial.set_id(1);
  if (!first->points.empty()) {
    for (const v1::ParameterValue& value : first->points.front()) *trial.add_parameters() = value;
  }
  absl::StatusOr<std::string> preview = backend_.PreviewLaunch(MakeLaunch(job, *study, trial, 0));
  if (!preview.ok()) return preview.status();
  job.set_launch_preview(*std::move(preview));
  return job;
}

scheduler::TrialLaunch JobController::MakeLaunch(const v1::Job& job, const v1::Study& study,
                                                 const v1::Trial& trial, int attempt) const {
  return BuildTrialLaunch(job, study, trial, options_.launch, attempt);
}

absl::StatusOr<v1::GetJobResponse> JobController::GetJob(std::string_view job_id) {
  absl::StatusOr<v1::Job> job = storage_.GetJob(job_id);
  if (!job.ok()) return job.status();
  v1::GetJobResponse response;
  absl::StatusOr<v1::Study> study = storage_.GetStudy(job->study_name());
  if (study.ok()) {
    absl::StatusOr<std::vector<v1::Trial>> trials = AllTrials(storage_, job->study_name());
    if (!trials.ok()) return trials.status();
    *job->mutable_training_output() = BuildTrainingOutput(study->spec(), *trials);
    *response.mutable_trial_counts() = CountTrialStates(*trials);
  }
  absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_.ListTrialRuns(job_id);
  if (!runs.ok()) return runs.status();
  for (v1::TrialRun& run : *runs) *response.add_trial_runs() = std::move(run);
  *response.mutable_job() = std::move(*job);
  return response;
}

absl::StatusOr<storage::Page<v1::Job>> JobController::ListJobs(int page_size,
                                                               std::string_view page_token) {
  if (page_size < 0) return absl::InvalidArgumentError("page_size must not be negative");
  return storage_.ListJobs(page_size, page_token);
}

absl::StatusOr<v1::Job> JobController::CancelJob(std::string_view job_id) {
  absl::StatusOr<v1::Job> job = storage_.UpdateJob(job_id, [&](v1::Job& stored) -> absl::Status {
    switch (stored.state()) {
      case v1::Job::QUEUED:
      case v1::Job::PREPARING:
      case v1::Job::RUNNING:
        stored.set_state(v1::Job::CANCELLING);
        return absl::OkStatus();
      case v1::Job::CANCELLING:
        return absl::OkStatus();
      default:
        return absl::FailedPreconditionError(
            absl::StrFormat("job \"%s\" already ended %s; there is nothing to cancel", job_id,
                            v1::Job::State_Name(stored.state())));
    }
  });
  if (job.ok()) spdlog::info("job={} cancelling", job_id);
  return job;
}

absl::Status JobController::AdvanceJob(v1::Job job) {
  const std::string job_id = job.job_id();
  if (job.state() == v1::Job::QUEUED || job.state() == v1::Job::PREPARING) {
    if (absl::Status status = PrepareJob(job); !status.ok()) return status;
    absl::StatusOr<v1::Job> running = storage_.UpdateJob(job_id, [&](v1::Job& stored) {
      if (stored.state() == v1::Job::QUEUED || stored.state() == v1::Job::PREPARING) {
        stored.set_state(v1::Job::RUNNING);
        *stored.mutable_start_time() = ToTimestamp(clock_());
      }
      return absl::OkStatus();
    });
    if (!running.ok()) return running.status();
    spdlog::info("job={} running", job_id);
    job = std::move(*running);
  }

  absl::StatusOr<v1::Study> study = storage_.GetStudy(job.study_name());
  if (absl::IsNotFound(study.status())) {
    return FinishJob(job, v1::Job::FAILED,
                     absl::StrFormat("the job's study \"%s\" was deleted", job.study_name()), {},
                     {});
  }
  if (!study.ok()) return study.status();
  const v1::StudySpec& spec = study->spec();
  absl::StatusOr<std::vector<v1::Trial>> trials = AllTrials(storage_, job.study_name());
  if (!trials.ok()) return trials.status();
  absl::StatusOr<std::vector<v1::TrialRun>> stored_runs = storage_.ListTrialRuns(job_id);
  if (!stored_runs.ok()) return stored_runs.status();
  std::map<int64_t, v1::TrialRun> runs;
  for (v1::TrialRun& run : *stored_runs) runs[run.trial_id()] = std::move(run);
  if (absl::Status status = ReconcileRuns(job, *trials, runs); !status.ok()) return status;
  FailSilentAgents(job, *trials, runs);

  std::vector<v1::Trial> running;
  for (const v1::Trial& trial : *trials) {
    if (IsRunning(trial.state())) running.push_back(trial);
  }

  if (job.state() == v1::Job::CANCELLING) {
    if (running.empty()) {
      return FinishJob(job, job.error_message().empty() ? v1::Job::CANCELLED : v1::Job::FAILED,
                       job.error_message(), spec, *trials);
    }
    CancelTrialsInBackground(job, running, runs,
                             job.error_message().empty()
                                 ? absl::StrFormat("cancelled with job %s", job_id)
                                 : absl::StrFormat("ended because job %s failed", job_id));
    return absl::OkStatus();
  }

  // Too many failures: end the job, failing it once its trials are stopped.
  const v1::TrialCounts counts = CountTrialStates(*trials);
  if (spec.max_failed_trials() > 0 && counts.failed() >= spec.max_failed_trials()) {
    std::string last_failure;
    for (const v1::Trial& trial : *trials) {
      if (trial.state() == v1::Trial::FAILED) {
        last_failure = absl::StrFormat("trial %d: %s", trial.id(), trial.status_reason());
      }
    }
    const std::string error =
        absl::StrFormat("%d trials failed (maxFailedTrials=%d); the last: %s", counts.failed(),
                        spec.max_failed_trials(), last_failure);
    spdlog::error("job={} failing: {}", job_id, error);
    absl::StatusOr<v1::Job> failing = storage_.UpdateJob(job_id, [&](v1::Job& stored) {
      stored.set_state(v1::Job::CANCELLING);
      stored.set_error_message(error);
      return absl::OkStatus();
    });
    return failing.status();
  }

  // Trials handed out but never started (the server died in between).
  for (const v1::Trial& trial : running) {
    if (!runs.contains(trial.id())) {
      if (absl::Status status = LaunchTrial(job, *study, trial); !status.ok()) return status;
    }
  }

  int active = static_cast<int>(running.size());
  std::string shortfall;
  const int free_slots = spec.max_parallel_trials() - active;
  if (free_slots > 0) {
    absl::StatusOr<SuggestResult> suggested =
        studies_.SuggestTrials(job.study_name(), free_slots, "");
    if (!suggested.ok()) {
      spdlog::error("job={} cannot get suggestions: {}", job_id, suggested.status().ToString());
      if (active == 0) {
        return FinishJob(
            job, v1::Job::FAILED,
            absl::StrCat("the suggestion engine failed: ", suggested.status().message()), spec,
            *trials);
      }
      return absl::OkStatus();
    }
    shortfall = suggested->reason;
    for (const v1::Trial& trial : suggested->trials) {
      if (absl::Status status = LaunchTrial(job, *study, trial); !status.ok()) return status;
      ++active;
    }
  }
  if (active > 0) return absl::OkStatus();

  absl::StatusOr<std::vector<v1::Trial>> final_trials = AllTrials(storage_, job.study_name());
  if (!final_trials.ok()) return final_trials.status();
  if (RankTrials(*final_trials, spec, 1).empty()) {
    return FinishJob(job, v1::Job::FAILED,
                     absl::StrFormat("no trial reported the objective metric \"%s\"",
                                     spec.metrics().empty() ? "" : spec.metrics(0).metric_id()),
                     spec, *final_trials);
  }
  if (!shortfall.empty()) spdlog::info("job={} has no more trials to run: {}", job_id, shortfall);
  return FinishJob(job, v1::Job::SUCCEEDED, "", spec, *final_trials);
}

absl::Status JobController::PrepareJob(const v1::Job& job) {
  const std::string& previous_id = job.training_input().hyperparameters().resume_previous_job_id();
  if (previous_id.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<v1::Trial>> existing = AllTrials(storage_, job.study_name());
  if (!existing.ok()) return existing.status();
  const std::string resumed_client = absl::StrCat("resumed:", previous_id);
  if (existing->empty()) {
    absl::StatusOr<v1::Job> previous = storage_.GetJob(previous_id);
    if (!previous.ok()) return previous.status();
    absl::StatusOr<std::vector<v1::Trial>> history = AllTrials(storage_, previous->study_name());
    if (!history.ok()) return history.status();
    std::vector<v1::Trial> copies;
    for (const v1::Trial& trial : *history) {
      if (trial.state() != v1::Trial::SUCCEEDED && trial.state() != v1::Trial::STOPPED_EARLY &&
          trial.state() != v1::Trial::INFEASIBLE) {
        continue;
      }
      v1::Trial copy = trial;
      copy.clear_id();
      copy.set_client_id(resumed_client);
      copies.push_back(std::move(copy));
    }
    absl::StatusOr<std::vector<v1::Trial>> created =
        storage_.CreateTrials(job.study_name(), copies);
    if (!created.ok()) return created.status();
    existing = std::move(created);
    spdlog::info("job={} resumes job {} with {} finished trials", job.job_id(), previous_id,
                 existing->size());
  }
  // The job's maxTrials counts its own new trials; the copies come on top.
  int resumed = 0;
  for (const v1::Trial& trial : *existing) resumed += trial.client_id() == resumed_client ? 1 : 0;
  const int max_trials = job.training_input().hyperparameters().max_trials() + resumed;
  return storage_
      .UpdateStudy(job.study_name(),
                   [&](v1::Study& study) {
                     study.mutable_spec()->set_max_trials(max_trials);
                     return absl::OkStatus();
                   })
      .status();
}

absl::Status JobController::ReconcileRuns(const v1::Job& job, std::vector<v1::Trial>& trials,
                                          std::map<int64_t, v1::TrialRun>& runs) {
  const absl::Time now = clock_();
  for (v1::Trial& trial : trials) {
    if (!IsRunning(trial.state())) continue;
    auto run = runs.find(trial.id());
    if (run == runs.end()) continue;
    const v1::ReplicaStatus* before = MasterOf(run->second);
    if (before == nullptr || run->second.backend_handle().empty()) {
      // Recorded but never started: the server died between the two. (A
      // Slurm replica has no PID of ours; the handle tells a submitted run.)
      runs.erase(run);
      continue;
    }
    absl::StatusOr<v1::TrialRun> described = backend_.Describe(run->second);
    if (!described.ok()) {
      spdlog::warn("job={} trial={} cannot describe its run: {}", job.job_id(), trial.id(),
                   described.status().ToString());
      continue;
    }
    if (!google::protobuf::util::MessageDifferencer::Equals(*described, run->second)) {
      if (absl::Status status = storage_.PutTrialRun(job.job_id(), *described); !status.ok()) {
        return status;
      }
      run->second = *described;
    }
    const v1::ReplicaStatus* master = MasterOf(run->second);
    const bool gone =
        master->state() == v1::ReplicaStatus::EXITED || master->state() == v1::ReplicaStatus::LOST;
    const auto key = std::make_pair(job.job_id(), trial.id());
    absl::MutexLock lock(&mutex_);
    if (!gone || cancelling_.contains(key)) {
      exited_since_.erase(key);
      continue;
    }
    // The agent reports the outcome before it exits; give a report in
    // flight a moment before declaring the replica lost.
    auto [since, inserted] = exited_since_.emplace(key, now);
    if (now - since->second < options_.lost_replica_timeout) continue;
    exited_since_.erase(since);
    const std::string what =
        master->state() == v1::ReplicaStatus::LOST
            ? absl::StrFormat("%s vanished", ReplicaName(master->role(), master->index()))
            : ExitDescription(ReplicaName(master->role(), master->index()), master->exit_code(),
                              master->term_signal());
    absl::StatusOr<v1::Trial> failed =
        studies_.FailTrial(job.study_name(), trial.id(),
                           absl::StrFormat("%s without its agent reporting the outcome; see %s",
                                           what, master->log_path()));
    if (failed.ok()) trial = *failed;
  }
  return absl::OkStatus();
}

void JobController::OnAgentContact(const v1::ReplicaId& replica) {
  liveness_.Heard({replica.study_name(), replica.trial_id(), replica.role(), replica.index()},
                  clock_());
}

void JobController::FailSilentAgents(const v1::Job& job, std::vector<v1::Trial>& trials,
                                     const std::map<int64_t, v1::TrialRun>& runs) {
  const absl::Time now = clock_();
  std::set<int64_t> running;
  for (v1::Trial& trial : trials) {
    auto run = runs.find(trial.id());
    if (!IsRunning(trial.state()) || run == runs.end()) continue;
    running.insert(trial.id());
    {
      absl::MutexLock lock(&mutex_);
      if (cancelling_.contains({job.job_id(), trial.id()})) continue;
    }
    for (const v1::ReplicaStatus& replica : run->second.replicas()) {
      const AgentLiveness::Replica key{job.study_name(), trial.id(), replica.role(),
                                       replica.index()};
      // Queued (not started) or gone replicas are not expected to speak;
      // the lost-replica check handles the gone ones.
      if (replica.state() != v1::ReplicaStatus::RUNNING) {
        liveness_.Forget(key);
        continue;
      }
      const absl::Duration silent = liveness_.SilentFor(key, now);
      if (options_.agent_timeout <= absl::ZeroDuration() || silent < options_.agent_timeout) {
        continue;
      }
      const std::string reason = absl::StrFormat(
          "the agent of %s sent no heartbeat for %s (agent timeout %s): it was killed, stopped or "
          "cut off from the service; its processes are being ended; see %s",
          ReplicaName(replica.role(), replica.index()),
          absl::FormatDuration(absl::Trunc(silent, absl::Seconds(1))),
          absl::FormatDuration(options_.agent_timeout), replica.log_path());
      spdlog::error("job={} trial={} {}", job.job_id(), trial.id(), reason);
      absl::StatusOr<v1::Trial> failed = studies_.FailTrial(job.study_name(), trial.id(), reason);
      if (!failed.ok()) break;
      trial = *failed;
      CancelTrialsInBackground(job, {trial}, runs, reason);
      running.erase(trial.id());
      break;
    }
  }
  liveness_.RetainTrials(job.study_name(), running);
}

absl::Status JobController::LaunchTrial(const v1::Job& job, const v1::Study& study,
                                        const v1::Trial& trial) {
  scheduler::TrialLaunch launch = MakeLaunch(job, study, trial, 0);
  v1::TrialRun pending;
  pending.set_trial_id(trial.id());
  pending.set_trial_dir(launch.trial_dir);
  pending.set_attempt(launch.attempt);
  *pending.mutable_launch_time() = ToTimestamp(clock_());
  for (const scheduler::ReplicaLaunch& replica : launch.replicas) {
    v1::ReplicaStatus* status = pending.add_replicas();
    status->set_role(replica.role);
    status->set_index(replica.index);
    status->set_state(v1::ReplicaStatus::PENDING);
    status->set_log_path(replica.log_path);
  }
  // Recorded first, so a restart knows this trial was being started.
  if (absl::Status status = storage_.PutTrialRun(job.job_id(), pending); !status.ok()) {
    return status;
  }
  absl::StatusOr<v1::TrialRun> run = backend_.Submit(launch);
  if (!run.ok()) {
    spdlog::error("job={} trial={} could not start: {}", job.job_id(), trial.id(),
                  run.status().ToString());
    for (v1::ReplicaStatus& replica : *pending.mutable_replicas()) {
      replica.set_state(v1::ReplicaStatus::LOST);
    }
    if (absl::Status status = storage_.PutTrialRun(job.job_id(), pending); !status.ok()) {
      return status;
    }
    return studies_
        .FailTrial(job.study_name(), trial.id(),
                   absl::StrCat("could not start the trial: ", run.status().message()))
        .status();
  }
  run->set_trial_id(trial.id());
  run->set_trial_dir(launch.trial_dir);
  run->set_attempt(launch.attempt);
  *run->mutable_launch_time() = pending.launch_time();
  spdlog::info("job={} trial={} launched: {}", job.job_id(), trial.id(),
               suggest::FormatAssignment({trial.parameters().begin(), trial.parameters().end()}));
  return storage_.PutTrialRun(job.job_id(), *run);
}

absl::Status JobController::OnReplicaExit(const v1::ReportExitRequest& report) {
  const v1::ReplicaId& replica = report.replica();
  const std::string name = ReplicaName(replica.role(), replica.index());
  absl::StatusOr<v1::Job> job = storage_.GetJob(replica.study_name());
  if (!job.ok()) {
    return absl::NotFoundError(
        absl::StrFormat("study \"%s\" is not run by a job", replica.study_name()));
  }
  absl::StatusOr<v1::Study> study = storage_.GetStudy(job->study_name());
  if (!study.ok()) return study.status();
  absl::StatusOr<v1::Trial> trial =
      storage_.GetTrial(replica.study_name(), replica.trial_id(), /*include_measurements=*/true);
  if (!trial.ok()) return trial.status();
  spdlog::info("job={} trial={} {} reported: {}{}", job->job_id(), trial->id(), name,
               ExitDescription(name, report.exit_code(), report.term_signal()),
               report.stopped_by_request() ? " (stop requested)" : "");
  if (!IsMaster(replica.role()) || !IsRunning(trial->state())) {
    return absl::OkStatus();  // Decided already, or not a replica that decides.
  }

  const std::string objective =
      study->spec().metrics().empty() ? "" : study->spec().metrics(0).metric_id();
  const std::optional<v1::Measurement> last = LastObjectiveMeasurement(*trial, objective);
  absl::StatusOr<v1::Trial> outcome;
  if (job->state() == v1::Job::CANCELLING) {
    outcome =
        studies_.FailTrial(job->study_name(), trial->id(),
                           job->error_message().empty()
                               ? absl::StrFormat("cancelled with job %s", job->job_id())
                               : absl::StrFormat("ended because job %s failed", job->job_id()));
  } else if (report.stopped_by_request() && trial->state() == v1::Trial::STOPPING &&
             last.has_value()) {
    outcome = studies_.CompleteTrial(job->study_name(), trial->id(), last);
  } else if (report.exit_code() == 0 && report.term_signal() == 0) {
    if (last.has_value()) {
      outcome = studies_.CompleteTrial(job->study_name(), trial->id(), last);
    } else {
      outcome = studies_.FailTrial(
          job->study_name(), trial->id(),
          absl::StrFormat("%s exited with code 0 but never reported the objective metric \"%s\" "
                          "(print `%s=VALUE` or report it with cloudml-hypertune)",
                          name, objective, objective));
    }
  } else {
    std::string reason = ExitDescription(name, report.exit_code(), report.term_signal());
    if (!report.log_tail().empty()) absl::StrAppend(&reason, "; last output:\n", report.log_tail());
    outcome = studies_.FailTrial(job->study_name(), trial->id(), std::move(reason));
  }
  // Another path may have decided the trial in the meantime; that is fine.
  if (!outcome.ok() && !absl::IsFailedPrecondition(outcome.status())) return outcome.status();
  return absl::OkStatus();
}

void JobController::CancelTrialsInBackground(const v1::Job& job,
                                             const std::vector<v1::Trial>& trials,
                                             const std::map<int64_t, v1::TrialRun>& runs,
                                             std::string reason) {
  JoinFinishedCancellers();
  for (const v1::Trial& trial : trials) {
    auto run = runs.find(trial.id());
    if (run == runs.end()) {
      (void)studies_.FailTrial(job.study_name(), trial.id(), reason);
      continue;
    }
    const auto key = std::make_pair(job.job_id(), trial.id());
    absl::MutexLock lock(&mutex_);
    if (!cancelling_.insert(key).second) continue;
    cancellers_.emplace_back([this, key, study = job.study_name(), run = run->second, reason] {
      spdlog::info("job={} trial={} stopping its replicas", key.first, key.second);
      if (absl::Status status = backend_.Cancel(run, options_.launch.grace_period); !status.ok()) {
        spdlog::error("job={} trial={} cancel failed: {}", key.first, key.second,
                      status.ToString());
      }
      // The agent usually reports first; then this is a no-op.
      (void)studies_.FailTrial(study, key.second, reason);
      absl::MutexLock lock(&mutex_);
      cancelling_.erase(key);
    });
  }
}

void JobController::JoinFinishedCancellers() {
  // Threads are joined when their trial has left `cancelling_`; a finished
  // thread's key is gone, an unfinished one's is still there.
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&mutex_);
    if (!cancelling_.empty()) return;
    finished.swap(cancellers_);
  }
  for (std::thread& thread : finished) thread.join();
}

absl::Status JobController::FinishJob(const v1::Job& job, v1::Job::State state, std::string error,
                                      const v1::StudySpec& spec,
                                      const std::vector<v1::Trial>& trials) {
  const absl::Time now = clock_();
  absl::StatusOr<v1::Job> finished = storage_.UpdateJob(job.job_id(), [&](v1::Job& stored) {
    stored.set_state(state);
    stored.set_error_message(error);
    *stored.mutable_end_time() = ToTimestamp(now);
    if (!trials.empty()) *stored.mutable_training_output() = BuildTrainingOutput(spec, trials);
    return absl::OkStatus();
  });
  if (!finished.ok()) return finished.status();
  absl::StatusOr<v1::Study> study = storage_.UpdateStudy(job.study_name(), [](v1::Study& stored) {
    stored.set_state(v1::Study::COMPLETED);
    return absl::OkStatus();
  });
  if (!study.ok() && !absl::IsNotFound(study.status())) return study.status();
  if (state == v1::Job::SUCCEEDED) {
    spdlog::info("job={} SUCCEEDED with {} trials", job.job_id(), trials.size());
  } else {
    spdlog::error("job={} {}: {}", job.job_id(), v1::Job::State_Name(state), error);
  }
  return absl::OkStatus();
}

}  // namespace vernier::tuner
