#include "tuner/job_controller.h"

#include <cstring>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "scheduler/port_probe.h"
#include "scheduler/replica_state.h"
#include "spdlog/spdlog.h"
#include "suggest/designers/designer_factory.h"
#include "suggest/search_space.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/replica_spec_builder.h"
#include "tuner/config/study_spec_builder.h"
#include "tuner/config/training_input_defaults.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/training_output_builder.h"

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

// What a trial holds (GPUs, ports) is kept under this key.
std::string ResourceKey(const std::string& job_id, int64_t trial_id) {
  return absl::StrCat(job_id, "/", trial_id);
}

// Gangs waiting for GPUs before their trial is suggested.
std::string PendingPrefix(const std::string& job_id) { return absl::StrCat(job_id, "/pending-"); }

bool IsLive(const v1::ReplicaStatus& replica) {
  return replica.state() == v1::ReplicaStatus::RUNNING ||
         replica.state() == v1::ReplicaStatus::PENDING;
}

// A run without a backend handle was recorded but never submitted (the
// launch failed, or the server died in between): nothing of it runs. The
// handle, not a PID, tells: Slurm replicas have no PID of ours.
bool HasLiveReplica(const v1::TrialRun& run) {
  if (run.backend_handle().empty()) return false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (IsLive(replica)) return true;
  }
  return false;
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
      clock_(std::move(clock)),
      resources_(options_.gpus, options_.replica_ports,
                 options_.port_usable ? options_.port_usable : &scheduler::PortProbe::IsFree,
                 static_cast<int>(std::random_device{}() % 65536)) {}

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
  if (!grants_restored_) {
    RestoreGrants(*jobs);
    grants_restored_ = true;
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
  absl::StatusOr<std::string> preview =
      backend_.PreviewLaunch(MakeLaunch(job, *study, trial, 0, {}));
  if (!preview.ok()) return preview.status();
  job.set_launch_preview(*std::move(preview));
  return job;
}

