#ifndef VERNIER_TRAINER_AGENT_AGENT_TOKEN_H_
#define VERNIER_TRAINER_AGENT_AGENT_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace vernier::agent {

// The environment variable the server sets to the file holding the trial
// attempt's credential (mode 0600; tuner/agent_credentials.h).
inline constexpr char kAgentTokenFileVariable[] = "VERNIER_AGENT_TOKEN_FILE";

// Reads the credential from the file $VERNIER_AGENT_TOKEN_FILE names and
// removes the variable from this process's environment, so the trainer
// never sees it. "" when the variable is not set (an agent started by
// hand); the file's errors (missing, readable by others, empty) otherwise.
absl::StatusOr<std::string> TakeAgentToken();

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_AGENT_TOKEN_H_
