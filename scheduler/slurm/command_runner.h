#ifndef VERNIER_SCHEDULER_SLURM_COMMAND_RUNNER_H_
#define VERNIER_SCHEDULER_SLURM_COMMAND_RUNNER_H_

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::scheduler {

struct CommandOutput {
  // The program's exit code; 128+N when signal N ended it.
  int exit_code = 0;
  std::string out;
  std::string err;
};

// Runs argv (no shell; argv[0] looked up in PATH) to completion with its
// stdout and stderr captured, stdin from /dev/null, this process's
// environment plus `env`. After `timeout` its process group is killed and
// DeadlineExceeded names the command. Once `*cancelled` turns true (checked
// every 50 ms when given) its process group is killed the same way and
// Cancelled names the command. Unavailable when it cannot be started (say,
// not installed). A non-zero exit is not an error here: the caller reads
// exit_code and err.
absl::StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                         const std::map<std::string, std::string>& env,
                                         std::chrono::milliseconds timeout,
                                         const std::atomic<bool>* cancelled = nullptr);

// RunCommand, run again while the command exits non-zero, up to `attempts`
// runs in all, waiting `pause` before the second and twice as long before
// each later one; the last run's output. For an idempotent command that
// races a change of state it cannot wait for: `podman rm --force` of a
// container whose trainer is being killed at the same moment fails with
// "container state improper" and succeeds a moment later. An error (the
// command cannot start, or timed out) is returned at once.
absl::StatusOr<CommandOutput> RunCommandUntilItSucceeds(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
    std::chrono::milliseconds timeout, int attempts, std::chrono::milliseconds pause);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_COMMAND_RUNNER_H_
