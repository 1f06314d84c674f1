#ifndef VERNIER_SCHEDULER_SLURM_SLURM_COMMANDS_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_COMMANDS_H_

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/slurm/command_runner.h"
#include "scheduler/slurm/slurm_outage.h"
#include "scheduler/slurm/slurm_output_parser.h"

namespace vernier::scheduler {

struct SlurmCommandsOptions {
  // Added to the environment of every Slurm command (e.g. SLURM_CONF); sbatch
  // passes it on to the job.
  std::map<std::string, std::string> env;
  // How long one command may take before it is killed.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
};

// Runs Slurm's client commands (sbatch, scontrol, squeue, sinfo, scancel,
// sacct) with argv and no shell, and reads their answers. Every error names
// the command line, its exit code and its stderr. A command that could not
// reach slurmctld, or ran past the timeout, fails with a transient error
// (IsTransientBackendError); every command's outcome goes to outage().
// Copies share one outage().
class SlurmCommands {
 public:
  explicit SlurmCommands(SlurmCommandsOptions options = {});

  // `sbatch --parsable SCRIPT`: the new job's id.
  absl::StatusOr<std::string> Submit(const std::string& script_path) const;
  // `squeue --states=all --name=NAME`: the id of the job named `name` whose
  // comment is `comment`, whose working directory is `work_dir` and which
  // was submitted at `not_before` or later (one that an sbatch whose answer
  // was lost may have submitted; not a job of the same name from another
  // server's job dir, or an earlier one still remembered); the newest of
  // several. nullopt when the controller knows none.
  absl::StatusOr<std::optional<std::string>> FindSubmitted(const std::string& name,
                                                           const std::string& comment,
                                                           const std::string& work_dir,
                                                           absl::Time not_before) const;
  // `scontrol show job -d -o ID`; nullopt when the controller no longer
  // knows the job (it ended more than MinJobAge ago, or never existed).
  absl::StatusOr<std::optional<SlurmJobInfo>> ShowJob(const std::string& job_id) const;
  // `sacct` for an ended job; nullopt when the cluster keeps no accounting
  // ("accounting storage is disabled") or has no row for the job.
  absl::StatusOr<std::optional<SlurmJobInfo>> AccountedJob(const std::string& job_id) const;
  // `scancel --signal=NAME [--full] ID`: the signal to every task of every
  // step (with `full`, to the batch shell too); the job is not cancelled.
  absl::Status Signal(const std::string& job_id, const std::string& signal_name, bool full) const;
  // `scancel ID`: cancels the job (SIGTERM, then SIGKILL after KillWait).
  absl::Status Cancel(const std::string& job_id) const;
  // `sinfo -h -N [-p PARTITION] -o %N|%G|%t`.
  absl::StatusOr<std::vector<SlurmNodeInfo>> Nodes(const std::string& partition) const;

  // Whether slurmctld is away, as the commands found.
  const SlurmOutage& outage() const { return *outage_; }

 private:
  // Runs argv; the outcome is observed by outage(), with a failure to reach
  // slurmctld marked transient.
  // `env` joins SlurmCommandsOptions::env for this command.
  absl::StatusOr<CommandOutput> RunObserved(
      const std::vector<std::string>& argv,
      const std::map<std::string, std::string>& env = {}) const;
  // The command's output when it exited 0; an error naming it otherwise
  // (RunObserved's, or a permanent one).
  absl::StatusOr<CommandOutput> Run(const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& env = {}) const;
  // Runs scancel; an already ended job is no error.
  absl::Status Scancel(std::vector<std::string> argv) const;

  const SlurmCommandsOptions options_;
  std::shared_ptr<SlurmOutage> outage_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_COMMANDS_H_
