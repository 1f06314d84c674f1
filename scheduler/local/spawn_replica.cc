#include "scheduler/local/spawn_replica.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "scheduler/merged_environment.h"
#include "scheduler/path_beneath.h"

namespace vernier::scheduler {
namespace {

// What the child was doing when it failed, sent back over the report pipe.
enum class ChildStage : int {
  kNewSession = 1,
  kEnterWorkingDir,
  kRedirectOutput,
  kExecute,
  kSwitchUser
};

struct ChildFailure {
  ChildStage stage;
  int error;
};

// Everything the child needs, prepared before fork: after fork the child of
// a multi-threaded process may only call async-signal-safe functions, so
// no allocation happens there.
struct ChildPlan {
  const char* executable;
  char* const* argv;
  char* const* envp;
  const char* working_dir;
  int stdin_fd;
  int log_fd;
  int report_fd;
  // The user to run as (vernier serve --trial-user); none: this process's.
  bool switch_user;
  uid_t uid;
  gid_t gid;
  const gid_t* groups;
  size_t group_count;
};

absl::Status ErrnoError(int error, absl::string_view what) {
  return absl::ErrnoToStatus(error, what);
}

absl::Status FilesystemError(const std::error_code& error, absl::string_view what) {
  return absl::ErrnoToStatus(error.value(), what);
}

// The replica's environment is exactly the launch's: nothing of this
// server's own is added (see ReplicaLaunch::env). Whether each name can be
// one.
absl::Status CheckEnvironment(const std::map<std::string, std::string>& environment) {
  for (const auto& [name, value] : environment) {
    if (name.empty() || name.find('=') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("env: variable name '", name, "' is empty or contains '='"));
    }
  }
  return absl::OkStatus();
}

// execvp's search, done before fork so that the child only calls execve.
// Falls back to the first candidate that exists but is not executable, so
// that exec reports why it cannot run it.
absl::StatusOr<std::string> ResolveExecutable(const std::string& program,
                                              const std::map<std::string, std::string>& env) {
  if (program.find('/') != std::string::npos) return std::filesystem::absolute(program).string();
  const auto path_entry = env.find("PATH");
  const std::string search_path = path_entry != env.end() ? path_entry->second : "/bin:/usr/bin";
  std::string first_existing;
  for (const std::string& directory : std::vector<std::string>(absl::StrSplit(search_path, ':'))) {
    const std::filesystem::path candidate = std::filesystem::absolute(
        std::filesystem::path(directory.empty() ? std::string(".") : directory) / program);
    struct stat info;
    if (stat(candidate.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (first_existing.empty()) first_existing = candidate.string();
  }
  if (!first_existing.empty()) return first_existing;
  return absl::NotFoundError(
      absl::StrCat("cannot execute '", program, "': not found in PATH=", search_path));
}

// Keeps fds 0-2 free for the child's dup2 onto them, should this process
// run with a standard stream closed.
absl::StatusOr<int> MoveAboveStandardStreams(int fd) {
  if (fd > STDERR_FILENO) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  const int error = errno;
  close(fd);
  if (moved < 0) return ErrnoError(error, "cannot duplicate a file descriptor");
  return moved;
}

absl::StatusOr<int> OpenFile(const std::string& path, int flags, absl::string_view what) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(errno, absl::StrCat("cannot open ", what, " '", path, "'"));
  return MoveAboveStandardStreams(fd);
}

[[noreturn]] void FailChild(int report_fd, ChildStage stage) {
  const ChildFailure failure{stage, errno};
  // Nothing to do if the parent cannot hear it: it then sees exit code 127.
  [[maybe_unused]] ssize_t ignored = write(report_fd, &failure, sizeof(failure));
  _exit(127);
}

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void RunChild(const ChildPlan& plan) {
  // Ignored signals stay ignored across exec, and handlers of the server
  // must not run here.
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    sigaction(signal_number, &default_action, nullptr);  // fails harmlessly for KILL, STOP
  }
  if (setsid() < 0) FailChild(plan.report_fd, ChildStage::kNewSession);
  // Groups first, the user last: after setuid nothing else could change.
  if (plan.switch_user && (setgroups(plan.group_count, plan.groups) != 0 || setgid(plan.gid) != 0 ||
                           setuid(plan.uid) != 0)) {
    FailChild(plan.report_fd, ChildStage::kSwitchUser);
  }
  if (chdir(plan.working_dir) != 0) FailChild(plan.report_fd, ChildStage::kEnterWorkingDir);
  if (dup2(plan.stdin_fd, STDIN_FILENO) < 0 || dup2(plan.log_fd, STDOUT_FILENO) < 0 ||
      dup2(plan.log_fd, STDERR_FILENO) < 0) {
    FailChild(plan.report_fd, ChildStage::kRedirectOutput);
  }
  // Descriptors another library opened without O_CLOEXEC (a listening
  // socket, a log file) must not outlive the server in its replicas.
  close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC);
  // The server may block signals it waits for (SIGTERM); the replica must
  // receive them.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(plan.executable, plan.argv, plan.envp);
  FailChild(plan.report_fd, ChildStage::kExecute);
}

