#include "tuner/job_controller.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <set>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "tuner/packaged_trainer.h"
#include "tuner/replica_environment.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/transient_error.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"
#include "tuner/training_output_builder.h"

namespace vernier::tuner {
namespace {

// How long a packaged trainer's packages may take to install.
constexpr std::chrono::minutes kPackageInstallTimeout{10};

constexpr v1::Job::State kUnfinishedStates[] = {v1::Job::QUEUED, v1::Job::PREPARING,
                                                v1::Job::RUNNING, v1::Job::CANCELLING};

absl::StatusOr<std::vector<v1::Trial>> AllTrials(storage::Storage& storage,
                                                 std::string_view study_name) {
  VERNIER_ASSIGN_OR_RETURN(storage::Page<v1::Trial> page, storage.ListTrials(study_name, {}));
  return std::move(page.items);
}

}  // namespace

JobController::JobController(storage::Storage& storage, StudyManager& studies,
                             scheduler::Backend& backend, scheduler::Admission& admission,
                             JobControllerOptions options, Clock clock)
    : storage_(storage),
      studies_(studies),
      options_(std::move(options)),
      clock_(std::move(clock)),
      submission_(storage, studies, backend, admission, options_.submission, clock_),
      supervisor_(storage, studies, backend, admission, options_.trials, clock_),
      leases_(storage, options_.server_id, options_.lease_ttl, clock_),
      backend_(backend),
      admission_(admission) {}

JobController::~JobController() { Stop(); }

void JobController::Start(std::string server_address) {
  agent_address_ = server_address;
  supervisor_.set_server_address(std::move(server_address));
  started_ = true;
  loop_ = std::thread([this] { Loop(); });
}

void JobController::Stop() {
  if (started_) {
    started_ = false;
    stop_.Notify();
    // A pass waiting for the store gives up now.
    supervisor_.Interrupt();
    if (loop_.joinable()) loop_.join();
    supervisor_.Stop();
  }
  // Installs still running are killed (the futures wait for that); the job
  // stays PREPARING and installs again on the next server.
  cancel_installs_ = true;
  std::map<std::string, std::future<absl::Status>> installs;
  {
    absl::MutexLock lock(&installs_mutex_);
    installs.swap(installs_);
  }
  installs.clear();
  cancel_installs_ = false;
  // The trials keep running; another server (or this one restarted) takes
  // them up at once.
  leases_.ReleaseAll();
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
    LogPassFailure("job controller cannot list jobs", jobs.status());
    return;
  }
  {
    absl::MutexLock lock(&last_known_mutex_);
    last_known_jobs_.clear();
    for (const v1::Job& job : *jobs) last_known_jobs_[job.job_id()] = job;
  }
  for (v1::Job& job : TakeLeases(*std::move(jobs))) {
    const std::string job_id = job.job_id();
    std::optional<storage::WriteFence> fence = leases_.FenceOf(job_id);
    if (!fence.has_value()) continue;
    // Every write about the job from here on carries the lease's token.
    storage::ScopedWriteFence fenced(*std::move(fence));
    ActOnQueuedExits(job_id);
    if (absl::Status status = AdvanceJob(std::move(job)); !status.ok()) {
      LogPassFailure(absl::StrFormat("job=%s cannot advance", job_id), status);
    }
  }
}

