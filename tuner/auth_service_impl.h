#ifndef VERNIER_TUNER_AUTH_SERVICE_IMPL_H_
#define VERNIER_TUNER_AUTH_SERVICE_IMPL_H_

#include <grpcpp/grpcpp.h>

#include "tuner/clock.h"
#include "tuner/rpc_authorizer.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/auth_service.grpc.pb.h"

namespace vernier::tuner {

// API tokens (create, list, revoke) and sharing. Every method passes the
// gate (RpcAuthorizer) first, like the other services.
class AuthServiceImpl final : public v1::AuthService::Service {
 public:
  AuthServiceImpl(storage::Storage& store, RpcAuthorizer& gate, Clock clock)
      : store_(store), gate_(gate), clock_(std::move(clock)) {}

  grpc::Status CreateToken(grpc::ServerContext*, const v1::CreateTokenRequest*,
                           v1::CreateTokenResponse*) override;
  grpc::Status ListTokens(grpc::ServerContext*, const v1::ListTokensRequest*,
                          v1::ListTokensResponse*) override;
  grpc::Status RevokeToken(grpc::ServerContext*, const v1::RevokeTokenRequest*,
                           v1::ApiToken*) override;
  grpc::Status ShareStudy(grpc::ServerContext*, const v1::ShareRequest*,
                          v1::ShareResponse*) override;
  grpc::Status ShareJob(grpc::ServerContext*, const v1::ShareRequest*,
                        v1::ShareResponse*) override;
  grpc::Status WhoAmI(grpc::ServerContext*, const v1::WhoAmIRequest*,
                      v1::WhoAmIResponse*) override;

 private:
  storage::Storage& store_;
  RpcAuthorizer& gate_;
  Clock clock_;
};

// Stores a new token for `user` with `role` (expiring after `expires_in`
// unless it is zero) and returns the token text (shown once) with what was
// stored. INVALID_ARGUMENT for an empty or odd user name, a role other than
// viewer, developer or admin, or a negative expiry.
absl::StatusOr<v1::CreateTokenResponse> IssueApiToken(storage::Storage& store,
                                                      const std::string& user, v1::Role role,
                                                      absl::Duration expires_in,
                                                      const std::string& created_by,
                                                      absl::Time now);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AUTH_SERVICE_IMPL_H_
