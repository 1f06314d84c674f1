#include "trainer-agent/process_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "scheduler/merged_environment.h"
#include "trainer-agent/process_tree.h"

namespace vernier::agent {
namespace {

// Output left behind by the program's leftovers after it exited is read for
// at most this long; a process that escaped the group may hold the pipe.
constexpr absl::Duration kDrainAfterExit = absl::Seconds(2);
constexpr size_t kReadChunk = 64 * 1024;
// PumpOutput hands on at most this much per call, so a program that prints
// without pause cannot starve the caller's other duties.
constexpr size_t kMaxBytesPerPump = 1 << 20;
// How often exited orphans are reaped while the program runs.
constexpr absl::Duration kReapInterval = absl::Seconds(1);

// Runs in the forked child: async-signal-safe calls only, since the agent has
// other threads whose locks the child may have inherited held.
[[noreturn]] void ExecChild(pid_t parent, int output_fd, int exec_error_fd, char** argv,
                            char** envp) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // The agent died before prctl.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) {
    if (signal != SIGKILL && signal != SIGSTOP) sigaction(signal, &default_action, nullptr);
  }
  if (dup2(output_fd, STDOUT_FILENO) < 0 || dup2(output_fd, STDERR_FILENO) < 0) {
    const int error = errno;
    (void)!write(exec_error_fd, &error, sizeof(error));
    _exit(127);
  }
  // Descriptors the agent holds (sockets, files) must not leak into the program.
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) {
      if (fd != exec_error_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  execvpe(argv[0], argv, envp);
  const int error = errno;
  (void)!write(exec_error_fd, &error, sizeof(error));
  _exit(127);
}

}  // namespace

ProcessSupervisor::ProcessSupervisor(
    std::vector<std::string> command,
    std::vector<std::pair<std::string, std::string>> environment_additions,
    OutputCallback on_output, std::shared_ptr<spdlog::logger> logger)
    : command_(std::move(command)),
      environment_additions_(std::move(environment_additions)),
      on_output_(std::move(on_output)),
      logger_(std::move(logger)) {}

ProcessSupervisor::~ProcessSupervisor() {
  if (running()) {
    KillTree();
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  CloseOutput();
  if (pidfd_ >= 0) close(pidfd_);
}

absl::Status ProcessSupervisor::Start() {
  if (command_.empty()) {
    return absl::InvalidArgumentError("empty command: nothing to run (give it after '--')");
  }
  // Orphans of the program's tree (a setsid worker whose parent died) come
  // to this process instead of init, so they stay within reach.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    logger_->warn(
        "cannot become a child subreaper ({}); processes that leave the program's tree "
        "may outlive a stop",
        strerror(errno));
  }
  if (pid_ > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("program '", command_[0], "' already started as pid ", pid_));
  }
  // Where an addition's name repeats, the first stands, as getenv reads it.
  std::vector<std::string> environment =
      scheduler::MergedEnvironment(std::map<std::string, std::string>(
          environment_additions_.begin(), environment_additions_.end()));
  std::vector<std::string> arguments = command_;
  std::vector<char*> envp = scheduler::ExecPointers(environment);
  std::vector<char*> argv = scheduler::ExecPointers(arguments);

  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create the output pipe: ", strerror(errno)));
  }
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    const int error = errno;
    close(output[0]);
    close(output[1]);
    return absl::InternalError(absl::StrCat("cannot create the exec pipe: ", strerror(error)));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    for (int fd : {output[0], output[1], exec_error[0], exec_error[1]}) close(fd);
    return absl::InternalError(
        absl::StrCat("cannot fork to run '", command_[0], "': ", strerror(error)));
  }
  if (pid == 0) ExecChild(parent, output[1], exec_error[1], argv.data(), envp.data());

  // Also set here, so that the group exists before any signal is sent to it,
  // whichever of parent and child runs first; EACCES once the child has
  // exec'd means it set the group itself.
  setpgid(pid, pid);
  pid_ = pid;
  close(output[1]);
  close(exec_error[1]);
  output_fd_ = output[0];
  fcntl(output_fd_, F_SETFL, fcntl(output_fd_, F_GETFL) | O_NONBLOCK);
  // Wakes PumpOutput the moment the program exits; -1 on kernels before 5.3,
  // where PumpOutput's timeout bounds the delay instead.
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));

  // The exec pipe closes on a successful exec, or carries the errno.
  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = read(exec_error[0], &exec_errno, sizeof(exec_errno));
  } while (got < 0 && errno == EINTR);
  close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof(exec_errno))) {
    const std::string message =
        absl::StrCat("vernier-agent: cannot execute '", command_[0], "': ", strerror(exec_errno));
    logger_->error("{} (exit code 127)", message);
    HandOn(absl::StrCat(message, "\n"));
  }
  return absl::OkStatus();
}

void ProcessSupervisor::HandOn(std::string_view chunk) {
  tail_.Append(chunk);
  if (on_output_) on_output_(chunk);
}

