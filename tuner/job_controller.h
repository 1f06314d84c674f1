#ifndef VERNIER_TUNER_JOB_CONTROLLER_H_
#define VERNIER_TUNER_JOB_CONTROLLER_H_

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "scheduler/admission.h"
#include "scheduler/backend.h"
#include "tuner/clock.h"
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
  absl::Status OnReplicaExit(const v1::ReportExitRequest& report);
  // Any call from a replica's agent: it is alive.
  void OnAgentContact(const v1::ReplicaId& replica);

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

  storage::Storage& storage_;
  JobControllerOptions options_;
  Clock clock_;
  JobSubmission submission_;
  TrialRunSupervisor supervisor_;
  bool grants_restored_ = false;

  absl::Mutex tick_mutex_;
  std::thread loop_;
  absl::Notification stop_;
  bool started_ = false;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_CONTROLLER_H_
