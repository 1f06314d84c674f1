#ifndef VERNIER_TUNER_JOB_CONTROLLER_H_
#define VERNIER_TUNER_JOB_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "scheduler/admission.h"
#include "scheduler/backend.h"
#include "tuner/clock.h"
#include "tuner/job_lease_keeper.h"
#include "tuner/job_submission.h"
#include "tuner/storage/storage.h"
#include "tuner/study_manager.h"
#include "tuner/trial_run_supervisor.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::tuner {

struct JobControllerOptions {
  std::chrono::milliseconds poll_interval{200};
  // This server among those sharing the store: unique per process.
  std::string server_id = "server";
  // How long a job's lease lasts unrenewed: a server that dies hands its
  // jobs over to another after at most this long.
  absl::Duration lease_ttl = absl::Seconds(10);
  // How trials are launched and watched.
  TrialRunSupervisorOptions trials;
  // How submitted jobs are checked.
  JobSubmissionOptions submission;
};

// Runs tuning jobs through their states: QUEUED and PREPARING (a resumed
// job gets its history) to RUNNING, where it keeps max_parallel_trials
// trials going, to SUCCEEDED, or FAILED (maxFailedTrials, no trial with a
// result, a broken designer, a deleted study), or through CANCELLING to
// CANCELLED. Its TrialRunSupervisor runs each trial; its JobSubmission
// checks and stores new jobs. All state lives in the store, so a new
// controller over the same store picks up where a killed one stopped.
//
// Several servers may share one store: each job is driven by the one server
// that holds its lease (JobLeaseKeeper), renewed every pass, and every write
// the controller makes about a job is fenced with the lease's token
// (storage::ScopedWriteFence), so a server that lost a lease changes
// nothing more of the job. Agents may talk to any server: one that does not
// drive their job records their contacts and keeps their exit reports in
// the store for the one that does. A server that dies loses its leases
// after lease_ttl, and the others take its jobs over, with their running
// trials.
class JobController {
 public:
  JobController(storage::Storage& storage, StudyManager& studies, scheduler::Backend& backend,
                scheduler::Admission& admission, JobControllerOptions options, Clock clock);
  ~JobController();

  // Starts the loop; `server_address` is where agents report.
  void Start(std::string server_address);
  void Stop();

  absl::StatusOr<v1::Job> SubmitJob(v1::Job job);
  // Checks `job` as SubmitJob does and returns it as it would be stored,
  // with launch_preview: what the backend would start for a first trial
  // (parameters from a fresh designer). Creates and starts nothing.
  absl::StatusOr<v1::Job> PreviewJob(v1::Job job);
  absl::StatusOr<v1::GetJobResponse> GetJob(std::string_view job_id);
  absl::StatusOr<storage::Page<v1::Job>> ListJobs(int page_size, std::string_view page_token);
  absl::StatusOr<v1::Job> CancelJob(std::string_view job_id);
  // Removes an ended job from the store with its study, trials and trial
  // runs (Storage::DeleteJob), then the replica logs its trials wrote
  // (JOB_DIR/TRIAL/logs/); what the trainers wrote under the job directory
  // stays. FAILED_PRECONDITION while the job has not ended.
  absl::Status DeleteJob(std::string_view job_id);
  absl::Status OnReplicaExit(const v1::ReportExitRequest& report);
  // Any call from a replica's agent: it is alive.
  void OnAgentContact(const v1::ReplicaId& replica);

  // Whether this server drives the job now.
  bool Drives(std::string_view job_id) { return leases_.FenceOf(job_id).has_value(); }

  // One pass over every unfinished job; the loop calls it, tests may too.
  void Tick();

  TrialRunSupervisor& supervisor() { return supervisor_; }

 private:
  void Loop();
  absl::Status AdvanceJob(v1::Job job);
  // Too many failed trials: the job goes CANCELLING with the reason, to
  // fail once its trials are ended. Whether it did.
  absl::StatusOr<bool> FailOnTooManyFailures(const v1::Job& job, const v1::StudySpec& spec,
                                             const std::vector<v1::Trial>& trials);
  absl::Status FinishJob(const v1::Job& job, v1::Job::State state, std::string error,
                         const v1::StudySpec& spec, const std::vector<v1::Trial>& trials);
  // Whether `status` is the store being away (a transient error) for less
  // than the store outage limit: what failed waits for the next pass.
  bool WaitsForStore(const absl::Status& status);
  // Logs a pass's failure: an error line, or a debug one while the store is
  // away (StoreOutage logs the outage once).
  void LogPassFailure(const std::string& what, const absl::Status& status);
  // The job's answer while the store is away: the job as the last pass read
  // it, saying since when it waits; `error` when this server never read it.
  absl::StatusOr<v1::GetJobResponse> LastKnownJob(std::string_view job_id,
                                                  const absl::Status& error);
  // Sets the job's waiting_for_slurm_since while the backend's controller
  // is unreachable and the job has not ended.
  void MarkWaitingForSlurm(v1::Job& job);
  // Sets the job's waiting_for_gpus and gpu_queue_position while some of
  // its trials wait in the admission's queue and the job has not ended.
  void MarkWaitingForGpus(v1::Job& job);

  // Renews the job leases and acts on what changed: jobs gained have their
  // grants restored, jobs lost are forgotten. Records this server as alive
  // and refreshes the servers agents may report to. The jobs this server
  // drives.
  std::vector<v1::Job> TakeLeases(std::vector<v1::Job> jobs);
  // Exit reports other servers kept for the job, acted on as if received.
  void ActOnQueuedExits(const std::string& job_id);
  // A packaged trainer's install (PackagedTrainer::Install), on a thread of
  // its own so that the other jobs go on meanwhile: started by the first
  // call for the job, nullopt while it runs, then its outcome, once.
  std::optional<absl::Status> InstallPackages(const v1::Job& job);

  storage::Storage& storage_;
  StudyManager& studies_;
  JobControllerOptions options_;
  Clock clock_;
  JobSubmission submission_;
  TrialRunSupervisor supervisor_;
  JobLeaseKeeper leases_;
  std::string agent_address_;
  absl::Time server_recorded_at_ = absl::InfinitePast();

  // The unfinished jobs as the last pass read them, for answers while the
  // store is away.
  absl::Mutex last_known_mutex_;
  std::map<std::string, v1::Job, std::less<>> last_known_jobs_ ABSL_GUARDED_BY(last_known_mutex_);

  // When each replica's contact was last recorded in the store for a job
  // another server drives (at most one write a second per replica).
  absl::Mutex contacts_mutex_;
  std::map<std::tuple<std::string, int64_t, std::string>, absl::Time> contacts_recorded_
      ABSL_GUARDED_BY(contacts_mutex_);

  // Set by Stop: the installs still running are killed (CANCELLED) instead
  // of waited for.
  std::atomic<bool> cancel_installs_{false};
  // The packaged trainers' installs started and not yet taken, by job id
  // and create time.
  absl::Mutex installs_mutex_;
  std::map<std::string, std::future<absl::Status>> installs_ ABSL_GUARDED_BY(installs_mutex_);

  // Only asked whether its controller is reachable (GetJob).
  scheduler::Backend& backend_;
  // Only asked where a job's waiting trials stand (GetJob).
  scheduler::Admission& admission_;
  absl::Mutex tick_mutex_;
  std::thread loop_;
  absl::Notification stop_;
  bool started_ = false;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_CONTROLLER_H_
