#ifndef VERNIER_TRAINER_AGENT_PROCESS_SUPERVISOR_H_
#define VERNIER_TRAINER_AGENT_PROCESS_SUPERVISOR_H_

#include <spdlog/logger.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "trainer-agent/output_tail.h"
#include "trainer-agent/process_exit.h"

namespace vernier::agent {

// Runs one program (the trainer) and watches it.
//
// The program gets its own process group, and PR_SET_PDEATHSIG=SIGKILL, so
// that it dies with the agent even when the agent is killed hard. Linux ties
// that signal to the THREAD that forked: call Start from a thread that lives
// as long as the program (the agent's main thread).
//
// Processes the program starts may leave its group and session (torchrun's
// workers call setsid), so the supervisor makes its own process a child
// subreaper (PR_SET_CHILD_SUBREAPER): orphans of the program's tree become
// its children instead of init's, and every process of the tree stays
// reachable through parent links in /proc. Stopping signals the program's
// group and every such descendant; when the program exits, whatever is left
// of its tree is killed. Orphans that exit are reaped here. Meant for a
// process that runs one program (the agent): it reaps any exited child other
// than the program and treats every descendant as the program's.
//
// stdout and stderr share one pipe, which keeps their interleaving; every
// chunk read goes to the output callback, and the last lines are kept for the
// exit report. When the program cannot be executed (not found, not
// executable) it exits with 127 and the output says why, naming the program.
//
// Not thread-safe: one thread calls Start, PumpOutput, TryWait, Wait and Stop.
class ProcessSupervisor {
 public:
  using OutputCallback = std::function<void(std::string_view chunk)>;

  // `environment_additions` are set on top of the agent's own environment,
  // replacing variables of the same name.
  ProcessSupervisor(std::vector<std::string> command,
                    std::vector<std::pair<std::string, std::string>> environment_additions,
                    OutputCallback on_output, std::shared_ptr<spdlog::logger> logger);
  // A program still running is killed (its whole group) and reaped.
  ~ProcessSupervisor();

  ProcessSupervisor(const ProcessSupervisor&) = delete;
  ProcessSupervisor& operator=(const ProcessSupervisor&) = delete;

  // Errors: INVALID_ARGUMENT for an empty command, FAILED_PRECONDITION when
  // already started, INTERNAL when a pipe or fork fails.
  absl::Status Start();

  // Hands on whatever output is ready, waiting up to `timeout` for some or
  // for the program to exit.
  void PumpOutput(absl::Duration timeout);
  // The exit, once the program ended; nullopt while it runs. On exit, what is
  // left of its process group is killed and the rest of its output is read.
  std::optional<ProcessExit> TryWait();
  // Blocks until the program exits, handing on its output meanwhile.
  ProcessExit Wait();
  // SIGTERM to the program's process group and to every descendant (also
  // those started during the grace period), up to `grace` for all of them to
  // exit, then SIGKILL to what is left. Returns how the program ended.
  ProcessExit Stop(absl::Duration grace);

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exit_.has_value(); }
  // The last lines of output (the program's and the exec error, if any).
  std::string OutputTail() const { return tail_.Text(); }

 private:
  void HandOn(std::string_view chunk);
  // Reads until the pipe is empty; false at end of file.
  bool ReadAvailable();
  void CloseOutput();
  void SignalGroup(int signal);
  // Signals the group and the living descendants of this process not in
  // `already` (which collects them); returns how many processes of the tree
  // are still alive.
  size_t SignalTree(int signal, std::vector<pid_t>* already);
  // SIGKILL to the group and every descendant until none is left alive
  // (bounded: a process in uninterruptible sleep may take its time).
  void KillTree();
  // Reaps exited orphans that were reparented to this process.
  void ReapOrphans();
  // Whether the program has exited (it stays a zombie until TryWait).
  bool ProgramExited() const;

  std::vector<std::string> command_;
  std::vector<std::pair<std::string, std::string>> environment_additions_;
  OutputCallback on_output_;
  std::shared_ptr<spdlog::logger> logger_;
  agent::OutputTail tail_;

  pid_t pid_ = -1;
  int output_fd_ = -1;
  int pidfd_ = -1;
  std::optional<ProcessExit> exit_;
  absl::Time last_reap_ = absl::InfinitePast();
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_PROCESS_SUPERVISOR_H_
