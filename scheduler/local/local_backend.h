#ifndef VERNIER_SCHEDULER_LOCAL_LOCAL_BACKEND_H_
#define VERNIER_SCHEDULER_LOCAL_LOCAL_BACKEND_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/backend.h"
#include "scheduler/local/local_handle.h"
#include "scheduler/local/process_table.h"
#include "scheduler/trial_user.h"
#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

struct LocalBackendOptions {
  // How long Cancel waits for the processes to go after SIGKILL before it
  // gives up with an error (a process stuck in the kernel ignores SIGKILL).
  std::chrono::milliseconds kill_wait = std::chrono::seconds(5);
  std::string proc_root = "/proc";
  // The podman that runs replicas with an image; empty: none. When a cancel
  // has to SIGKILL a replica's agent, the agent cannot remove its container,
  // so Cancel does (`podman rm --force`, by ContainerName).
  std::string podman_path;
  // vernier serve --trial-user: replicas (agents and trainers) run as this
  // user, and before each trial starts the job dir and what the server made
  // in it become that user's (HandOverJobDir). None: the server's user.
  std::optional<TrialUser> trial_user;
};

// Runs each replica as a process of this machine, in a session and process
// group of its own so that it survives the server: a later server process
// finds it again through TrialRun.backend_handle, which records each
// replica's PID and start time (see LocalHandle), and never mistakes a
// process that reused the PID for it.
//
// Reaps only the PIDs it started (no SIGCHLD handler, no waitpid(-1)), so
// other children of the server keep their exit statuses. One LocalBackend
// per server process: it remembers the exit statuses of the children it
// reaped, and replicas started by another instance in the same process
// look like those of an earlier server.
class LocalBackend : public Backend {
 public:
  explicit LocalBackend(LocalBackendOptions options = {});
  // Leaves the replicas running: they outlive the server.
  ~LocalBackend() override = default;

  absl::StatusOr<v1::TrialRun> Submit(const TrialLaunch& launch) override;
  absl::StatusOr<v1::TrialRun> Describe(const v1::TrialRun& run) override;
  absl::Status Cancel(const v1::TrialRun& run, std::chrono::milliseconds grace) override;
  // For each of `run`'s replicas, the live process of this machine that
  // leads a session of its own and runs that replica's agent for that very
  // attempt (its command line names the study, trial, role, index, attempt
  // and trial dir); nullopt unless every replica's is found.
  absl::StatusOr<std::optional<v1::TrialRun>> FindSubmitted(const std::string& job_id,
                                                            const std::string& study_name,
                                                            const v1::TrialRun& run) override;

 private:
  // A replica this LocalBackend started.
  struct ChildRecord {
    // Set once reaped: the status from waitpid.
    std::optional<int> wait_status;
    // Someone else reaped it (waitpid(-1) elsewhere, SIGCHLD ignored).
    bool reaped_elsewhere = false;
  };
  enum class GroupState {
    kAlive,
    kEnded,
    // The PID now names another process: neither look at nor signal it.
    kNotOurs,
  };

  // The run's handle, checked against its replicas and this host.
  absl::StatusOr<LocalHandle> CheckedHandle(const v1::TrialRun& run) const;
  // Reaps `identity` if it is a child of ours that ended; nullopt when it
  // is not a child of ours.
  std::optional<ChildRecord> ReapIfOurChild(const ProcessIdentity& identity);
  // Reaps every child of ours that ended, whether or not its run is still
  // described: a replica whose agent reported its exit is never looked at
  // again and would stay a zombie. Submit, Describe and Cancel call it.
  void ReapEndedChildren();
  static void Reap(const ProcessIdentity& identity, ChildRecord& record);
  // Whether anything of the replica's process group still runs.
  GroupState CheckGroup(const ProcessIdentity& identity);
  // Sends `signal_number` to the process groups among `replicas` that still
  // run; returns those.
  std::vector<ProcessIdentity> SignalRunningGroups(const std::vector<ProcessIdentity>& replicas,
                                                   int signal_number,
                                                   const std::string& trial_label);
  // Polls until every group in `replicas` ended or `deadline`; returns those
  // still running.
  std::vector<ProcessIdentity> WaitForGroups(std::vector<ProcessIdentity> replicas,
                                             std::chrono::steady_clock::time_point deadline);
  // Removes the containers of the run's replicas, whose agents were killed.
  void RemoveContainers(const v1::TrialRun& run, const std::string& job_id,
                        const std::string& trial_label);
  // With a trial user: makes the replicas' working dirs (those under the job
  // dir) and log files, then gives the job dir to the trial user.
  absl::Status PrepareJobDirForTrialUser(const TrialLaunch& launch) const;
  // All or nothing: ends the replicas a failed Submit had started.
  void KillStarted(const std::vector<ProcessIdentity>& started, const std::string& trial_label);

  const LocalBackendOptions options_;
  const std::string hostname_;
  const ProcessTable process_table_;

  std::mutex mutex_;
  std::map<ProcessIdentity, ChildRecord> children_;  // guarded by mutex_
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_LOCAL_BACKEND_H_
