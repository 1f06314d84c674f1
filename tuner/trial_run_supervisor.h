#ifndef VERNIER_TUNER_TRIAL_RUN_SUPERVISOR_H_
#define VERNIER_TUNER_TRIAL_RUN_SUPERVISOR_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/admission.h"
#include "scheduler/backend.h"
#include "tuner/agent_credentials.h"
#include "tuner/agent_liveness.h"
#include "tuner/clock.h"
#include "tuner/storage/storage.h"
#include "tuner/study_manager.h"
#include "tuner/trial_attempt.h"
#include "tuner/trial_launch_builder.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

struct TrialRunSupervisorOptions {
  LaunchSettings launch;
  // A replica that exited without its agent reporting the outcome is
  // declared lost after this long.
  absl::Duration lost_replica_timeout = absl::Seconds(10);
  // A running replica whose agent sends nothing (no heartbeat, no report)
  // for this long fails its trial, and the trial's processes are ended;
  // zero: never. Backend-independent, unlike the lost-replica check.
  absl::Duration agent_timeout = absl::Seconds(60);
  // How long the store may stay away (transient errors,
  // storage::IsTransientStoreError) before what waits for it may fail: until
  // then jobs and trials wait and retry (`vernier serve
  // --store-outage-limit`). Time the store was away never counts towards
  // lost_replica_timeout or agent_timeout: agents cannot report meanwhile.
  absl::Duration store_outage_limit = absl::Minutes(10);
  // How long the backend's controller (slurmctld) may stay unreachable
  // (transient errors, scheduler::IsTransientBackendError) before a trial
  // that cannot be submitted fails and a cancel gives up (`vernier serve
  // --slurm-outage-limit`). Until then launches wait and retry at each pass,
  // cancels retry, and ended trials stay unsettled; describing a running
  // trial never fails it.
  absl::Duration slurm_outage_limit = absl::Minutes(10);
};

// A job's stored runs, by trial id.
using TrialRuns = std::map<int64_t, v1::TrialRun>;

// What StartTrials started.
struct StartedTrials {
  // Trials suggested and launched.
  int launched = 0;
  // Why the study gave fewer trials than there were granted gangs; empty
  // otherwise.
  std::string shortfall;
};

// Runs the trials of jobs, one TrialAttempt each: asks the admission for a
// trial's gang and launches it through the backend once granted, refreshes
// its run from the backend, turns replica exits (agents' reports, or
// replicas found gone or lost) into the trial's outcome or its next attempt
// under maxRetries, fails trials whose agents went silent, ends the replicas
// of cancelled or ended trials in the background, and gives a trial's grant
// back once nothing of it runs. The JobController decides how many trials a
// job runs and when it ends; this decides what happens to each.
class TrialRunSupervisor {
 public:
  TrialRunSupervisor(storage::Storage& storage, StudyManager& studies, scheduler::Backend& backend,
                     scheduler::Admission& admission, TrialRunSupervisorOptions options,
                     Clock clock);
  // Waits for the replicas being ended in the background.
  ~TrialRunSupervisor();

  // Where launched agents report (host:port).
  void set_server_address(std::string address);
  const LaunchSettings& launch_settings() const { return options_.launch; }
  // Waits for the replicas being ended in the background.
  void Stop();
  // A launch waiting for the store to record its run stops waiting (the
  // server is stopping).
  void Interrupt() { interrupted_ = true; }

  // After a restart: what the jobs' stored runs that still run, or may run
  // (stored without a backend handle, see AwaitsItsAgents), hold is held
  // again, each under its trial's attempt.
  void RestoreGrants(const std::vector<v1::Job>& jobs);

