#ifndef VERNIER_TUNER_JOB_CONTROLLER_H_
#define VERNIER_TUNER_JOB_CONTROLLER_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "scheduler/backend.h"
#include "scheduler/port_allocator.h"
#include "tuner/agent_liveness.h"
#include "tuner/clock.h"
#include "tuner/config/machine_type_catalog.h"
#include "tuner/replica_resources.h"
#include "tuner/storage/storage.h"
#include "tuner/study_manager.h"
#include "tuner/trial_launch_builder.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::tuner {

struct JobControllerOptions {
  LaunchSettings launch;
  std::chrono::milliseconds poll_interval{200};
  // A replica that exited without its agent reporting the outcome is
  // declared lost after this long.
  absl::Duration lost_replica_timeout = absl::Seconds(10);
  // A running replica whose agent sends nothing (no heartbeat, no report)
  // for this long fails its trial, and the trial's processes are ended;
  // zero: never. Backend-independent, unlike the lost-replica check.
  absl::Duration agent_timeout = absl::Seconds(60);
  // Jobs submitted without a job dir get DEFAULT_JOB_ROOT/JOB_ID.
  std::string default_job_root;
  // This machine's GPUs (device indexes, as CUDA_VISIBLE_DEVICES names them)
  // that the gang allocator grants to replicas; empty: none. Unused when the
  // backend allocates GPUs itself.
  std::vector<int> gpus;
  // The TCP ports replicas get for TF_CONFIG and MASTER_PORT; no two
  // running trials share one.
  scheduler::PortRange replica_ports;
  // Whether no other program uses a port; empty: PortProbe::IsFree.
  std::function<bool(int)> port_usable;
  // The machine types and scale tiers jobs may ask for; null: the built-in
  // config/machine-types.yaml.
  std::shared_ptr<const config::MachineTypeCatalog> machine_types;
};

// Runs tuning jobs: keeps max_parallel_trials trials running, launches each
// through the scheduler backend, turns agents' exit reports into trial
// outcomes, and ends the job. All state lives in the store, so a new
// controller over the same store picks up where a killed one stopped.
class JobController {
 public:
  JobController(storage::Storage& storage, StudyManager& studies, scheduler::Backend& backend,
                JobControllerOptions options, Clock clock);
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

 private:
  void Loop();
  absl::Status AdvanceJob(v1::Job job);
  absl::Status PrepareJob(const v1::Job& job);
  absl::Status ReconcileRuns(const v1::Job& job, std::vector<v1::Trial>& trials,
                             std::map<int64_t, v1::TrialRun>& runs);
  absl::Status LaunchTrial(const v1::Job& job, const v1::Study& study, const v1::Trial& trial,
                           int attempt);
  // Launches new trials into the job's free slots; with GPUs, each waits for
  // its gang to be granted before it is suggested. Adds those to `active`.
  absl::Status StartTrials(const v1::Job& job, const v1::Study& study,
                           const std::vector<v1::Trial>& running,
                           const std::map<int64_t, v1::TrialRun>& runs, int& active,
                           std::string& shortfall);
  // Whether the job's replicas need GPUs that this server grants.
  bool UsesGangs(const v1::Job& job) const;
  // A replica of a running trial failed: relaunch every replica as the next
  // attempt under maxRetries, else fail the trial.
  void HandleReplicaFailure(const v1::Job& job, v1::Trial& trial, const v1::TrialRun& run,
                            const std::string& reason);
  // Ends the replicas that outlive their trial (parameter servers, workers
  // after the master ended) and frees the GPUs and ports of trials whose
  // replicas all ended. True when none is left to end.
  bool SettleEndedTrials(const v1::Job& job, const std::vector<v1::Trial>& trials,
                         std::map<int64_t, v1::TrialRun>& runs);
  // After a restart: what stored runs hold is held again.
  void RestoreGrants(const std::vector<v1::Job>& jobs);
  // Stores the run's replicas' states once a cancel ended them.
  void RecordEndedRun(const std::string& job_id, const v1::TrialRun& run);
  // Fills in the job's defaults and checks it; the study it would get.
  absl::StatusOr<v1::Study> CheckSubmission(v1::Job& job);
  // The one place a trial's launch is built, for real launches and dry runs;
  // it decides whether replicas without GPUs must be shown none.
  scheduler::TrialLaunch MakeLaunch(const v1::Job& job, const v1::Study& study,
                                    const v1::Trial& trial, int attempt,
                                    ReplicaGrants grants) const;
  void CancelTrialsInBackground(const v1::Job& job, const std::vector<v1::Trial>& trials,
                                const std::map<int64_t, v1::TrialRun>& runs, std::string reason);
  absl::Status FinishJob(const v1::Job& job, v1::Job::State state, std::string error,
                         const v1::StudySpec& spec, const std::vector<v1::Trial>& trials);
  void JoinFinishedCancellers();
  // Fails (and ends) running trials whose agents stayed silent past
  // agent_timeout.
  void FailSilentAgents(const v1::Job& job, std::vector<v1::Trial>& trials,
                        const std::map<int64_t, v1::TrialRun>& runs);

  storage::Storage& storage_;
  StudyManager& studies_;
  scheduler::Backend& backend_;
  JobControllerOptions options_;
  Clock clock_;

  absl::Mutex mutex_;
  // When a replica was first seen gone while its trial was still running.
  std::map<std::pair<std::string, int64_t>, absl::Time> exited_since_ ABSL_GUARDED_BY(mutex_);
  // Trials whose replicas a background thread is ending.
  std::set<std::pair<std::string, int64_t>> cancelling_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::thread> cancellers_ ABSL_GUARDED_BY(mutex_);
  // Trials being relaunched as their next attempt: false while the failed
  // attempt's replicas are ended, true once they are.
  std::map<std::pair<std::string, int64_t>, bool> restarting_ ABSL_GUARDED_BY(mutex_);
  // A non-master replica's (or a retried master's) reported failure, for
  // the loop to act on.
  std::map<std::pair<std::string, int64_t>, std::string> replica_failures_ ABSL_GUARDED_BY(mutex_);
  // Jobs whose study gave no trial for a granted gang: they queue no more.
  std::set<std::string> exhausted_jobs_ ABSL_GUARDED_BY(mutex_);
  int64_t next_gang_ ABSL_GUARDED_BY(mutex_) = 0;
  bool grants_restored_ = false;
  ReplicaResources resources_;
  AgentLiveness liveness_;

  absl::Mutex tick_mutex_;
  std::thread loop_;
  absl::Notification stop_;
  bool started_ = false;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_CONTROLLER_H_
