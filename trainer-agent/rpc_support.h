#ifndef VERNIER_TRAINER_AGENT_RPC_SUPPORT_H_
#define VERNIER_TRAINER_AGENT_RPC_SUPPORT_H_

#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace vernier::agent {

// What the agent's calls to the service share: how a call waits, and how its
// failures are logged.
class RpcSupport {
 public:
  // A deadline `timeout` from now, waiting for a connection within it
  // instead of failing at once while the channel reconnects to a restarting
  // service.
  static void PrepareContext(grpc::ClientContext& context, absl::Duration timeout);
  // "UNAVAILABLE: failed to connect ..."
  static std::string Describe(const grpc::Status& status);
  // Warn on the first failure of a streak and every tenth after, so an outage
  // of an hour leaves a readable log.
  static bool WorthWarning(int64_t streak) { return streak == 1 || streak % 10 == 0; }
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_RPC_SUPPORT_H_