  // One pass over a job's trials: refreshes running trials' runs from the
  // backend (stored when they changed); a replica that failed, or a master
  // gone for lost_replica_timeout without its agent reporting, fails the
  // trial or starts its next attempt; running trials whose agents stayed
  // silent past agent_timeout fail and are ended; replicas that outlive
  // their trial are ended, and trials of which nothing runs give their
  // grant back. Updates `trials` and `runs` as it goes (a run recorded but
  // never submitted leaves `runs`). True when nothing is left to end.
  absl::StatusOr<bool> Supervise(const v1::Job& job, std::vector<v1::Trial>& trials,
                                 TrialRuns& runs);
  // Ends the replicas of `trials` in the background, then fails them with
  // `reason` (a trial without a run at once).
  void CancelTrials(const v1::Job& job, const std::vector<v1::Trial>& trials, const TrialRuns& runs,
                    const std::string& reason);
  // Starts the next attempt of running trials whose failed attempt has
  // ended, and trials handed out but never started (the server died in
  // between), each once its gang is granted.
  absl::Status ResumeTrials(const v1::Job& job, const v1::Study& study,
                            const std::vector<v1::Trial>& running, const TrialRuns& runs);
  // Gangs the job waits for before their trials are suggested.
  int WaitingGangs(const std::string& job_id);
  // Requests `slots` more gangs of the job's replica shape (none once its
  // study ran out of trials, unless granted at once), then suggests and
  // launches one trial per granted gang, so that no trial is handed out
  // that cannot start.
  absl::Status StartTrials(const v1::Job& job, const v1::Study& study,
                           const std::vector<v1::Trial>& running, const TrialRuns& runs, int slots,
                           StartedTrials& started);
  // Drops the gangs the job waits for (it is being cancelled).
  void DropWaitingGangs(const std::string& job_id);
  // The job ended: gives back everything its trials hold and forgets them.
  void ForgetJob(const std::string& job_id);

  // Whether `report` comes from a replica of its trial's current attempt:
  // NOT_FOUND naming what is missing when the job, the trial's run or the
  // replica does not exist (a worker-7 of a master-only job);
  // FAILED_PRECONDITION for an attempt that is not the current one.
  absl::Status CheckReport(const v1::ReportExitRequest& report);
  // An agent reported its replica's exit: the trial's outcome for a master
  // (SUCCEEDED with its last objective measurement, else FAILED), or a
  // failure for the next pass to act on (a worker's, or one to be retried).
  absl::Status OnReplicaExit(const v1::ReportExitRequest& report);
  // Any call from a replica's agent: it is alive.
  void OnAgentContact(const v1::ReplicaId& replica);

  // Where the trial's attempt stands; nullopt when nothing is kept about it.
  std::optional<TrialAttemptState> AttemptState(const TrialKey& key);