absl::Status DescribeChildFailure(const ChildFailure& failure, const std::string& executable,
                                  const ReplicaLaunch& launch) {
  switch (failure.stage) {
    case ChildStage::kNewSession:
      return ErrnoError(failure.error, "cannot start a new session");
    case ChildStage::kEnterWorkingDir:
      return ErrnoError(failure.error,
                        absl::StrCat("cannot enter working_dir '", launch.working_dir, "'"));
    case ChildStage::kRedirectOutput:
      return ErrnoError(failure.error,
                        absl::StrCat("cannot redirect output to '", launch.log_path, "'"));
    case ChildStage::kExecute:
      return ErrnoError(failure.error, absl::StrCat("cannot execute '", executable, "'"));
    case ChildStage::kSwitchUser:
      return ErrnoError(failure.error, "cannot switch to the trial user");
  }
  return absl::InternalError(absl::StrCat("the child reported an unknown failure stage ",
                                          static_cast<int>(failure.stage)));
}

// Creates `path` and the folders above it; below `job_dir`, without
// following links.
absl::Status MakeDirectories(const std::string& job_dir, const std::string& path,
                             absl::string_view what) {
  if (!job_dir.empty() && IsBeneath(job_dir, path)) return MakeDirectoriesBeneath(job_dir, path);
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return FilesystemError(error, absl::StrCat("cannot create ", what, " '", path, "'"));
  return absl::OkStatus();
}

absl::StatusOr<int> OpenLog(const std::string& job_dir, const std::string& log_path) {
  if (!job_dir.empty() && IsBeneath(job_dir, log_path)) {
    VERNIER_ASSIGN_OR_RETURN(const int fd,
                             OpenFileBeneath(job_dir, log_path, O_WRONLY | O_CREAT | O_APPEND));
    return MoveAboveStandardStreams(fd);
  }
  const std::filesystem::path log_folder = std::filesystem::path(log_path).parent_path();
  if (!log_folder.empty()) {
    VERNIER_RETURN_IF_ERROR(MakeDirectories("", log_folder.string(), "the folder of log_path"));
  }
  return OpenFile(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, "log_path");
}

}  // namespace