bool ProcessSupervisor::ReadAvailable() {
  if (output_fd_ < 0) return false;
  char buffer[kReadChunk];
  size_t handed_on = 0;
  while (handed_on < kMaxBytesPerPump) {
    const ssize_t got = read(output_fd_, buffer, sizeof(buffer));
    if (got > 0) {
      HandOn(std::string_view(buffer, static_cast<size_t>(got)));
      handed_on += static_cast<size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (got < 0) logger_->warn("reading the program's output failed: {}", strerror(errno));
    CloseOutput();
    return false;
  }
  return true;
}

void ProcessSupervisor::CloseOutput() {
  if (output_fd_ >= 0) close(output_fd_);
  output_fd_ = -1;
}

void ProcessSupervisor::PumpOutput(absl::Duration timeout) {
  pollfd fds[2];
  nfds_t count = 0;
  if (output_fd_ >= 0) fds[count++] = pollfd{output_fd_, POLLIN, 0};
  if (pidfd_ >= 0) fds[count++] = pollfd{pidfd_, POLLIN, 0};
  const int timeout_ms = static_cast<int>(
      std::max<int64_t>(0, absl::ToInt64Milliseconds(absl::Ceil(timeout, absl::Milliseconds(1)))));
  const int ready = poll(count > 0 ? fds : nullptr, count, timeout_ms);
  if (ready > 0 && output_fd_ >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
    ReadAvailable();
  }
}

void ProcessSupervisor::SignalGroup(int signal) {
  // The group id is the program's pid; while the program is not reaped that
  // id cannot belong to anyone else.
  if (pid_ > 0 && kill(-pid_, signal) != 0 && errno != ESRCH) {
    logger_->warn("cannot send signal {} to process group {}: {}", signal, pid_, strerror(errno));
  }
}

size_t ProcessSupervisor::SignalTree(int signal, std::vector<pid_t>* already) {
  const bool first = already->empty();
  if (first) SignalGroup(signal);
  size_t alive = 0;
  for (const ProcessEntry& process : ProcessTree::Descendants(getpid(), ProcessTree::Scan())) {
    if (!process.alive()) continue;
    ++alive;
    if (std::find(already->begin(), already->end(), process.pid) != already->end()) continue;
    already->push_back(process.pid);
    // The group signal reached the group's members; the others left it.
    if (first && process.process_group == pid_) continue;
    if (kill(process.pid, signal) == 0) {
      logger_->info("sent signal {} to pid {}, which the program started outside its group", signal,
                    process.pid);
    }
  }
  return alive;
}

void ProcessSupervisor::KillTree() {
  constexpr int kRounds = 100;
  std::vector<pid_t> alive;
  for (int round = 0; round < kRounds; ++round) {
    SignalGroup(SIGKILL);
    alive.clear();
    for (const ProcessEntry& process : ProcessTree::Descendants(getpid(), ProcessTree::Scan())) {
      if (!process.alive()) continue;
      alive.push_back(process.pid);
      kill(process.pid, SIGKILL);
    }
    ReapOrphans();
    if (alive.empty()) return;
    absl::SleepFor(absl::Milliseconds(20));
  }
  logger_->error("processes {} of the program are still alive after SIGKILL",
                 absl::StrJoin(alive, ", "));
}

void ProcessSupervisor::ReapOrphans() {
  last_reap_ = absl::Now();
  const pid_t self = getpid();
  for (const ProcessEntry& process : ProcessTree::Scan()) {
    if (process.parent != self || process.pid == pid_ || process.alive()) continue;
    while (waitpid(process.pid, nullptr, WNOHANG) < 0 && errno == EINTR) {
    }
  }
}

bool ProcessSupervisor::ProgramExited() const {
  if (exit_.has_value()) return true;
  if (pid_ <= 0) return false;
  siginfo_t info{};
  // WNOWAIT leaves the program a zombie, so its group id stays reserved while
  // the leftovers of its tree are killed.
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid != 0;
}

std::optional<ProcessExit> ProcessSupervisor::TryWait() {
  if (exit_.has_value()) return exit_;
  if (pid_ <= 0) return std::nullopt;
  if (!ProgramExited()) {
    if (absl::Now() - last_reap_ >= kReapInterval) ReapOrphans();
    return std::nullopt;
  }
  KillTree();
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  const absl::Time drain_deadline = absl::Now() + kDrainAfterExit;
  while (output_fd_ >= 0 && absl::Now() < drain_deadline) {
    PumpOutput(drain_deadline - absl::Now());
  }
  if (output_fd_ >= 0) {
    logger_->warn("the program's output pipe is still open {} after it exited; stopped reading",
                  absl::FormatDuration(kDrainAfterExit));
    CloseOutput();
  }
  tail_.Finish();
  ProcessExit result;
  if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
    result.exit_code = 128 + result.term_signal;
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  exit_ = result;
  return exit_;
}

ProcessExit ProcessSupervisor::Wait() {
  while (true) {
    if (std::optional<ProcessExit> result = TryWait()) return *result;
    PumpOutput(absl::Milliseconds(100));
  }
}

ProcessExit ProcessSupervisor::Stop(absl::Duration grace) {
  if (exit_.has_value()) return *exit_;
  logger_->info(
      "stopping the program: SIGTERM to process group {} and every process it started, SIGKILL "
      "after {}",
      pid_, absl::FormatDuration(grace));
  std::vector<pid_t> signalled;
  size_t alive = SignalTree(SIGTERM, &signalled);
  const absl::Time deadline = absl::Now() + grace;
  while (alive > 0 && absl::Now() < deadline) {
    PumpOutput(std::min(deadline - absl::Now(), absl::Milliseconds(50)));
    ReapOrphans();
    // Processes started since the last look get SIGTERM too.
    alive = SignalTree(SIGTERM, &signalled);
  }
  if (alive > 0) {
    if (!ProgramExited()) {
      logger_->warn(
          "the program did not exit within {} of SIGTERM; sending SIGKILL to group {} and every "
          "process it started",
          absl::FormatDuration(grace), pid_);
    } else {
      logger_->warn(
          "{} processes started by the program did not exit within {} of SIGTERM; "
          "sending SIGKILL",
          alive, absl::FormatDuration(grace));
    }
    KillTree();
  }
  return Wait();
}

}  // namespace vernier::agent