std::vector<v1::Job> JobController::TakeLeases(std::vector<v1::Job> jobs) {
  const absl::Time now = clock_();
  if (!agent_address_.empty() && now - server_recorded_at_ >= options_.lease_ttl / 4) {
    // Agents get every live server, this one first: when it goes, they
    // report to the next.
    if (absl::Status status =
            storage_.RecordServer(options_.server_id, agent_address_, options_.lease_ttl);
        !status.ok()) {
      LogPassFailure(absl::StrFormat("server %s cannot record itself as alive", options_.server_id),
                     status);
    } else if (absl::StatusOr<std::vector<std::string>> live = storage_.ListLiveServerAddresses();
               live.ok()) {
      std::vector<std::string> addresses = {agent_address_};
      for (std::string& address : *live) {
        if (address != agent_address_) addresses.push_back(std::move(address));
      }
      supervisor_.set_server_address(absl::StrJoin(addresses, ","));
      server_recorded_at_ = now;
    }
  }
  std::vector<std::string> job_ids;
  for (const v1::Job& job : jobs) job_ids.push_back(job.job_id());
  const JobLeaseKeeper::Changes changes = leases_.Renew(job_ids);
  for (const std::string& job_id : changes.lost) {
    if (storage_.outage().Since().has_value()) {
      // Its trials keep running; whichever server takes the lease once the
      // store is back (this one, or another) goes on with them, and the
      // lease's fencing token keeps this one from writing meanwhile.
      spdlog::warn(
          "job={} server {} could not renew its lease while the store is away and stops "
          "driving the job until it holds the lease again; its trials keep running",
          job_id, options_.server_id);
    } else {
      spdlog::warn("job={} is driven by another server now; server {} lets it go", job_id,
                   options_.server_id);
    }
    supervisor_.ForgetJob(job_id);
  }
  std::vector<v1::Job> gained;
  for (const std::string& job_id : changes.gained) {
    // Read again: another server may have changed it since the list.
    absl::StatusOr<v1::Job> job = storage_.GetJob(job_id);
    if (!job.ok()) continue;
    std::optional<storage::WriteFence> fence = leases_.FenceOf(job_id);
    spdlog::info("job={} is driven by server {} (lease token {})", job_id, options_.server_id,
                 fence.has_value() ? fence->token : 0);
    for (v1::Job& listed : jobs) {
      if (listed.job_id() == job_id) listed = *job;
    }
    gained.push_back(*std::move(job));
  }
  // What their running trials hold (GPUs, ports) is this server's now.
  supervisor_.RestoreGrants(gained);
  std::vector<v1::Job> driven;
  for (v1::Job& job : jobs) {
    if (leases_.FenceOf(job.job_id()).has_value()) driven.push_back(std::move(job));
  }
  return driven;
}

void JobController::ActOnQueuedExits(const std::string& job_id) {
  absl::StatusOr<std::vector<v1::ReportExitRequest>> reports = storage_.TakeReplicaExits(job_id);
  if (!reports.ok()) {
    LogPassFailure(
        absl::StrFormat("job=%s cannot read the exit reports other servers kept", job_id),
        reports.status());
    return;
  }
  for (const v1::ReportExitRequest& report : *reports) {
    if (absl::Status status = supervisor_.OnReplicaExit(report); !status.ok()) {
      spdlog::warn("job={} trial={} the exit report of {}-{} another server kept: {}", job_id,
                   report.replica().trial_id(), report.replica().role(), report.replica().index(),
                   status.ToString());
    }
  }
}

absl::StatusOr<v1::Job> JobController::SubmitJob(v1::Job job) {
  return submission_.Submit(std::move(job));
}

absl::StatusOr<v1::Job> JobController::PreviewJob(v1::Job job) {
  return submission_.Preview(std::move(job), supervisor_.launch_settings());
}

absl::StatusOr<v1::GetJobResponse> JobController::GetJob(std::string_view job_id) {
  // While the store is away an unfinished job is answered at once, as the
  // last pass read it, rather than after the store's own retries.
  if (storage_.outage().Since().has_value()) {
    absl::StatusOr<v1::GetJobResponse> known = LastKnownJob(
        job_id, storage::MarkTransient(absl::UnavailableError("the store is unavailable")));
    if (known.ok()) return known;
  }
  absl::StatusOr<v1::Job> stored = storage_.GetJob(job_id);
  if (!stored.ok()) return LastKnownJob(job_id, stored.status());
  v1::Job job = *std::move(stored);
  v1::GetJobResponse response;
  absl::StatusOr<v1::Study> study = storage_.GetStudy(job.study_name());
  if (storage::IsTransientStoreError(study.status())) return LastKnownJob(job_id, study.status());
  if (study.ok()) {
    absl::StatusOr<std::vector<v1::Trial>> trials = AllTrials(storage_, job.study_name());
    if (!trials.ok()) return LastKnownJob(job_id, trials.status());
    *job.mutable_training_output() = BuildTrainingOutput(study->spec(), *trials);
    *response.mutable_trial_counts() = CountTrialStates(*trials);
  }
  absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_.ListTrialRuns(job_id);
  if (!runs.ok()) return LastKnownJob(job_id, runs.status());
  for (v1::TrialRun& run : *runs) *response.add_trial_runs() = std::move(run);
  // Reads may pass while writes fail (a full disk): the job waits all the
  // same.
  const std::optional<absl::Time> waiting = storage_.outage().Since();
  if (waiting.has_value() && !job.has_end_time()) {
    *job.mutable_waiting_for_store_since() = ToTimestamp(*waiting);
  }
  MarkWaitingForSlurm(job);
  MarkWaitingForGpus(job);
  *response.mutable_job() = std::move(job);
  return response;
}

