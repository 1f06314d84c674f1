#ifndef VERNIER_SCHEDULER_BACKEND_H_
#define VERNIER_SCHEDULER_BACKEND_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

// One process to start for a replica of a trial: the agent command line
// (which itself starts the trainer), its environment and where its output
// goes.
struct ReplicaLaunch {
  std::string role;  // master, chief, worker, ps, evaluator
  int index = 0;
  std::vector<std::string> argv;
  // The replica's whole environment: a backend adds nothing of the
  // server's own (the Slurm backend only the step's CUDA_VISIBLE_DEVICES).
  std::map<std::string, std::string> env;
  std::string working_dir;
  // stdout and stderr of the replica, appended.
  std::string log_path;
  // How many GPUs the replica needs.
  int gpu_count = 0;
  // The GPUs granted to it (device indexes as this server sees them), when
  // the Admission grants them; empty when the backend allocates them itself.
  std::vector<int> gpus;
};

struct TrialLaunch {
  std::string job_id;
  // The job's owner (Job.owner): on Slurm, whose account and QoS the
  // trial's batch job is charged to (SbatchOptions).
  std::string owner;
  std::string study_name;
  int64_t trial_id = 0;
  int32_t attempt = 0;
  // The job's directory, and the trial's under it: what the server creates
  // below job_dir it creates without following symbolic links.
  std::string job_dir;
  std::string trial_dir;
  std::vector<ReplicaLaunch> replicas;
};

// Runs trials' replicas somewhere (this machine, Slurm). When a trial may
// start, and with which GPUs and ports, is its Admission's decision
// (scheduler/admission.h). Implementations are safe to call from several
// threads.
class Backend {
 public:
  virtual ~Backend() = default;
  // Starts every replica; on failure, none is left running.
  virtual absl::StatusOr<v1::TrialRun> Submit(const TrialLaunch& launch) = 0;
  // The run with each replica's state refreshed (RUNNING, EXITED with its
  // exit code or signal, or LOST when it vanished without a trace). Works
  // for runs submitted by an earlier server process too.
  virtual absl::StatusOr<v1::TrialRun> Describe(const v1::TrialRun& run) = 0;
  // Asks every replica to end (SIGTERM to each process group), waits up to
  // `grace`, then kills what is left. Returns once all have ended.
  virtual absl::Status Cancel(const v1::TrialRun& run, std::chrono::milliseconds grace) = 0;

  // What was submitted for `run`, a run stored before Submit was called
  // whose backend handle was never stored (its server stopped or died
  // between submitting it and storing what Submit answered): the run as
  // Submit answered it, handle and replicas' processes set, when this
  // backend finds the processes or the batch job it started for that very
  // attempt (of job `job_id`, whose study is `study_name`); nullopt when it
  // finds nothing: nothing was submitted, not yet, or what was has ended
  // (and, by default, a backend that cannot look). Starts nothing.
  virtual absl::StatusOr<std::optional<v1::TrialRun>> FindSubmitted(const std::string& job_id,
                                                                    const std::string& study_name,
                                                                    const v1::TrialRun& run);

  // What Submit would start for `launch`, as text to check before
  // submitting (`vernier jobs submit --dry-run`); starts nothing. By
  // default each replica's environment and command line, as shell
  // words; the Slurm backend gives its sbatch script.
  virtual absl::StatusOr<std::string> PreviewLaunch(const TrialLaunch& launch) const;

  // Since when the cluster's controller (slurmctld) has been unreachable,
  // while it is: Submit, Describe and Cancel then fail with transient errors
  // (IsTransientBackendError). nullopt while it answers, and always for a
  // backend without one (local).
  virtual std::optional<absl::Time> UnreachableSince() const { return std::nullopt; }
  // When the controller's last outage ended; InfinitePast when none has
  // (always for a backend without one).
  virtual absl::Time LastOutageEnded() const { return absl::InfinitePast(); }
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_BACKEND_H_
