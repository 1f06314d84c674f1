#ifndef VERNIER_SCHEDULER_SLURM_SLURM_BACKEND_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_BACKEND_H_

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/backend.h"
#include "scheduler/slurm/sbatch_script_builder.h"
#include "scheduler/slurm/slurm_commands.h"
#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

struct SlurmBackendOptions {
  SbatchOptions sbatch;
  SlurmCommandsOptions commands;
  // How long Cancel waits for the job to end after SIGKILL (Slurm may take
  // its KillWait and the node's clean-up) before it gives up with an error.
  std::chrono::milliseconds kill_wait = std::chrono::seconds(60);
  // How often Cancel looks at the job while it waits.
  std::chrono::milliseconds poll_interval = std::chrono::milliseconds(200);
  // Describe asks slurmctld about a job at most this often and answers from
  // the last answer in between (the job controller describes every running
  // trial several times a second); the replicas' exit files are read every
  // time.
  std::chrono::milliseconds describe_interval = std::chrono::seconds(1);
  // slurmctld may call a job ended (CANCELLED, TIMEOUT) while its batch
  // script is still writing the exit statuses of steps that just ended, and
  // a file written on a node may reach the server's view of the shared file
  // system a little later. For this long after Describe first sees the job
  // ended, a replica that started and has no exit file yet stays as it was;
  // after it, the replica's end is taken from the job's state.
  std::chrono::milliseconds exit_file_grace = std::chrono::seconds(5);
  // How far slurmctld's clock may be behind the server's: a job that an
  // sbatch whose answer was lost submitted is looked for among those
  // submitted since that sbatch began, less this.
  absl::Duration controller_clock_slack = absl::Minutes(1);
};

// Runs each trial as one Slurm batch job on one node (see
// BuildSbatchScript): Slurm grants the GPUs, all or nothing, so a trial that
// does not fit waits in Slurm's queue (its replicas PENDING). Everything
// Describe and Cancel need comes from Slurm, the handle (slurm:JOBID) and
// the files the batch script writes beside each replica's log (its exit
// status and GPUs), so a later server process, or one on another machine
// sharing the job directory, takes over runs an earlier one submitted.
// The job directory must be on a file system the nodes share with the
// server (logs, exit statuses).
class SlurmBackend : public Backend {
 public:
  explicit SlurmBackend(SlurmBackendOptions options = {});

  absl::StatusOr<v1::TrialRun> Submit(const TrialLaunch& launch) override;
  absl::StatusOr<v1::TrialRun> Describe(const v1::TrialRun& run) override;
  // SIGTERM to every task of every step, up to `grace` for the job to end,
  // then SIGKILL to everything and scancel; returns once Slurm says the job
  // ended (not while it is COMPLETING).
  absl::Status Cancel(const v1::TrialRun& run, std::chrono::milliseconds grace) override;
  // The batch job of `run`'s attempt (its name, comment and working
  // directory) that Slurm still knows, queued, running or recently ended,
  // submitted since the run's launch (less controller_clock_slack); the
  // newest if several are.
  absl::StatusOr<std::optional<v1::TrialRun>> FindSubmitted(const std::string& job_id,
                                                            const std::string& study_name,
                                                            const v1::TrialRun& run) override;

  // OK when one node of the partition has as many GPUs as the whole trial
  // asks for (a trial runs on one node); SlurmAdmission's capacity.
  absl::Status CheckCapacity(const std::vector<int>& gpus_per_replica);
  // The sbatch script Submit would send.
  absl::StatusOr<std::string> PreviewLaunch(const TrialLaunch& launch) const override;
  std::optional<absl::Time> UnreachableSince() const override;
  absl::Time LastOutageEnded() const override;

 private:
  // sbatch, unless an earlier sbatch of the same attempt failed transiently
  // and Slurm holds the job it submitted all the same: that job's id.
  absl::StatusOr<std::string> SubmitOnce(const TrialLaunch& launch, const std::string& script_path);
  // The job's state from scontrol, else sacct; nullopt when Slurm keeps no
  // trace of it.
  absl::StatusOr<std::optional<SlurmJobInfo>> FindJob(const std::string& slurm_job_id) const;
  // FindJob, at most once per describe_interval for a job still running.
  absl::StatusOr<std::optional<SlurmJobInfo>> RecentJob(const std::string& slurm_job_id);
  // Whether exit_file_grace has passed since Describe first found the job
  // ended with a started replica's exit file missing.
  bool ExitFilesOverdue(const std::string& slurm_job_id);
  // Polls until the job ended or `deadline`; whether it ended.
  absl::StatusOr<bool> WaitUntilEnded(const std::string& slurm_job_id,
                                      std::chrono::steady_clock::time_point deadline) const;

  const SlurmBackendOptions options_;
  const SlurmCommands commands_;

  struct CachedJob {
    std::chrono::steady_clock::time_point asked;
    SlurmJobInfo job;
  };
  std::mutex mutex_;
  // Jobs not yet ended, by Slurm job id. Guarded by mutex_.
  std::map<std::string, CachedJob> recent_jobs_;
  // Launches (by Slurm job name and comment) whose sbatch failed with a
  // transient error, and when the first such sbatch began: it may have
  // submitted the job all the same, so the next Submit of the same attempt
  // looks for a job it submitted since. Guarded by mutex_.
  std::map<std::string, absl::Time> unconfirmed_submissions_;
  // Ended jobs whose exit files Describe waits for: when it first found one
  // missing. Guarded by mutex_.
  std::map<std::string, std::chrono::steady_clock::time_point> exit_file_waits_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_BACKEND_H_