 private:
  // A trial's replicas' shape, for the admission.
  static std::vector<int> GangShape(const v1::Job& job);
  // Whose GPUs a gang of `job` counts as (its owner's, its own).
  static scheduler::GangOwner GangOwnerOf(const v1::Job& job);
  absl::Status ReconcileRuns(const v1::Job& job, std::vector<v1::Trial>& trials, TrialRuns& runs);
  void FailSilentAgents(const v1::Job& job, std::vector<v1::Trial>& trials, const TrialRuns& runs);
  // Whether a run stored without a backend handle, by a launch this server
  // is not making, stays the trial's run (true) or leaves `runs` so that the
  // trial is launched again (false). Such a run's server stopped or died
  // between storing it and storing its handle, before or after submitting
  // it: its replicas may run. When the backend finds what was submitted
  // for it (Backend::FindSubmitted), it is taken over (TakeOverSubmitted)
  // and runs as any other; while the backend cannot look, it is kept.
  // Otherwise its replicas are given the agent timeout from its launch to
  // be heard. Once one is, the trial runs on its agents' reports (its
  // processes cannot be described or ended without the handle) and fails
  // if they fall silent for the agent timeout, or if another replica's
  // agent is still unheard the agent timeout after the launch (that one
  // never started). A run none of whose agents is heard within it never
  // started. Its replicas whose agents were heard are stored RUNNING; once
  // its trial ends, those that reported no exit are stored LOST.
  bool AwaitsItsAgents(const v1::Job& job, v1::Trial& trial, v1::TrialRun& run, absl::Time now,
                       absl::Time reachable_since);
  // `run`, just submitted, could not be stored (the job's lease lost, or
  // the store away past --store-outage-limit). When the trial's stored run
  // is another launch's (the server now driving the job launched it again
  // while this one was stopped), ends `run`'s replicas; otherwise leaves
  // them to whoever drives the job next (TakeOverSubmitted).
  void EndIfLaunchedAgain(const std::string& job_id, const v1::TrialRun& run);
  // Stores the handle (and the replicas' processes) of `submitted`, what the
  // backend found submitted for `run`, a run without its handle, into the
  // stored run, and makes `run` that.
  void TakeOverSubmitted(const v1::Job& job, const v1::Trial& trial, v1::TrialRun& run,
                         const v1::TrialRun& submitted);
  // A replica of a run without its backend handle (one AwaitsItsAgents
  // keeps), or of one taken over since, reported its exit: the stored run
  // says so (nothing else describes it; the backend, not its processes'
  // parent, would only see them gone).
  void RecordExitWithoutHandle(const std::string& job_id, const v1::ReportExitRequest& report,
                               bool taken_over);
  // The trial's run as stored; nullopt when it has none.
  absl::StatusOr<std::optional<v1::TrialRun>> StoredRun(const std::string& job_id,
                                                        int64_t trial_id);
  // The trial's run as stored now, when it is one without its handle that
  // may run (its replicas PENDING or RUNNING), or, with `taken_over`, any
  // run with such a replica; nullopt otherwise or when the store cannot say.
  std::optional<v1::TrialRun> StoredRunWithoutHandle(const std::string& job_id, int64_t trial_id,
                                                     bool taken_over = false);
  bool SettleEndedTrials(const v1::Job& job, const std::vector<v1::Trial>& trials, TrialRuns& runs);
  // A replica of a running trial failed: relaunch every replica as the next
  // attempt under maxRetries, else fail the trial.
  void HandleReplicaFailure(const v1::Job& job, v1::Trial& trial, const v1::TrialRun& run,
                            const std::string& reason);
  // Launches `attempt` of the trial with what its granted gang holds.
  absl::Status LaunchTrial(const v1::Job& job, const v1::Study& study, const v1::Trial& trial,
                           int attempt, scheduler::GangTicket ticket);
  // Launches the trial's waiting attempt when its gang is granted, after
  // requesting one if it has none.
  absl::Status LaunchWhenGranted(const v1::Job& job, const v1::Study& study,
                                 const v1::Trial& trial);
  // Stores a launched run, waiting while the store is away (up to
  // store_outage_limit): a run whose backend handle is not stored would be
  // launched again.
  absl::Status StoreLaunchedRun(const std::string& job_id, const v1::TrialRun& run);
  // Whether `status` is the backend's controller away (a transient error)
  // for less than slurm_outage_limit so far: what failed waits and retries.
  bool WaitsForBackend(const absl::Status& status) const;
  // backend_.Cancel, retried while WaitsForBackend (and the server is not
  // stopping).
  absl::Status CancelRun(const v1::TrialRun& run);
  // When agents could last reach the store through this server: now while it
  // is away, else when its last outage ended.
  absl::Time StoreReachableSince(absl::Time now);
  // `now` while the backend's controller is away, else when its last outage
  // ended.
  absl::Time BackendReachableSince(absl::Time now) const;
  // Stores the run's replicas' states once a cancel ended them.
  void RecordEndedRun(const std::string& job_id, const v1::TrialRun& run);
  // Gives back the trial's grant and forgets its attempt.
  void ReleaseAttempt(const TrialKey& key);
  void JoinFinishedCancellers();

  storage::Storage& storage_;
  StudyManager& studies_;
  scheduler::Backend& backend_;
  scheduler::Admission& admission_;
  TrialRunSupervisorOptions options_;
  Clock clock_;
  AgentLiveness liveness_;
  AgentCredentials agent_credentials_;

  absl::Mutex mutex_;
  std::map<TrialKey, TrialAttempt> attempts_ ABSL_GUARDED_BY(mutex_);
  // The trials whose run without a handle AwaitsItsAgents keeps (or
  // RestoreGrants found), and what its log has said of them; only their
  // exit reports are written into their runs.
  // kTakenOver: what was submitted for it was found (TakeOverSubmitted);
  // its agents' exit reports are still written into it.
  enum class AwaitedRun { kNotLogged, kWaiting, kHeard, kTakenOver };
  std::map<TrialKey, AwaitedRun> awaited_runs_ ABSL_GUARDED_BY(mutex_);
  // Each job's gangs that wait (or were granted) before a trial is
  // suggested for them, oldest first.
  std::map<std::string, std::vector<scheduler::GangTicket>, std::less<>> waiting_gangs_
      ABSL_GUARDED_BY(mutex_);
  // Jobs whose study gave no trial for a granted gang: they queue no more.
  std::set<std::string, std::less<>> exhausted_jobs_ ABSL_GUARDED_BY(mutex_);
  // Threads ending replicas (a cancel, or a failed attempt before a retry).
  std::vector<std::thread> cancellers_ ABSL_GUARDED_BY(mutex_);
  std::atomic<bool> interrupted_{false};
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRIAL_RUN_SUPERVISOR_H_
