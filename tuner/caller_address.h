#ifndef VERNIER_TUNER_CALLER_ADDRESS_H_
#define VERNIER_TUNER_CALLER_ADDRESS_H_

#include <grpcpp/server_context.h>

#include <string>

namespace vernier::tuner {

// The address a call comes from, for the audit log: gRPC's peer
// ("ipv4:10.0.0.5:51234"), or for a call the HTTP API forwards over the
// server's in-process channel, its HTTP client's address with " (http)".
// The forwarded address is believed only from the in-process channel (a
// peer that is not a network address): a network client cannot set it.
std::string CallerAddress(const grpc::ServerContextBase& context);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_CALLER_ADDRESS_H_