absl::StatusOr<v1::GetJobResponse> JobController::LastKnownJob(std::string_view job_id,
                                                               const absl::Status& error) {
  if (!storage::IsTransientStoreError(error)) return error;
  const std::optional<absl::Time> waiting = storage_.outage().Since();
  v1::GetJobResponse response;
  {
    absl::MutexLock lock(&last_known_mutex_);
    auto known = last_known_jobs_.find(job_id);
    if (known == last_known_jobs_.end() || !waiting.has_value()) return error;
    *response.mutable_job() = known->second;
  }
  *response.mutable_job()->mutable_waiting_for_store_since() = ToTimestamp(*waiting);
  MarkWaitingForSlurm(*response.mutable_job());
  MarkWaitingForGpus(*response.mutable_job());
  return response;
}

void JobController::MarkWaitingForGpus(v1::Job& job) {
  if (job.has_end_time()) return;
  const std::optional<scheduler::GangWait> waiting = admission_.Waiting(job.job_id());
  if (!waiting.has_value()) return;
  job.set_waiting_for_gpus(waiting->reason);
  job.set_gpu_queue_position(waiting->position);
}

void JobController::MarkWaitingForSlurm(v1::Job& job) {
  const std::optional<absl::Time> since = backend_.UnreachableSince();
  if (since.has_value() && !job.has_end_time()) {
    *job.mutable_waiting_for_slurm_since() = ToTimestamp(*since);
  }
}

absl::StatusOr<storage::Page<v1::Job>> JobController::ListJobs(int page_size,
                                                               std::string_view page_token) {
  VERNIER_ASSIGN_OR_RETURN(storage::Page<v1::Job> page, storage_.ListJobs(page_size, page_token));
  for (v1::Job& job : page.items) {
    // A job's stored output is written when it ends; before that (and for
    // jobs stored before counts were) its counts come from the store, one
    // aggregate query per job, never every trial.
    if (job.has_end_time() && job.training_output().has_trial_counts()) continue;
    absl::StatusOr<v1::Study> study = storage_.GetStudy(job.study_name());
    if (!study.ok()) continue;
    VERNIER_ASSIGN_OR_RETURN(const auto by_state, storage_.CountTrials(job.study_name()));
    v1::TrainingOutput& output = *job.mutable_training_output();
    *output.mutable_trial_counts() = CountTrialStates(by_state);
    const int64_t ended = EndedTrials(output.trial_counts());
    // A resumed job's study holds its own maxTrials plus the copies.
    int64_t resumed = 0;
    if (!job.training_input().hyperparameters().resume_previous_job_id().empty()) {
      resumed = std::clamp<int64_t>(
          study->spec().max_trials() - job.training_input().hyperparameters().max_trials(), 0,
          ended);
    }
    output.set_resumed_trial_count(resumed);
    output.set_completed_trial_count(ended - resumed);
  }
  return page;
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

namespace {

// Removes the replica logs of the runs (JOB_DIR/TRIAL/logs/ROLE-INDEX.log),
// then each logs/ folder, trial folder and the job folder that this left
// empty; anything a trainer wrote stays. What cannot be removed is logged.
void RemoveTrialLogs(const v1::Job& job, const std::vector<v1::TrialRun>& runs) {
  namespace fs = std::filesystem;
  std::set<fs::path> folders;
  for (const v1::TrialRun& run : runs) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.log_path().empty()) continue;
      const fs::path log = replica.log_path();
      std::error_code error;
      if (!fs::remove(log, error) && error) {
        spdlog::warn("job={} trial={} cannot remove log {}: {}", job.job_id(), run.trial_id(),
                     log.string(), error.message());
      }
      folders.insert(log.parent_path());
      folders.insert(log.parent_path().parent_path());
    }
  }
  if (!job.job_dir().empty()) folders.insert(fs::path(job.job_dir()));
  // Deepest first, so a trial folder is looked at after its logs/.
  std::vector<fs::path> ordered(folders.begin(), folders.end());
  std::sort(ordered.begin(), ordered.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  for (const fs::path& folder : ordered) {
    std::error_code error;
    if (fs::is_directory(folder, error) && fs::is_empty(folder, error)) fs::remove(folder, error);
  }
}

}  // namespace