scheduler::TrialLaunch JobController::MakeLaunch(const v1::Job& job, const v1::Study& study,
                                                 const v1::Trial& trial, int attempt,
                                                 ReplicaGrants grants) const {
  grants.server_grants_gpus = resources_.has_gpus() && !backend_.AllocatesGpus();
  return BuildTrialLaunch(job, study, trial, options_.launch, attempt, grants);
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
  const bool settled = SettleEndedTrials(job, *trials, runs);

  std::vector<v1::Trial> running;
  for (const v1::Trial& trial : *trials) {
    if (IsRunning(trial.state())) running.push_back(trial);
  }

  if (job.state() == v1::Job::CANCELLING) {
    resources_.ReleasePrefix(PendingPrefix(job_id));
    if (running.empty()) {
      if (!settled) return absl::OkStatus();
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

  // Trials handed out but never started (the server died in between), and
  // trials whose failed attempt has ended and that run again.
  const bool gangs = UsesGangs(job);
  for (const v1::Trial& trial : running) {
    const auto key = std::make_pair(job_id, trial.id());
    bool restart = false;
    {
      absl::MutexLock lock(&mutex_);
      auto restarting = restarting_.find(key);
      if (restarting != restarting_.end()) {
        if (!restarting->second) continue;
        restarting_.erase(restarting);
        restart = true;
      }
    }
    if (restart) {
      const int attempt = runs.contains(trial.id()) ? runs[trial.id()].attempt() + 1 : 0;
      if (absl::Status status = LaunchTrial(job, *study, trial, attempt); !status.ok()) {
        return status;
      }
      continue;
    }
    if (runs.contains(trial.id())) continue;
    if (!gangs) {
      if (absl::Status status = LaunchTrial(job, *study, trial, 0); !status.ok()) return status;
      continue;
    }
    const std::string resource_key = ResourceKey(job_id, trial.id());
    if (!resources_.Holds(resource_key)) {
      std::vector<int> gpus_per_replica;
      for (const v1::ReplicaSpec& spec : ReplicaSpecsOf(job)) {
        gpus_per_replica.push_back(spec.gpu_count());
      }
      if (absl::Status status = resources_.Enqueue(resource_key, gpus_per_replica); !status.ok()) {
        spdlog::error("job={} trial={} cannot queue for GPUs: {}", job_id, trial.id(),
                      status.ToString());
      }
    }
  }

  int active = static_cast<int>(running.size());
  std::string shortfall;
  absl::Status started = StartTrials(job, *study, running, runs, active, shortfall);
  if (!started.ok()) {
    spdlog::error("job={} cannot get suggestions: {}", job_id, started.ToString());
    if (active == 0) {
      return FinishJob(job, v1::Job::FAILED,
                       absl::StrCat("the suggestion engine failed: ", started.message()), spec,
                       *trials);
    }
    return absl::OkStatus();
  }
  if (active > 0 || !settled) return absl::OkStatus();

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

bool JobController::UsesGangs(const v1::Job& job) const {
  if (backend_.AllocatesGpus()) return false;
  for (const v1::ReplicaSpec& spec : ReplicaSpecsOf(job)) {
    if (spec.gpu_count() > 0) return true;
  }
  return false;
}

absl::Status JobController::StartTrials(const v1::Job& job, const v1::Study& study,
                                        const std::vector<v1::Trial>& running,
                                        const std::map<int64_t, v1::TrialRun>& runs, int& active,
                                        std::string& shortfall) {
  const std::string& job_id = job.job_id();
  if (!UsesGangs(job)) {
    const int free_slots = study.spec().max_parallel_trials() - active;
    if (free_slots <= 0) return absl::OkStatus();
    absl::StatusOr<SuggestResult> suggested =
        studies_.SuggestTrials(job.study_name(), free_slots, "");
    if (!suggested.ok()) return suggested.status();
    shortfall = suggested->reason;
    for (const v1::Trial& trial : suggested->trials) {
      if (absl::Status status = LaunchTrial(job, study, trial, 0); !status.ok()) return status;
      ++active;
    }
    return absl::OkStatus();
  }

  // Each free slot queues a gang for the job's replica shape; only a granted
  // gang gets a suggestion, so no trial is handed out that cannot start.
  const std::string pending_prefix = PendingPrefix(job_id);
  const int pending = resources_.CountGangs(pending_prefix);
  active += pending;
  std::vector<int> gpus_per_replica;
  for (const v1::ReplicaSpec& spec : ReplicaSpecsOf(job)) {
    gpus_per_replica.push_back(spec.gpu_count());
  }
  bool exhausted;
  {
    absl::MutexLock lock(&mutex_);
    exhausted = exhausted_jobs_.contains(job_id);
  }
  for (int slot = active; !exhausted && slot < study.spec().max_parallel_trials(); ++slot) {
    int64_t gang;
    {
      absl::MutexLock lock(&mutex_);
      gang = ++next_gang_;
    }
    if (absl::Status status =
            resources_.Enqueue(absl::StrCat(pending_prefix, gang), gpus_per_replica);
        !status.ok()) {
      spdlog::error("job={} cannot queue for GPUs: {}", job_id, status.ToString());
      break;
    }
    ++active;
  }
  resources_.Schedule();
  for (const std::string& key : resources_.TakeGranted(absl::StrCat(job_id, "/"))) {
    if (key.rfind(pending_prefix, 0) != 0) {
      // A trial that was handed out before a restart and waited for GPUs.
      const int64_t trial_id = std::stoll(key.substr(job_id.size() + 1));
      auto trial = std::find_if(running.begin(), running.end(),
                                [&](const v1::Trial& t) { return t.id() == trial_id; });
      if (trial == running.end() || runs.contains(trial_id)) {
        resources_.Release(key);
        continue;
      }
      if (absl::Status status = LaunchTrial(job, study, *trial, 0); !status.ok()) return status;
      continue;
    }
    absl::StatusOr<SuggestResult> suggested = studies_.SuggestTrials(job.study_name(), 1, "");
    if (!suggested.ok() || suggested->trials.empty()) {
      resources_.Release(key);
      --active;
      if (!suggested.ok()) return suggested.status();
      shortfall = suggested->reason;
      absl::MutexLock lock(&mutex_);
      exhausted_jobs_.insert(job_id);
      continue;
    }
    const v1::Trial& trial = suggested->trials.front();
    if (absl::Status status = resources_.Rename(key, ResourceKey(job_id, trial.id()));
        !status.ok()) {
      return status;
    }
    spdlog::info("job={} trial={} granted GPUs after waiting", job_id, trial.id());
    if (absl::Status status = LaunchTrial(job, study, trial, 0); !status.ok()) return status;
  }
  return absl::OkStatus();
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
    const auto key = std::make_pair(job.job_id(), trial.id());
    {
      absl::MutexLock lock(&mutex_);
      if (restarting_.contains(key)) continue;
    }
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

    // A worker, parameter server or evaluator that fails fails the trial; one
    // that exits 0 before the master is fine.
    std::string failure;
    bool cancelling;
    {
      absl::MutexLock lock(&mutex_);
      cancelling = cancelling_.contains(key);
      auto reported = replica_failures_.find(key);
      if (reported != replica_failures_.end()) failure = reported->second;
    }
    if (cancelling) continue;
    for (const v1::ReplicaStatus& replica : run->second.replicas()) {
      if (!failure.empty() || trial.state() != v1::Trial::ACTIVE || IsMaster(replica.role())) {
        continue;
      }
      const std::string name = ReplicaName(replica.role(), replica.index());
      if (replica.state() == v1::ReplicaStatus::LOST) {
        // Started by an earlier server, its exit status is unknown: a
        // failure only if its agent sends no report and the master still
        // runs a while later.
        const auto lost_key = std::make_pair(absl::StrCat(job.job_id(), "#", name), trial.id());
        absl::MutexLock lock(&mutex_);
        auto [since, inserted] = exited_since_.emplace(lost_key, now);
        if (now - since->second >= options_.lost_replica_timeout) {
          exited_since_.erase(since);
          failure = absl::StrFormat("%s vanished; see %s", name, replica.log_path());
        }
      } else if (replica.state() == v1::ReplicaStatus::EXITED &&
                 (replica.exit_code() != 0 || replica.term_signal() != 0)) {
        failure = absl::StrFormat("%s; see %s",
                                  ExitDescription(name, replica.exit_code(), replica.term_signal()),
                                  replica.log_path());
      }
    }
    if (!failure.empty()) {
      HandleReplicaFailure(job, trial, run->second, failure);
      continue;
    }

    const v1::ReplicaStatus* master = MasterOf(run->second);
    const bool gone = scheduler::ReplicaEnded(*master);
    {
      absl::MutexLock lock(&mutex_);
      if (!gone) {
        exited_since_.erase(key);
        continue;
      }
      // The agent reports the outcome before it exits; give a report in
      // flight a moment before declaring the replica lost.
      auto [since, inserted] = exited_since_.emplace(key, now);
      if (now - since->second < options_.lost_replica_timeout) continue;
      exited_since_.erase(since);
    }
    const std::string what =
        master->state() == v1::ReplicaStatus::LOST
            ? absl::StrFormat("%s vanished", ReplicaName(master->role(), master->index()))
            : ExitDescription(ReplicaName(master->role(), master->index()), master->exit_code(),
                              master->term_signal());
    HandleReplicaFailure(job, trial, run->second,
                         absl::StrFormat("%s without its agent reporting the outcome; see %s", what,
                                         master->log_path()));
  }
  return absl::OkStatus();
}

void JobController::HandleReplicaFailure(const v1::Job& job, v1::Trial& trial,
                                         const v1::TrialRun& run, const std::string& reason) {
  const auto key = std::make_pair(job.job_id(), trial.id());
  const int max_retries = job.training_input().scheduling().max_retries();
  const bool retry = run.attempt() < max_retries;
  if (retry) {
    spdlog::warn(
        "job={} trial={} attempt {} failed: {}; ending its replicas and relaunching them all "
        "with the same job dir (retry {} of {})",
        job.job_id(), trial.id(), run.attempt(), reason, run.attempt() + 1, max_retries);
  }
  {
    absl::MutexLock lock(&mutex_);
    replica_failures_.erase(key);
    if (retry) {
      // The trial keeps its GPUs and ports for the next attempt.
      restarting_[key] = false;
      cancelling_.insert(key);
      cancellers_.emplace_back([this, key, run] {
        if (absl::Status status = backend_.Cancel(run, options_.launch.grace_period);
            !status.ok()) {
          spdlog::error("job={} trial={} cannot end attempt {}: {}", key.first, key.second,
                        run.attempt(), status.ToString());
        }
        RecordEndedRun(key.first, run);
        absl::MutexLock lock(&mutex_);
        restarting_[key] = true;
        cancelling_.erase(key);
      });
      return;
    }
  }
  absl::StatusOr<v1::Trial> failed = studies_.FailTrial(
      job.study_name(), trial.id(),
      max_retries > 0 ? absl::StrFormat("%s (after %d retries)", reason, max_retries) : reason);
  // Its other replicas are ended by SettleEndedTrials.
  if (failed.ok()) trial = *failed;
}

void JobController::RecordEndedRun(const std::string& job_id, const v1::TrialRun& run) {
  absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
  if (!described.ok()) {
    spdlog::warn("job={} trial={} cannot describe its ended run: {}", job_id, run.trial_id(),
                 described.status().ToString());
    return;
  }
  if (absl::Status status = storage_.PutTrialRun(job_id, *described); !status.ok()) {
    spdlog::error("job={} trial={} cannot store its ended run: {}", job_id, run.trial_id(),
                  status.ToString());
  }
}

bool JobController::SettleEndedTrials(const v1::Job& job, const std::vector<v1::Trial>& trials,
                                      std::map<int64_t, v1::TrialRun>& runs) {
  bool settled = true;
  for (const v1::Trial& trial : trials) {
    if (IsRunning(trial.state())) continue;
    const std::string resource_key = ResourceKey(job.job_id(), trial.id());
    const auto key = std::make_pair(job.job_id(), trial.id());
    {
      absl::MutexLock lock(&mutex_);
      replica_failures_.erase(key);
      if (cancelling_.contains(key)) {
        settled = false;
        continue;
      }
    }
    auto run = runs.find(trial.id());
    if (run == runs.end() || !HasLiveReplica(run->second)) {
      resources_.Release(resource_key);
      continue;
    }
    absl::StatusOr<v1::TrialRun> described = backend_.Describe(run->second);
    if (!described.ok()) {
      spdlog::warn("job={} trial={} cannot describe its run; freeing its GPUs and ports: {}",
                   job.job_id(), trial.id(), described.status().ToString());
      resources_.Release(resource_key);
      continue;
    }
    if (!google::protobuf::util::MessageDifferencer::Equals(*described, run->second)) {
      (void)storage_.PutTrialRun(job.job_id(), *described);
      run->second = *described;
    }
    // Still PENDING after its trial ended: a backend's queue (Slurm) still
    // holds it, or its state is not known yet; the cancel settles both.
    if (!HasLiveReplica(run->second)) {
      resources_.Release(resource_key);
      continue;
    }
    // Parameter servers never exit by themselves, and workers may outlive
    // a master that ended.
    settled = false;
    CancelTrialsInBackground(job, {trial}, runs, absl::StrFormat("trial %d ended", trial.id()));
  }
  return settled;
}

void JobController::RestoreGrants(const std::vector<v1::Job>& jobs) {
  for (const v1::Job& job : jobs) {
    absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_.ListTrialRuns(job.job_id());
    if (!runs.ok()) {
      spdlog::error("job={} cannot restore its GPU and port grants: {}", job.job_id(),
                    runs.status().ToString());
      continue;
    }
    for (const v1::TrialRun& run : *runs) {
      if (!HasLiveReplica(run)) continue;
      if (absl::Status status = resources_.Restore(ResourceKey(job.job_id(), run.trial_id()), run);
          !status.ok()) {
        spdlog::error("job={} trial={} cannot restore its GPU and port grants: {}", job.job_id(),
                      run.trial_id(), status.ToString());
      }
    }
  }
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
                                        const v1::Trial& trial, int attempt) {
  const std::string resource_key = ResourceKey(job.job_id(), trial.id());
  const size_t replica_count = ReplicaSpecsOf(job).size();
  ReplicaGrants grants;
  grants.gpus = resources_.GpusOf(resource_key, replica_count);
  absl::StatusOr<std::vector<int>> ports =
      resources_.Ports(resource_key, static_cast<int>(replica_count));
  if (ports.ok()) grants.ports = *ports;
  scheduler::TrialLaunch launch = MakeLaunch(job, study, trial, attempt, grants);
  v1::TrialRun pending;
  pending.set_trial_id(trial.id());
  pending.set_trial_dir(launch.trial_dir);
  pending.set_attempt(launch.attempt);
  *pending.mutable_launch_time() = ToTimestamp(clock_());
  for (size_t i = 0; i < launch.replicas.size(); ++i) {
    const scheduler::ReplicaLaunch& replica = launch.replicas[i];
    v1::ReplicaStatus* status = pending.add_replicas();
    status->set_role(replica.role);
    status->set_index(replica.index);
    status->set_state(v1::ReplicaStatus::PENDING);
    status->set_log_path(replica.log_path);
    for (int gpu : replica.gpus) status->add_gpus(gpu);
    if (i < grants.ports.size()) status->set_port(grants.ports[i]);
  }
  // Recorded first, so a restart knows this trial was being started.
  if (absl::Status status = storage_.PutTrialRun(job.job_id(), pending); !status.ok()) {
    return status;
  }
  absl::StatusOr<v1::TrialRun> run =
      ports.ok() ? backend_.Submit(launch) : absl::StatusOr<v1::TrialRun>(ports.status());
  if (!run.ok()) {
    spdlog::error("job={} trial={} could not start: {}", job.job_id(), trial.id(),
                  run.status().ToString());
    resources_.Release(resource_key);
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
  for (int i = 0; i < run->replicas_size() && i < static_cast<int>(grants.ports.size()); ++i) {
    run->mutable_replicas(i)->set_port(grants.ports[i]);
  }
  spdlog::info("job={} trial={} attempt={} launched {} replica(s): {}", job.job_id(), trial.id(),
               attempt, launch.replicas.size(),
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
  const auto key = std::make_pair(job->job_id(), trial->id());
  const bool failed = report.exit_code() != 0 || report.term_signal() != 0;
  std::string failure = ExitDescription(name, report.exit_code(), report.term_signal());
  if (!report.log_tail().empty()) absl::StrAppend(&failure, "; last output:\n", report.log_tail());
  // A failure the loop acts on: it ends the other replicas and retries the
  // trial, or fails it.
  const auto record_failure = [&] {
    absl::MutexLock lock(&mutex_);
    replica_failures_.emplace(key, failure);
  };
  {
    absl::MutexLock lock(&mutex_);
    // The failed attempt's replicas, ended for a retry.
    if (restarting_.contains(key)) return absl::OkStatus();
  }
  if (!IsMaster(replica.role())) {
    if (failed && !report.stopped_by_request() && trial->state() == v1::Trial::ACTIVE &&
        job->state() != v1::Job::CANCELLING) {
      record_failure();
    }
    return absl::OkStatus();
  }
  if (!IsRunning(trial->state())) return absl::OkStatus();  // Decided already.

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
    if (!report.stopped_by_request() && job->training_input().scheduling().max_retries() > 0) {
      record_failure();
      return absl::OkStatus();
    }
    outcome = studies_.FailTrial(job->study_name(), trial->id(), std::move(failure));
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
      RecordEndedRun(key.first, run);
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
  resources_.ReleasePrefix(absl::StrCat(job.job_id(), "/"));
  {
    absl::MutexLock lock(&mutex_);
    exhausted_jobs_.erase(job.job_id());
  }
  if (state == v1::Job::SUCCEEDED) {
    spdlog::info("job={} SUCCEEDED with {} trials", job.job_id(), trials.size());
  } else {
    spdlog::error("job={} {}: {}", job.job_id(), v1::Job::State_Name(state), error);
  }
  return absl::OkStatus();
}

}  // namespace vernier::tuner