absl::StatusOr<pid_t> SpawnReplica(const ReplicaLaunch& launch, const std::string& job_dir,
                                   const TrialUser* user) {
  if (launch.argv.empty() || launch.argv[0].empty()) {
    return absl::InvalidArgumentError("argv: no program to run");
  }
  if (launch.working_dir.empty()) return absl::InvalidArgumentError("working_dir is empty");
  if (launch.log_path.empty()) return absl::InvalidArgumentError("log_path is empty");

  VERNIER_RETURN_IF_ERROR(CheckEnvironment(launch.env));
  std::map<std::string, std::string> env = launch.env;
  if (user != nullptr) {
    // The trial user's own, not the server's (root's).
    env["HOME"] = user->home;
    env["USER"] = user->name;
    env["LOGNAME"] = user->name;
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    const auto inherited = env.find("XDG_RUNTIME_DIR");
    if (runtime != nullptr && inherited != env.end() && inherited->second == runtime) {
      env.erase(inherited);
    }
  }
  absl::StatusOr<std::string> executable = ResolveExecutable(launch.argv[0], env);
  if (!executable.ok()) return executable.status();

  VERNIER_RETURN_IF_ERROR(MakeDirectories(job_dir, launch.working_dir, "working_dir"));
  absl::StatusOr<int> log_fd = OpenLog(job_dir, launch.log_path);
  if (!log_fd.ok()) return log_fd.status();
  absl::Cleanup close_log = [fd = *log_fd] { close(fd); };
  absl::StatusOr<int> stdin_fd = OpenFile("/dev/null", O_RDONLY, "stdin");
  if (!stdin_fd.ok()) return stdin_fd.status();
  absl::Cleanup close_stdin = [fd = *stdin_fd] { close(fd); };

  // The classic self-pipe: the write end closes on a successful exec, so
  // the parent reads either nothing (started) or the child's errno.
  int report_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC) != 0) return ErrnoError(errno, "cannot create a pipe");
  absl::StatusOr<int> report_read = MoveAboveStandardStreams(report_pipe[0]);
  absl::StatusOr<int> report_write = MoveAboveStandardStreams(report_pipe[1]);
  if (!report_read.ok() || !report_write.ok()) {
    if (report_read.ok()) close(*report_read);
    if (report_write.ok()) close(*report_write);
    return report_read.ok() ? report_write.status() : report_read.status();
  }
  absl::Cleanup close_report_read = [fd = *report_read] { close(fd); };
  int report_write_fd = *report_write;
  absl::Cleanup close_report_write = [&report_write_fd] {
    if (report_write_fd >= 0) close(report_write_fd);
  };

  std::vector<std::string> argv_strings = launch.argv;
  std::vector<std::string> env_strings;
  env_strings.reserve(env.size());
  for (const auto& [name, value] : env) env_strings.push_back(absl::StrCat(name, "=", value));
  std::vector<char*> argv_pointers = ExecPointers(argv_strings);
  std::vector<char*> env_pointers = ExecPointers(env_strings);
  const ChildPlan plan{.executable = executable->c_str(),
                       .argv = argv_pointers.data(),
                       .envp = env_pointers.data(),
                       .working_dir = launch.working_dir.c_str(),
                       .stdin_fd = *stdin_fd,
                       .log_fd = *log_fd,
                       .report_fd = report_write_fd,
                       .switch_user = user != nullptr,
                       .uid = user != nullptr ? user->uid : 0,
                       .gid = user != nullptr ? user->gid : 0,
                       .groups = user != nullptr ? user->groups.data() : nullptr,
                       .group_count = user != nullptr ? user->groups.size() : 0};

  // Signals stay blocked across fork so that no server handler runs in the
  // child before it resets the dispositions.
  sigset_t all_signals, previous_mask;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_BLOCK, &all_signals, &previous_mask);
  const pid_t pid = fork();
  if (pid == 0) RunChild(plan);
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (pid < 0) return ErrnoError(fork_error, "cannot fork");

  close(report_write_fd);
  report_write_fd = -1;
  ChildFailure failure;
  size_t received = 0;
  while (received < sizeof(failure)) {
    const ssize_t size = read(*report_read, reinterpret_cast<char*>(&failure) + received,
                              sizeof(failure) - received);
    if (size < 0 && errno == EINTR) continue;
    if (size <= 0) break;
    received += static_cast<size_t>(size);
  }
  if (received == 0) return pid;

  int wait_status;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (received < sizeof(failure)) {
    return absl::InternalError(absl::StrCat("the child for '", *executable,
                                            "' failed before exec and sent a truncated report"));
  }
  return DescribeChildFailure(failure, *executable, launch);
}

}  // namespace vernier::scheduler