absl::Status JobController::DeleteJob(std::string_view job_id) {
  // The runs name the logs; an ended job gains no new run.
  VERNIER_ASSIGN_OR_RETURN(const std::vector<v1::TrialRun> runs, storage_.ListTrialRuns(job_id));
  VERNIER_ASSIGN_OR_RETURN(const v1::Job job, storage_.DeleteJob(job_id));
  studies_.ForgetStudy(job.study_name());
  RemoveTrialLogs(job, runs);
  spdlog::info("job={} deleted with its study, trials and logs", job_id);
  return absl::OkStatus();
}

absl::Status JobController::OnReplicaExit(const v1::ReportExitRequest& report) {
  VERNIER_RETURN_IF_ERROR(supervisor_.CheckReport(report));
  // A job's study is named after it.
  const std::string& job_id = report.replica().study_name();
  if (std::optional<storage::WriteFence> fence = leases_.FenceOf(job_id)) {
    storage::ScopedWriteFence fenced(*std::move(fence));
    return supervisor_.OnReplicaExit(report);
  }
  spdlog::info(
      "job={} trial={} {}-{} reported its exit to server {}, which keeps it for the "
      "server that drives the job",
      job_id, report.replica().trial_id(), report.replica().role(), report.replica().index(),
      options_.server_id);
  return storage_.QueueReplicaExit(job_id, report);
}

void JobController::OnAgentContact(const v1::ReplicaId& replica) {
  supervisor_.OnAgentContact(replica);
  const std::string& job_id = replica.study_name();
  if (Drives(job_id)) return;
  // The server that drives the job learns of it through the store.
  const std::string name = absl::StrCat(replica.role(), "-", replica.index());
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&contacts_mutex_);
    absl::Time& recorded = contacts_recorded_[{job_id, replica.trial_id(), name}];
    if (now - recorded < absl::Seconds(1)) return;
    recorded = now;
    if (contacts_recorded_.size() > 10000) {
      std::erase_if(contacts_recorded_,
                    [&](const auto& entry) { return now - entry.second > absl::Minutes(1); });
    }
  }
  if (absl::Status status = storage_.RecordAgentContact(job_id, replica.trial_id(), name);
      !status.ok()) {
    spdlog::warn("job={} trial={} cannot record that {} was heard: {}", job_id, replica.trial_id(),
                 name, status.ToString());
  }
}

