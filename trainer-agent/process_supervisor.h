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
// The program gets its own process group, so that stopping it reaches every
// process it started, and PR_SET_PDEATHSIG=SIGKILL, so that it dies with the
// agent even when the agent is killed hard. Linux ties that signal to the
// THREAD that forked: call Start from a thread that lives as long as the
// program (the agent's main thread).
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
  // SIGTERM to the program's process group, up to `grace` for it to exit,
  // then SIGKILL to the group. Returns how it ended.
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

  std::vector<std::string> command_;
  std::vector<std::pair<std::string, std::string>> environment_additions_;
  OutputCallback on_output_;
  std::shared_ptr<spdlog::logger> logger_;
  agent::OutputTail tail_;

  pid_t pid_ = -1;
  int output_fd_ = -1;
  int pidfd_ = -1;
  std::optional<ProcessExit> exit_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_PROCESS_SUPERVISOR_H_
