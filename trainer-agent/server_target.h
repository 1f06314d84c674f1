#ifndef VERNIER_TRAINER_AGENT_SERVER_TARGET_H_
#define VERNIER_TRAINER_AGENT_SERVER_TARGET_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::agent {

// The gRPC target for the agent's --server. One address is used as given
// ("host:port", "unix:/path"). Several comma-separated "host:port", the
// servers sharing one store, are each resolved now and joined into one
// "ipv4:" (or "ipv6:") target: gRPC's pick_first policy connects to the
// first that answers and, when that server goes away, to the next, so an
// agent outlives the server that launched it. INVALID_ARGUMENT naming the
// entry for an empty one, one without a port, one that does not resolve,
// or a list that mixes IPv4-only and IPv6-only hosts.
absl::StatusOr<std::string> ServerTarget(std::string_view servers);

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_SERVER_TARGET_H_