std::optional<absl::Status> JobController::InstallPackages(const v1::Job& job) {
  // By the job's id and create time: a job deleted and submitted again
  // under its id installs afresh.
  const std::string key =
      absl::StrCat(job.job_id(), "@", job.create_time().seconds(), ".", job.create_time().nanos());
  absl::MutexLock lock(&installs_mutex_);
  std::future<absl::Status>& install = installs_[key];
  if (!install.valid()) {
    spdlog::info("job={} installing its packages", job.job_id());
    std::map<std::string, std::string> environment =
        ReplicaEnvironment(supervisor_.launch_settings().inherited_env, job, {});
    install = std::async(std::launch::async, [job, environment = std::move(environment), this] {
      return PackagedTrainer::Install(job, environment, kPackageInstallTimeout, &cancel_installs_);
    });
    return std::nullopt;
  }
  if (install.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  const absl::Status status = install.get();
  installs_.erase(key);
  return status;
}

absl::Status JobController::AdvanceJob(v1::Job job) {
  const std::string job_id = job.job_id();
  if (job.state() == v1::Job::QUEUED || job.state() == v1::Job::PREPARING) {
    VERNIER_RETURN_IF_ERROR(submission_.PrepareResume(job));
    if (PackagedTrainer::IsPackaged(job)) {
      // Once per job, before its first trial (PREPARING meanwhile), while
      // the other jobs go on; a failure fails the job with the installer's
      // last lines.
      if (job.state() == v1::Job::QUEUED) {
        VERNIER_ASSIGN_OR_RETURN(job, storage_.UpdateJob(job_id, [](v1::Job& stored) {
          if (stored.state() == v1::Job::QUEUED) stored.set_state(v1::Job::PREPARING);
          return absl::OkStatus();
        }));
      }
      const std::optional<absl::Status> installed = InstallPackages(job);
      if (!installed.has_value()) return absl::OkStatus();
      if (!installed->ok()) {
        spdlog::warn("job={} packages not installed: {}", job_id, installed->ToString());
        return FinishJob(job, v1::Job::FAILED, std::string(installed->message()), {}, {});
      }
    }
    VERNIER_ASSIGN_OR_RETURN(job, storage_.UpdateJob(job_id, [&](v1::Job& stored) {
      if (stored.state() == v1::Job::QUEUED || stored.state() == v1::Job::PREPARING) {
        stored.set_state(v1::Job::RUNNING);
        *stored.mutable_start_time() = ToTimestamp(clock_());
      }
      return absl::OkStatus();
    }));
    spdlog::info("job={} running", job_id);
  }

  absl::StatusOr<v1::Study> study = storage_.GetStudy(job.study_name());
  if (absl::IsNotFound(study.status())) {
    return FinishJob(job, v1::Job::FAILED,
                     absl::StrFormat("the job's study \"%s\" was deleted", job.study_name()), {},
                     {});
  }
  if (!study.ok()) return study.status();
  const v1::StudySpec& spec = study->spec();
  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::Trial> trials, AllTrials(storage_, job.study_name()));
  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::TrialRun> stored_runs, storage_.ListTrialRuns(job_id));
  TrialRuns runs;
  for (v1::TrialRun& run : stored_runs) runs[run.trial_id()] = std::move(run);
  VERNIER_ASSIGN_OR_RETURN(const bool settled, supervisor_.Supervise(job, trials, runs));

  std::vector<v1::Trial> running;
  for (const v1::Trial& trial : trials) {
    if (IsRunning(trial.state())) running.push_back(trial);
  }

  if (job.state() == v1::Job::CANCELLING) {
    supervisor_.DropWaitingGangs(job_id);
    if (running.empty()) {
      if (!settled) return absl::OkStatus();
      return FinishJob(job, job.error_message().empty() ? v1::Job::CANCELLED : v1::Job::FAILED,
                       job.error_message(), spec, trials);
    }
    supervisor_.CancelTrials(job, running, runs,
                             job.error_message().empty()
                                 ? absl::StrFormat("cancelled with job %s", job_id)
                                 : absl::StrFormat("ended because job %s failed", job_id));
    return absl::OkStatus();
  }

  VERNIER_ASSIGN_OR_RETURN(const bool failing, FailOnTooManyFailures(job, spec, trials));
  if (failing) return absl::OkStatus();

  VERNIER_RETURN_IF_ERROR(supervisor_.ResumeTrials(job, *study, running, runs));

  const int active = static_cast<int>(running.size()) + supervisor_.WaitingGangs(job_id);
  StartedTrials started;
  absl::Status start = supervisor_.StartTrials(job, *study, running, runs,
                                               spec.max_parallel_trials() - active, started);
  const int now_active =
      static_cast<int>(running.size()) + started.launched + supervisor_.WaitingGangs(job_id);
  if (!start.ok()) {
    if (WaitsForStore(start)) {
      spdlog::debug("job={} waits for the store to get suggestions: {}", job_id, start.ToString());
      return absl::OkStatus();
    }
    spdlog::error("job={} cannot get suggestions: {}", job_id, start.ToString());
    if (now_active == 0) {
      return FinishJob(
          job, v1::Job::FAILED,
          storage::IsTransientStoreError(start)
              ? absl::StrCat("the store stayed unavailable for longer than --store-outage-limit (",
                             absl::FormatDuration(options_.trials.store_outage_limit),
                             "), so no trial could be suggested: ", start.message())
              : absl::StrCat("the suggestion engine failed: ", start.message()),
          spec, trials);
    }
    return absl::OkStatus();
  }
  if (now_active > 0 || !settled) return absl::OkStatus();

  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::Trial> final_trials,
                           AllTrials(storage_, job.study_name()));
  if (RankTrials(final_trials, spec, 1).empty()) {
    return FinishJob(job, v1::Job::FAILED,
                     absl::StrFormat("no trial reported the objective metric \"%s\"",
                                     spec.metrics().empty() ? "" : spec.metrics(0).metric_id()),
                     spec, final_trials);
  }
  if (!started.shortfall.empty()) {
    spdlog::info("job={} has no more trials to run: {}", job_id, started.shortfall);
  }
  return FinishJob(job, v1::Job::SUCCEEDED, "", spec, final_trials);
}

