#include "scheduler/slurm/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/merged_environment.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How often a cancellable command's flag is read.
constexpr milliseconds kCancelCheck{50};

int WaitForExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

absl::StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                         const std::map<std::string, std::string>& env,
                                         milliseconds timeout, const std::atomic<bool>* cancelled) {
  const std::string command = absl::StrJoin(argv, " ");
  if (argv.empty()) return absl::InvalidArgumentError("RunCommand: empty command line");
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("`", command, "`: pipe: ", std::strerror(errno)));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("`", command, "`: pipe: ", std::strerror(error)));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigset_t all_signals;
  sigfillset(&all_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setsigdefault(&attributes, &all_signals);
  // A group of its own, so that a timeout kills what it started too.
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> arguments = argv;
  std::vector<std::string> environment = MergedEnvironment(env);
  pid_t pid = 0;
  const int spawn_error =
      posix_spawnp(&pid, arguments[0].c_str(), &actions, &attributes,
                   ExecPointers(arguments).data(), ExecPointers(environment).data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawn_error != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return absl::UnavailableError(
        absl::StrCat("cannot run `", command, "`: ", std::strerror(spawn_error)));
  }

  CommandOutput output;
  const steady_clock::time_point deadline = steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  // Why the command is killed before it ends: cancelled or out of time.
  absl::Status killed;
  while (open_fds > 0) {
    if (cancelled != nullptr && cancelled->load()) {
      killed = absl::CancelledError(absl::StrCat("`", command, "` was cancelled; killed it"));
      break;
    }
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now()).count();
    if (left <= 0) {
      killed = absl::DeadlineExceededError(
          absl::StrCat("`", command, "` did not finish in ", timeout.count(), " ms; killed it"));
      break;
    }
    const auto slice = cancelled != nullptr ? std::min<int64_t>(left, kCancelCheck.count()) : left;
    if (poll(fds, 2, static_cast<int>(slice)) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (i == 0 ? output.out : output.err).append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  if (!killed.ok()) {
    killpg(pid, SIGKILL);
    WaitForExit(pid);
    return killed;
  }
  output.exit_code = WaitForExit(pid);
  return output;
}

absl::StatusOr<CommandOutput> RunCommandUntilItSucceeds(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
    std::chrono::milliseconds timeout, int attempts, std::chrono::milliseconds pause) {
  absl::StatusOr<CommandOutput> output = RunCommand(argv, env, timeout);
  for (int run = 1; run < attempts && output.ok() && output->exit_code != 0; ++run) {
    std::this_thread::sleep_for(pause);
    pause *= 2;
    output = RunCommand(argv, env, timeout);
  }
  return output;
}

}  // namespace vernier::scheduler
