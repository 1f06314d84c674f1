#include "tls/peer_identity.h"

#include <grpc/grpc_security_constants.h>

namespace vernier::tls {

std::optional<std::string> PeerCommonName(const grpc::AuthContext& auth_context) {
  if (!auth_context.IsPeerAuthenticated()) return std::nullopt;
  const std::vector<grpc::string_ref> names =
      auth_context.FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME);
  if (names.empty() || names.front().empty()) return std::nullopt;
  return std::string(names.front().data(), names.front().size());
}

std::optional<std::string> PeerCommonName(const grpc::ServerContextBase& context) {
  const std::shared_ptr<const grpc::AuthContext> auth_context = context.auth_context();
  if (auth_context == nullptr) return std::nullopt;
  return PeerCommonName(*auth_context);
}

}  // namespace vernier::tls