bool JobController::WaitsForStore(const absl::Status& status) {
  if (!storage::IsTransientStoreError(status)) return false;
  const std::optional<absl::Time> since = storage_.outage().Since();
  // A single failed call, the outage already over: the next pass retries.
  if (!since.has_value()) return true;
  return clock_() - *since < options_.trials.store_outage_limit;
}

void JobController::LogPassFailure(const std::string& what, const absl::Status& status) {
  if (storage::IsTransientStoreError(status)) {
    spdlog::debug("{} while the store is away: {}", what, status.ToString());
  } else {
    spdlog::error("{}: {}", what, status.ToString());
  }
}

absl::StatusOr<bool> JobController::FailOnTooManyFailures(const v1::Job& job,
                                                          const v1::StudySpec& spec,
                                                          const std::vector<v1::Trial>& trials) {
  const v1::TrialCounts counts = CountTrialStates(trials);
  if (spec.max_failed_trials() <= 0 || counts.failed() < spec.max_failed_trials()) return false;
  std::string last_failure;
  for (const v1::Trial& trial : trials) {
    if (trial.state() == v1::Trial::FAILED) {
      last_failure = absl::StrFormat("trial %d: %s", trial.id(), trial.status_reason());
    }
  }
  const std::string error =
      absl::StrFormat("%d trials failed (maxFailedTrials=%d); the last: %s", counts.failed(),
                      spec.max_failed_trials(), last_failure);
  spdlog::error("job={} failing: {}", job.job_id(), error);
  VERNIER_RETURN_IF_ERROR(storage_
                              .UpdateJob(job.job_id(),
                                         [&](v1::Job& stored) {
                                           stored.set_state(v1::Job::CANCELLING);
                                           stored.set_error_message(error);
                                           return absl::OkStatus();
                                         })
                              .status());
  return true;
}

absl::Status JobController::FinishJob(const v1::Job& job, v1::Job::State state, std::string error,
                                      const v1::StudySpec& spec,
                                      const std::vector<v1::Trial>& trials) {
  const absl::Time now = clock_();
  VERNIER_RETURN_IF_ERROR(storage_
                              .UpdateJob(job.job_id(),
                                         [&](v1::Job& stored) {
                                           stored.set_state(state);
                                           stored.set_error_message(error);
                                           *stored.mutable_end_time() = ToTimestamp(now);
                                           if (!trials.empty()) {
                                             *stored.mutable_training_output() =
                                                 BuildTrainingOutput(spec, trials);
                                           }
                                           return absl::OkStatus();
                                         })
                              .status());
  // A study is COMPLETED only when its job SUCCEEDED; a job that FAILED or
  // was CANCELLED leaves it INACTIVE (stopped short), as Vizier says.
  const v1::Study::State study_state =
      state == v1::Job::SUCCEEDED ? v1::Study::COMPLETED : v1::Study::INACTIVE;
  absl::StatusOr<v1::Study> study =
      storage_.UpdateStudy(job.study_name(), [study_state](v1::Study& stored) {
        stored.set_state(study_state);
        return absl::OkStatus();
      });
  if (!study.ok() && !absl::IsNotFound(study.status())) return study.status();
  supervisor_.ForgetJob(job.job_id());
  if (state == v1::Job::SUCCEEDED) {
    spdlog::info("job={} SUCCEEDED with {} trials", job.job_id(), trials.size());
  } else {
    spdlog::error("job={} {}: {}", job.job_id(), v1::Job::State_Name(state), error);
  }
  return absl::OkStatus();
}

}  // namespace vernier::tuner
