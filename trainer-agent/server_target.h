#ifndef VERNIER_TRAINER_AGENT_SERVER_TARGET_H_
#define VERNIER_TRAINER_AGENT_SERVER_TARGET_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::agent {

// The gRPC targets for the agent's --server, one per server, in the order
// the agent tries them (ServerPool). One address is used as given
// ("host:port", "unix:/path"). Several comma-separated "host:port" are the
// servers sharing one store: the agent reports to the first and moves to
// the next when a call finds it unreachable or silent, so an agent outlives
// the server that launched it, killed or hung. INVALID_ARGUMENT naming the
// entry for an empty one, one without a port, or one whose host does not
// resolve (checked now, so that a typo ends the agent at once).
absl::StatusOr<std::vector<std::string>> ServerTargets(std::string_view servers);

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_SERVER_TARGET_H_
