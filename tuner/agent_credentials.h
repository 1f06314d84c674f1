#ifndef VERNIER_TUNER_AGENT_CREDENTIALS_H_
#define VERNIER_TUNER_AGENT_CREDENTIALS_H_

#include <string>

#include "absl/status/statusor.h"
#include "tuner/clock.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::tuner {

// The environment variable naming the file that holds an agent's
// credential; the agent reads it and removes both from what its trainer
// inherits.
inline constexpr char kAgentTokenFileVariable[] = "VERNIER_AGENT_TOKEN_FILE";

// Credentials of trial attempts' agents (docs/security.md): a token of role
// AGENT scoped to one attempt (report its measurements, heartbeats and
// exit; nothing else), stored as a hash like users' tokens, written to a
// 0600 file in the trial's directory (never on a command line), and
// deleted when the attempt ends.
class AgentCredentials {
 public:
  AgentCredentials(storage::Storage& store, Clock clock) : store_(store), clock_(std::move(clock)) {}

  // Issues the attempt's credential (replacing one issued for it before)
  // and writes it to `directory`/.agent-token-ATTEMPT; returns that path.
  absl::StatusOr<std::string> Issue(const v1::AgentScope& scope, const std::string& directory);
  // Deletes the attempt's credential and its file; nothing to do is fine.
  void Revoke(const v1::AgentScope& scope, const std::string& directory);

  // The stored id of the attempt's credential.
  static std::string IdOf(const v1::AgentScope& scope);
  static std::string FileOf(const v1::AgentScope& scope, const std::string& directory);

 private:
  storage::Storage& store_;
  Clock clock_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AGENT_CREDENTIALS_H_
