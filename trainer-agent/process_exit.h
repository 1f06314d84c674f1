#ifndef VERNIER_TRAINER_AGENT_PROCESS_EXIT_H_
#define VERNIER_TRAINER_AGENT_PROCESS_EXIT_H_

namespace vernier::agent {

// How a supervised program ended.
struct ProcessExit {
  // The exit status, or 128 + the signal when a signal ended the program (the
  // shell's convention, which is also the agent's own exit code).
  int exit_code = 0;
  // The signal that ended the program; 0 when it exited by itself.
  int term_signal = 0;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_PROCESS_EXIT_H_
