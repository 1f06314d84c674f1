#ifndef VERNIER_TLS_PEER_IDENTITY_H_
#define VERNIER_TLS_PEER_IDENTITY_H_

#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>

#include <optional>
#include <string>

namespace vernier::tls {

// Who is calling, as far as the transport says: the subject CN of the
// client certificate the server verified (mutual TLS), or nothing (no TLS,
// TLS without client certificates). The one place later authorization
// reads a caller's certificate identity from.
std::optional<std::string> PeerCommonName(const grpc::AuthContext& auth_context);
std::optional<std::string> PeerCommonName(const grpc::ServerContextBase& context);

}  // namespace vernier::tls

#endif  // VERNIER_TLS_PEER_IDENTITY_H_
