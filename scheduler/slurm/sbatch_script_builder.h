#ifndef VERNIER_SCHEDULER_SLURM_SBATCH_SCRIPT_BUILDER_H_
#define VERNIER_SCHEDULER_SLURM_SBATCH_SCRIPT_BUILDER_H_

#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/backend.h"

namespace vernier::scheduler {

struct SbatchOptions {
  // --partition; empty: the cluster's default partition.
  std::string partition;
  // So that Slurm's own fair share applies between the users of one
  // server (every batch job is submitted by the server's Unix user): the
  // account (--account) each owner's trials are charged to (TrialLaunch::
  // owner); owners not named are charged to an account of their own name
  // with `account_from_owner`, else to the server user's default account.
  std::map<std::string, std::string, std::less<>> accounts;
  bool account_from_owner = false;
  // The QoS (--qos) of each owner's trials; others: the account's default.
  std::map<std::string, std::string, std::less<>> qos;
  // How long a replica whose step srun could not start waits for an
  // unreachable slurmctld before it fails (whole seconds): the server's
  // --slurm-outage-limit.
  absl::Duration slurmctld_wait_limit = absl::Minutes(10);
};

// The account a launch's batch job is charged to (SbatchOptions::accounts,
// account_from_owner); empty: the server user's default.
std::string SlurmAccountOf(const TrialLaunch& launch, const SbatchOptions& options);
// The QoS of a launch's batch job; empty: the account's default.
std::string SlurmQosOf(const TrialLaunch& launch, const SbatchOptions& options);

// The file beside a replica's log where its batch script records how it
// ended: srun's exit status (the task's exit code, 128+N for signal N).
std::string ReplicaExitPath(const std::string& log_path);
// The file beside a replica's log where its step records the GPUs Slurm
// gave it (SLURM_STEP_GPUS: the node's device indexes, comma separated).
std::string ReplicaGpusPath(const std::string& log_path);
// The batch shell's own output (Slurm's messages about the allocation).
std::string BatchOutputPath(const TrialLaunch& launch);

// The Slurm job's name (squeue shows it): vernier-JOB-TRIAL.
std::string SlurmJobName(const TrialLaunch& launch);
// The Slurm job's comment: which attempt of its trial it runs
// (vernier-attempt-N), so that a job an sbatch submitted without its answer
// arriving (slurmctld restarting) is found again rather than submitted twice.
std::string SlurmJobComment(const TrialLaunch& launch);

// The sbatch script that runs a trial as ONE Slurm allocation on one node
// (--nodes=1, so that every replica reaches the others over the node's
// loopback; heterogeneous jobs never start on a one-node cluster): the
// allocation holds one task per replica and the trial's GPUs all or
// nothing, then each replica runs as an `srun --exact -n1
// --gpus-per-task=K` step in the background with exactly its env exported
// (CUDA_VISIBLE_DEVICES is Slurm's to set, and set empty for a replica
// without GPUs), its working dir, and its output
// appended to its log_path; the script waits for all of them and exits with
// the first replica's status. A step srun could not start (nothing of the
// replica ran: the step did not write its GPUs file) waits while slurmctld
// is away, up to SbatchOptions::slurmctld_wait_limit, and is tried again
// when it answers; otherwise it is tried 3 times in all. A step that
// started is never run again. Pure: the same launch gives the same text.
// InvalidArgument for what a shell script cannot carry (an env name that is
// no shell identifier, a NUL byte).
absl::StatusOr<std::string> BuildSbatchScript(const TrialLaunch& launch,
                                              const SbatchOptions& options);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SBATCH_SCRIPT_BUILDER_H_
